#!/usr/bin/env bash
# Builds the pinned promtool from the Prometheus Go module with `go install`
# into Go's default bin folder (go_tool in deploy/local/lib.sh). Prints its path.
set -euo pipefail
PROMETHEUS_MODULE_VERSION=v0.316.0
# shellcheck source=deploy/local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
go_tool promtool "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION"
