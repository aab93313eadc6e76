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

# A revision's image and its build stage take about 1.7 GB, so a machine
# that builds every revision (a CI runner) would fill its disk: the newest
# IMAGE_KEEP (3) of each are kept, the build stages being the layer cache of
# the next build, and older ones removed.
# `|| true`: grep exits 1 when it matches nothing (a machine holding only
# this revision), which under pipefail would end the script.
keep=${IMAGE_KEEP:-3}
stale_tags=$("$PODMAN" images --filter reference=partner-api --format '{{.CreatedAt}}|{{.Tag}}' | sort -r | cut -d'|' -f2 |
  grep -E '^[0-9a-f]{12}(-dirty)?$' | grep -vxF "$REV" | tail -n +"$keep" || true)
for tag in $stale_tags; do "$PODMAN" rmi "partner-api:$tag" >/dev/null 2>&1 || true; done
"$PODMAN" images --filter dangling=true --format '{{.CreatedAt}}|{{.ID}}' | sort -r | cut -d'|' -f2 | tail -n +"$((keep + 1))" |
  while read -r id; do "$PODMAN" rmi "$id" >/dev/null 2>&1 || true; done
echo "partner-api:$REV"
