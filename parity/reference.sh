#!/usr/bin/env bash
# Runs a reference kube-apiserver v1.32.4 with its own etcd on 127.0.0.1, so that anyone can ask the
# real thing how it behaves.
#
#   parity/reference.sh start  [--dir DIR] [--port N] [--etcd-port N] [--authorization-mode RBAC|AlwaysAllow]
#                              [--no-controller-manager] [--controllers LIST] [--extra-flag --name=value]...
#   parity/reference.sh stop   [--dir DIR]
#   parity/reference.sh status [--dir DIR]      (exit 0 when it answers /readyz)
#   parity/reference.sh env    [--dir DIR]      (prints the shell lines of DIR/env)
#
# DIR defaults to /tmp/kube-ref, an instance shared by everyone on the machine: `start` on a DIR whose
# servers are already up only prints how to reach them. Ports are random free ones unless given.
# `start` returns once /readyz answers 200 and prints KUBECONFIG / REF_URL / REF_TOKEN lines; the
# same lines are in DIR/env. The identity is `admin` in group system:masters, both through the client
# certificate in the kubeconfig and through the bearer token (token file), as in kube-gateway's
# admin.kubeconfig. Logs: DIR/kube-apiserver.log, DIR/etcd.log.
#
# Binaries: $KUBE_REF_BIN (default ~/.cache/kube-ref/bin) from parity/build-reference.sh; when
# etcd 3.5.17 is not built yet the etcd on PATH is used; kube-controller-manager runs when built.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
BIN=${KUBE_REF_BIN:-$HOME/.cache/kube-ref/bin}
DIR=/tmp/kube-ref
PORT=
ETCD_PORT=
AUTHZ=RBAC
KCM=1
# The controllers of kube-controller-manager (its --controllers names); see below.
CONTROLLERS=namespace-controller,garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller
EXTRA_FLAGS=()

cmd=${1:-}
[[ $# -gt 0 ]] && shift
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) DIR=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --etcd-port) ETCD_PORT=$2; shift 2 ;;
    --authorization-mode) AUTHZ=$2; shift 2 ;;
    --no-controller-manager) KCM=0; shift ;;
    --controllers) CONTROLLERS=$2; shift 2 ;;
    --extra-flag) EXTRA_FLAGS+=("$2"); shift 2 ;;
    *) echo "reference.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[reference] %s\n' "$*" >&2; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

ready() {
  [[ -f $DIR/env ]] || return 1
  # shellcheck disable=SC1091
  (source "$DIR/env" && curl -sf --max-time 3 --cacert "$DIR/pki/ca.crt" -H "Authorization: Bearer $REF_TOKEN" \
    "$REF_URL/readyz" >/dev/null)
}

# A CA, a serving certificate for 127.0.0.1/localhost, an admin client certificate, and the
# service-account signing key pair kube-apiserver refuses to start without.
make_pki() {
  local p=$DIR/pki
  mkdir -p "$p"
  [[ -f $p/admin.crt ]] && return 0
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kube-ref-ca" \
    -keyout "$p/ca.key" -out "$p/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout "$p/server.key" -out "$p/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' >"$p/server.ext"
  openssl x509 -req -in "$p/server.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial -days 3650 \
    -extfile "$p/server.ext" -out "$p/server.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=admin" -keyout "$p/admin.key" -out "$p/admin.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$p/admin.ext"
  openssl x509 -req -in "$p/admin.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial -days 3650 \
    -extfile "$p/admin.ext" -out "$p/admin.crt" 2>/dev/null
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
  printf '%s,admin,admin,system:masters\n' "$(openssl rand -hex 16)" >"$p/tokens.csv"
}

write_kubeconfig() {
  local p=$DIR/pki
  cat >"$DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube-ref
  cluster:
    server: https://127.0.0.1:$PORT
    certificate-authority: $p/ca.crt
users:
- name: admin
  user:
    client-certificate: $p/admin.crt
    client-key: $p/admin.key
contexts:
- name: kube-ref
  context: {cluster: kube-ref, user: admin}
current-context: kube-ref
EOF
}

