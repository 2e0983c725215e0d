#!/usr/bin/env bash
# Builds k8s.io/sample-apiserver v0.32.4 (the wardle.example.com extension API server the
# aggregation tests and bench:aggregator run behind the gateway) into a cache dir, once:
# ${KUBE_GATEWAY_CACHE:-~/.cache/kube-gateway}/bin/sample-apiserver. Prints the binary's path.
set -euo pipefail
cache="${KUBE_GATEWAY_CACHE:-$HOME/.cache/kube-gateway}/bin"
bin="$cache/sample-apiserver"
version=v0.32.4
stamp="$cache/sample-apiserver.version"
if [ -x "$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then echo "$bin"; exit 0; fi
mkdir -p "$cache"
# A machine that already built it (the shared Go warm-up) saves the build.
if [ -x /tmp/gowarm/bin/sample-apiserver ] && /tmp/gowarm/bin/sample-apiserver --help >/dev/null 2>&1; then
  cp /tmp/gowarm/bin/sample-apiserver "$bin.tmp" && mv "$bin.tmp" "$bin"
else
  command -v go >/dev/null 2>&1 || { echo "go is needed to build the sample-apiserver (https://go.dev/dl/)" >&2; exit 1; }
  GOBIN="$cache" GOSUMDB=off GOFLAGS=-mod=mod nice go install "k8s.io/sample-apiserver@$version" >&2
fi
echo "$version" > "$stamp"
echo "$bin"
