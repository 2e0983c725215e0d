#!/usr/bin/env bash
# Runs the Kubernetes v1.32.4 e2e specs listed in parity/e2e-specs.txt (specs that need no nodes and
# touch only what kube-gateway serves) against kube-gateway, or against the reference to confirm them.
#
#   parity/run-e2e.sh [--reference] [--kubeconfig FILE] [--specs FILE] [--focus REGEX] [--backend memory|sqlite] [--no-shim]
#
# Default target: a fresh kube-gateway (src/main.ts, temporary data dir, random port). Beside it runs a
# kube-controller-manager v1.32.4 with only the serviceaccount and root-ca-certificate-publisher
# controllers: in a cluster those create every namespace's `default` ServiceAccount and
# kube-root-ca.crt ConfigMap, which the e2e framework waits for before each spec. kube-gateway has
# its own namespace and garbage-collector controllers, so kube-controller-manager's are not started.
# The suite's setup reads GET /api/v1/namespaces/default/services/kubernetes before any spec, and
# kube-gateway serves no Services: parity/e2e-shim.ts, a pass-through proxy, answers that one request
# (see PARITY-FINDINGS.md); --no-shim runs without it.
# --reference: a private reference (parity/reference.sh, with its own kube-controller-manager).
# --kubeconfig: an already running server; nothing is started.
# E2E_TIMEOUT (default 30m) bounds the whole ginkgo run: a spec that hangs is reported as interrupted.
# Output: ginkgo's log in $OUT (default /tmp/parity-e2e), JUnit report there, and a one-line summary.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
BIN=${KUBE_REF_BIN:-$HOME/.cache/kube-ref/bin}
OUT=${OUT:-/tmp/parity-e2e}
SPECS=$here/e2e-specs.txt
TARGET=gateway
KUBECONFIG_GIVEN=
FOCUS=
BACKEND=memory
SHIM=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --reference) TARGET=reference; shift ;;
    --kubeconfig) TARGET=given; KUBECONFIG_GIVEN=$2; shift 2 ;;
    --specs) SPECS=$2; shift 2 ;;
    --focus) FOCUS=$2; shift 2 ;;
    --backend) BACKEND=$2; shift 2 ;;
    --no-shim) SHIM=0; shift ;;
    *) echo "run-e2e.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[run-e2e] %s\n' "$*" >&2; }

"$here/build-reference.sh" kube >/dev/null 2>&1 || true
"$here/build-reference.sh" e2e
[[ -x $BIN/kube-controller-manager ]] || "$here/build-reference.sh" kcm

mkdir -p "$OUT"
pids=()
# Stops what this script started; keeps the script's exit status (an EXIT trap's last status would replace it).
cleanup() {
  local code=$? pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ -n ${refdir:-} ]]; then "$here/reference.sh" stop --dir "$refdir" >/dev/null 2>&1 || true; rm -rf "$refdir"; fi
  if [[ -n ${datadir:-} ]]; then rm -rf "$datadir"; fi
  exit "$code"
}
trap cleanup EXIT

case $TARGET in
  given) kubeconfig=$KUBECONFIG_GIVEN ;;
  reference)
    refdir=$(mktemp -d /tmp/parity-e2e-ref.XXXXXX)
    "$here/reference.sh" start --dir "$refdir" >/dev/null
    kubeconfig=$refdir/kubeconfig ;;
  gateway)
    datadir=$(mktemp -d /tmp/parity-e2e-gw.XXXXXX)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    (cd "$repo" && exec node --import tsx src/main.ts --secure-port "$port" --bind-address 127.0.0.1 \
      --data-dir "$datadir" --storage-backend "$BACKEND") >"$OUT/gateway.log" 2>&1 &
    pids+=($!)
    kubeconfig=$datadir/admin.kubeconfig
    for _ in $(seq 1 120); do
      [[ -f $kubeconfig ]] && kubectl --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null 2>&1 && break
      sleep 0.5
    done
    kubectl --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null || { log "kube-gateway did not start; see $OUT/gateway.log"; exit 1; }
    "$BIN/kube-controller-manager" --kubeconfig="$kubeconfig" --leader-elect=false --secure-port=0 \
      --controllers=serviceaccount-controller,root-ca-certificate-publisher-controller \
      --root-ca-file="$datadir/ca.crt" >"$OUT/kube-controller-manager.log" 2>&1 &
    pids+=($!)
    log "kube-gateway on https://127.0.0.1:$port (data $datadir, log $OUT/gateway.log)"
    if [[ $SHIM == 1 ]]; then
      shimport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
      (cd "$repo" && exec node --import tsx parity/e2e-shim.ts --data-dir "$datadir" --upstream "https://127.0.0.1:$port" --port "$shimport") >"$OUT/shim.log" 2>&1 &
      pids+=($!)
      sed "s#https://127.0.0.1:$port#https://127.0.0.1:$shimport#" "$kubeconfig" >"$OUT/shim.kubeconfig"
      kubeconfig=$OUT/shim.kubeconfig
      for _ in $(seq 1 60); do kubectl --kubeconfig "$kubeconfig" get --raw /readyz >/dev/null 2>&1 && break; sleep 0.5; done
      log "e2e talks to kube-gateway through parity/e2e-shim.ts on port $shimport (serves only the kubernetes Service)"
    fi ;;
esac

# The focus is the exact spec names, regex-escaped and joined.
if [[ -z $FOCUS ]]; then
  FOCUS=$(grep -v '^\s*#' "$SPECS" | grep -v '^\s*$' | python3 -c 'import re,sys; print("|".join(re.escape(l.strip()) for l in sys.stdin))')
fi

# --allowed-not-ready-nodes=-1 and --num-nodes=1: the suite's setup then neither waits for
# schedulable nodes nor lists kube-system pods, neither of which exists here.
set +e
nice "$BIN/e2e.test" --kubeconfig "$kubeconfig" --provider=skeleton --allowed-not-ready-nodes=-1 --num-nodes=1 \
  --report-dir "$OUT" --ginkgo.focus="$FOCUS" --ginkgo.no-color --ginkgo.timeout="${E2E_TIMEOUT:-30m}" >"$OUT/e2e.log" 2>&1
rc=$?
set -e
sed -n '/^Summarizing/,$p' "$OUT/e2e.log" | grep -E '^\s+\[(FAIL|TIMEDOUT|PANICKED)\]' | sed -E 's/^\s+//' >&2 || true
grep -E '^(Ran|FAIL!|SUCCESS!)' "$OUT/e2e.log" | tail -2 >&2
log "log: $OUT/e2e.log (target: $TARGET)"
exit $rc
