#!/usr/bin/env bash
# Builds the reference servers the parity harness compares against:
#   kube-apiserver and kube-controller-manager v1.32.4 and etcd v3.5.17, from the Go module proxy, into ~/.cache/kube-ref/bin.
#
# Idempotent: a binary already stamped with the wanted version is kept, so `npm run parity` calls this
# every time and pays only on the first run (about 20 minutes on 2 cores; Go's build cache makes a
# relink after that a matter of seconds).
#
# Usage: parity/build-reference.sh [kube|kcm|etcd|e2e|all]   (default: kube, kcm, etcd; e2e only when asked)
#
# k8s.io/kubernetes is not meant to be consumed as a module: its go.mod requires every staging module
# (k8s.io/api, k8s.io/apiserver, ...) at v0.0.0 and replaces them with ./staging paths, which do not
# apply to a dependent module. We therefore build from a small wrapper module that replaces each of
# those v0.0.0 requirements with the published v0.32.4 tag, read from kubernetes' own go.mod so the
# list cannot go stale.
set -euo pipefail

KUBE_VERSION=v1.32.4
STAGING_VERSION=v0.32.4
ETCD_VERSION=v3.5.17
CACHE=${KUBE_REF_CACHE:-$HOME/.cache/kube-ref}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$CACHE/bin

# Checksums come from the module proxy itself (no sum database is reachable here); -mod=mod lets go
# complete go.mod/go.sum of the wrapper modules as it resolves them.
export GOSUMDB=off GOFLAGS=-mod=mod
export PATH=$PATH:/usr/local/go/bin

log() { printf '[build-reference] %s\n' "$*" >&2; }

# The version variables kube's own build (hack/lib/version.sh) stamps, so that /version and
# `--version` answer v1.32.4 like a released binary instead of v0.0.0-master.
kube_ldflags() {
  local commit=59526cd4867447956156ae3a602fcbac10a2c335 date=2025-04-22T15:56:13Z flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=32"
    flags+=" -X $pkg.gitCommit=$commit -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
  done
  printf '%s' "$flags"
}

# Writes the wrapper module in $1 (once): go.mod replacing every staging module, and a main.go that
# imports $2 so k8s.io/kubernetes is a real requirement of the module.
kube_module() {
  local dir=$1 import=$2
  mkdir -p "$dir"
  [[ -f $dir/go.mod ]] && return 0
  log "writing wrapper module $dir"
  local modfile
  modfile=$(cd "$dir" && GOFLAGS= go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | jq -r .GoMod)
  {
    printf 'module kuberef\n\ngo 1.23.0\n\n'
    # Every k8s.io/* requirement at v0.0.0 in kubernetes' go.mod is a staging module.
    grep -oE '^\s*k8s\.io/[a-z0-9-]+ v0\.0\.0$' "$modfile" | awk -v v="$STAGING_VERSION" '{print "replace " $1 " => " $1 " " v}'
    printf '\nrequire k8s.io/kubernetes %s\n' "$KUBE_VERSION"
  } >"$dir/go.mod"
  printf 'package main\n\nimport (\n\t_ "%s"\n)\n\nfunc main() {}\n' "$import" >"$dir/main.go"
}

build_kube() {
  local out=$BIN/kube-apiserver
  if [[ -x $out ]] && "$out" --version 2>/dev/null | grep -qx "Kubernetes $KUBE_VERSION"; then
    log "kube-apiserver $KUBE_VERSION cached at $out"; return 0
  fi
  kube_module "$CACHE/src" k8s.io/kubernetes/cmd/kube-apiserver/app
  log "building kube-apiserver $KUBE_VERSION (long on first run)"
  mkdir -p "$BIN"
  (cd "$CACHE/src" && nice go build -ldflags "$(kube_ldflags)" -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
  mv "$out.tmp" "$out"
  "$out" --version >&2
}

# kube-controller-manager, for the controllers the reference needs to behave like a cluster:
# namespace deletion, garbage collection, the `default` ServiceAccount and kube-root-ca.crt.
build_kcm() {
  local out=$BIN/kube-controller-manager
  if [[ -x $out ]] && "$out" --version 2>/dev/null | grep -qx "Kubernetes $KUBE_VERSION"; then
    log "kube-controller-manager $KUBE_VERSION cached at $out"; return 0
  fi
  kube_module "$CACHE/src" k8s.io/kubernetes/cmd/kube-apiserver/app
  log "building kube-controller-manager $KUBE_VERSION"
  mkdir -p "$BIN"
  (cd "$CACHE/src" && nice go build -ldflags "$(kube_ldflags)" -o "$out.tmp" k8s.io/kubernetes/cmd/kube-controller-manager)
  mv "$out.tmp" "$out"
}

build_etcd() {
  local out=$BIN/etcd dir=$CACHE/etcd-src
  if [[ -x $out ]] && "$out" --version 2>/dev/null | grep -q "etcd Version: ${ETCD_VERSION#v}$"; then
    log "etcd $ETCD_VERSION cached at $out"; return 0
  fi
  mkdir -p "$dir" "$BIN"
  if [[ ! -f $dir/go.mod ]]; then
    printf 'module etcdref\n\ngo 1.23.0\n' >"$dir/go.mod"
    printf 'package main\n\nimport (\n\t_ "go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() {}\n' >"$dir/main.go"
    (cd "$dir" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION")
  fi
  log "building etcd $ETCD_VERSION"
  # etcd's own build stamps nothing we need; its version string is compiled into the api module.
  (cd "$dir" && nice go build -ldflags "-s -w" -o "$out.tmp" go.etcd.io/etcd/server/v3)
  mv "$out.tmp" "$out"
  "$out" --version | sed -n 1p >&2
}

# Kubernetes' e2e suite as one test binary (used by parity/run-e2e.sh). Same wrapper-module scheme;
# the module is parity/e2e in the repository, so its go.mod/go.sum pin what was built.
build_e2e() {
  local out=$BIN/e2e.test dir=$HERE/e2e stamp=$BIN/e2e.test.version
  if [[ -x $out && -f $stamp && $(cat "$stamp") == "$KUBE_VERSION" ]]; then
    log "e2e.test $KUBE_VERSION cached at $out"; return 0
  fi
  kube_module "$dir" k8s.io/kubernetes/test/e2e
  log "building e2e.test $KUBE_VERSION (about 20 minutes on first run)"
  mkdir -p "$BIN"
  (cd "$dir" && nice go test -c -ldflags "$(kube_ldflags)" -o "$out.tmp" k8s.io/kubernetes/test/e2e)
  mv "$out.tmp" "$out"
  printf '%s' "$KUBE_VERSION" >"$stamp"
}

case ${1:-default} in
  kube) build_kube ;;
  kcm) build_kcm ;;
  etcd) build_etcd ;;
  e2e) build_e2e ;;
  default) build_kube; build_kcm; build_etcd ;;
  all) build_kube; build_kcm; build_etcd; build_e2e ;;
  *) echo "usage: $0 [kube|kcm|etcd|e2e|all]" >&2; exit 2 ;;
esac
