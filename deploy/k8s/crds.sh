#!/usr/bin/env bash
# Prints the folder with the Prometheus Operator's CRDs, from the operator's
# Go module (fetched into Go's module cache on first use; needs the module
# proxy once, offline afterwards).
set -euo pipefail
OPERATOR=github.com/prometheus-operator/prometheus-operator@v0.77.1
dir=$(cd / && go mod download -json "$OPERATOR" | jq -r .Dir)
[[ -d "$dir/example/prometheus-operator-crd" ]] || { echo "error: no CRDs in $OPERATOR" >&2; exit 1; }
echo "$dir/example/prometheus-operator-crd"
