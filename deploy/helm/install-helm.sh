#!/usr/bin/env bash
# Builds the pinned helm with `go install` into Go's default bin folder
# (go_tool in deploy/local/lib.sh). Prints its path.
set -euo pipefail
HELM_VERSION=v3.22.0
# shellcheck source=deploy/local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
go_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" -ldflags "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