start() {
  if ready; then
    log "already running in $DIR"
    cat "$DIR/env"; return 0
  fi
  if alive "$DIR/kube-apiserver.pid" || alive "$DIR/etcd.pid"; then
    log "servers in $DIR are running but not ready; run: $0 stop --dir $DIR"; exit 1
  fi
  local kube=$BIN/kube-apiserver etcd=$BIN/etcd
  [[ -x $kube ]] || { log "no $kube: run parity/build-reference.sh"; exit 1; }
  [[ -x $etcd ]] || etcd=$(command -v etcd) || { log "no etcd binary"; exit 1; }
  mkdir -p "$DIR"
  make_pki
  PORT=${PORT:-$(free_port)}
  ETCD_PORT=${ETCD_PORT:-$(free_port)}
  local peer_port; peer_port=$(free_port)
  rm -rf "$DIR/etcd-data"

  # setsid: the servers outlive the shell that started them and can be stopped as a group.
  setsid "$etcd" --name ref --data-dir "$DIR/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "ref=http://127.0.0.1:$peer_port" \
    --experimental-watch-progress-notify-interval=5s \
    >"$DIR/etcd.log" 2>&1 </dev/null &
  echo $! >"$DIR/etcd.pid"

  # --endpoint-reconciler-type=none: the `kubernetes` Endpoints may not point at a loopback address,
  # and the reconciler would log that error every 10 seconds.
  local p=$DIR/pki
  setsid "$kube" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$PORT" \
    --tls-cert-file="$p/server.crt" --tls-private-key-file="$p/server.key" \
    --client-ca-file="$p/ca.crt" --token-auth-file="$p/tokens.csv" \
    --service-account-key-file="$p/sa.pub" --service-account-signing-key-file="$p/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --api-audiences=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=10.96.0.0/16 \
    --authorization-mode="$AUTHZ" \
    --allow-privileged=true \
    --endpoint-reconciler-type=none \
    --cert-dir="$DIR/cert-dir" \
    ${EXTRA_FLAGS[@]+"${EXTRA_FLAGS[@]}"} \
    >"$DIR/kube-apiserver.log" 2>&1 </dev/null &
  echo $! >"$DIR/kube-apiserver.pid"

  write_kubeconfig
  # kube-controller-manager with only the controllers that act on the kinds kube-gateway serves, so
  # that namespace deletion, garbage collection and per-namespace `default` ServiceAccounts and
  # kube-root-ca.crt ConfigMaps happen as in a cluster. The others (deployments, nodes, ...) would only
  # add load. It reaches the apiserver through the admin kubeconfig, so it may start before /readyz.
  # `--controllers` narrows the set (the parity harness runs only the controllers kube-gateway implements
  # itself: namespace, garbage collector, clusterrole aggregation, serviceaccount, root-CA publisher).
  if [[ -x $BIN/kube-controller-manager && $KCM == 1 ]]; then
    setsid "$BIN/kube-controller-manager" \
      --kubeconfig="$DIR/kubeconfig" --leader-elect=false --secure-port=0 \
      --controllers="$CONTROLLERS" \
      --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" \
      >"$DIR/kube-controller-manager.log" 2>&1 </dev/null &
    echo $! >"$DIR/kube-controller-manager.pid"
  fi

  cat >"$DIR/env" <<EOF
export KUBECONFIG=$DIR/kubeconfig
export REF_URL=https://127.0.0.1:$PORT
export REF_TOKEN=$(cut -d, -f1 "$p/tokens.csv")
export REF_CA=$p/ca.crt
EOF

  local i
  for i in $(seq 1 180); do
    if ready; then
      log "kube-apiserver v1.32.4 ready on https://127.0.0.1:$PORT (etcd 127.0.0.1:$ETCD_PORT, authorization $AUTHZ, dir $DIR)"
      cat "$DIR/env"; return 0
    fi
    if ! alive "$DIR/kube-apiserver.pid"; then
      log "kube-apiserver exited; last lines of $DIR/kube-apiserver.log:"; tail -20 "$DIR/kube-apiserver.log" >&2
      stop; exit 1
    fi
    sleep 1
  done
  log "not ready after 180s; see $DIR/kube-apiserver.log"; exit 1
}

stop() {
  local name pid
  for name in kube-controller-manager kube-apiserver etcd; do
    if alive "$DIR/$name.pid"; then
      pid=$(cat "$DIR/$name.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
      log "stopped $name ($pid)"
    fi
    rm -f "$DIR/$name.pid"
  done
  rm -f "$DIR/env"
}

case $cmd in
  start) start ;;
  stop) stop ;;
  status) if ready; then log "ready"; cat "$DIR/env"; else log "not running in $DIR"; exit 1; fi ;;
  env) cat "$DIR/env" ;;
  *) sed -n '2,21p' "$0" >&2; exit 2 ;;
esac
