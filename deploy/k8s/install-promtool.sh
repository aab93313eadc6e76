#!/usr/bin/env bash
# Builds the pinned promtool from the Prometheus Go module with `go install`
# (no prebuilt download) into Go's default bin folder, so every clone on the
# machine shares it. The first build takes several minutes; later runs are
# instant. Prints its path.
set -euo pipefail
PROMETHEUS_MODULE_VERSION=v0.316.0
command -v go >/dev/null || { echo "error: Go is needed to build promtool" >&2; exit 1; }
BIN=$(go env GOBIN)
[[ -n "$BIN" ]] || BIN="$(go env GOPATH)/bin"
PROMTOOL="$BIN/promtool"

if [[ -x "$PROMTOOL" ]] && go version -m "$PROMTOOL" 2>/dev/null | grep -q "mod[[:space:]]*github.com/prometheus/prometheus[[:space:]]*$PROMETHEUS_MODULE_VERSION"; then
  echo "$PROMTOOL"
  exit 0
fi
mkdir -p "$BIN"
echo "building promtool ($PROMETHEUS_MODULE_VERSION) with go install (first run only)" >&2
GOBIN="$BIN" go install "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION" >&2
echo "$PROMTOOL"
