#!/usr/bin/env bash
# Builds the pinned helm with `go install` (no download of a prebuilt
# binary) into Go's default bin folder, so every clone on the machine shares
# it. Instant when that version is already there. Prints its path.
set -euo pipefail
HELM_VERSION=v3.22.0
command -v go >/dev/null || { echo "error: Go is needed to build helm" >&2; exit 1; }
BIN=$(go env GOBIN)
[[ -n "$BIN" ]] || BIN="$(go env GOPATH)/bin"
HELM="$BIN/helm"

if [[ -x "$HELM" ]] && "$HELM" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; then
  echo "$HELM"
  exit 0
fi
mkdir -p "$BIN"
echo "building helm $HELM_VERSION with go install (first run only)" >&2
GOBIN="$BIN" go install -ldflags "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
echo "$HELM"
