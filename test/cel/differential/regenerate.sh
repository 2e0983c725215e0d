#!/bin/sh
# Regenerates the differential test's expectations: builds the Go reference (kube-apiserver
# v1.32.4's CEL environments) and runs it over the corpus. Needs Go and the module proxy; the
# test itself only reads the committed expectations.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${CEL_REFERENCE_BIN:-${TMPDIR:-/tmp}/kube-gateway-cel-reference}
(cd "$here/../go-reference" && GOSUMDB=off GOFLAGS=-mod=mod nice go build -o "$bin" .)
(cd "$root" && npx tsx test/cel/differential/generate-corpus.ts > "$here/corpus.jsonl")
"$bin" < "$here/corpus.jsonl" > "$here/expectations.jsonl"
echo "$(wc -l < "$here/expectations.jsonl") expectations written to $here/expectations.jsonl"
