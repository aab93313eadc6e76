#!/usr/bin/env bash
# Builds the project image with podman, no registry involved: the base comes
# from deploy/docker/base.sh (with a compiler for the build stage) and npm
# installs from this machine's npm cache.
# Tags it partner-api:<git revision> (with -dirty when tracked files are
# changed) and partner-api:<chart appVersion>, the chart's default image.
# Prints the revision tag. Unchanged sources reuse podman's layer cache.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PODMAN="$ROOT/deploy/docker/podman.sh"
cd "$ROOT"
REV=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD -- . || REV="$REV-dirty"
APP_VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/partner-api/Chart.yaml)
BASE=$("$ROOT/deploy/docker/base.sh")
BUILD_BASE=$("$ROOT/deploy/docker/base.sh" build)
NPM_CACHE=$(npm config get cache)

"$PODMAN" build --quiet --layers -f deploy/docker/Dockerfile \
  --build-arg BASE="$BASE" --build-arg BUILD_BASE="$BUILD_BASE" --build-arg NPM_FLAGS="--offline" \
  --network none --volume "$NPM_CACHE:/root/.npm" \
  -t "partner-api:$REV" -t "partner-api:$APP_VERSION" . >&2
echo "partner-api:$REV"
