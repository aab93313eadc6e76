#!/usr/bin/env bash
# The image and chart of the previous release, for upgrade.sh: a git revision
# (default: the parent of the last commit that changed a migration, so the
# upgrade to this tree runs a migration) exported with `git archive` into the
# per-machine cache and built like deploy/docker/image.sh builds this tree.
# Tagged partner-api-release:<revision>, a name image.sh never prunes, so a
# machine builds each previous release once.
#   deploy/k8s/previous-image.sh [REVISION]
# Prints two lines: the image, and the directory holding that revision's chart.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PODMAN="$ROOT/deploy/docker/podman.sh"
CACHE=${PARTNER_API_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/partner-api}/releases
cd "$ROOT"
if [[ -n ${1:-} ]]; then
  REV=$(git rev-parse --short=12 "$1^{commit}")
else
  last_migration=$(git log -1 --format=%H -- 'services/*/migrations/*')
  REV=$(git rev-parse --short=12 "$last_migration^")
fi
IMAGE="partner-api-release:$REV"
SOURCE="$CACHE/$REV"
if [[ ! -f "$SOURCE/.complete" ]]; then
  rm -rf "$SOURCE" && mkdir -p "$SOURCE"
  git archive "$REV" | tar -x -C "$SOURCE"
  touch "$SOURCE/.complete"
fi
if ! "$PODMAN" image exists "$IMAGE"; then
  echo "building the previous release's image $IMAGE (once per machine)" >&2
  "$PODMAN" build --quiet --layers -f "$SOURCE/deploy/docker/Dockerfile" \
    --build-arg BASE="$("$ROOT/deploy/docker/base.sh")" --build-arg BUILD_BASE="$("$ROOT/deploy/docker/base.sh" build)" \
    --build-arg NPM_FLAGS="--offline" --network none --volume "$(npm config get cache):/root/.npm" \
    -t "$IMAGE" "$SOURCE" >&2
fi
echo "$IMAGE"
echo "$SOURCE/charts/partner-api"
