#!/usr/bin/env bash
# Builds the test-server images for TEST_INFRA=containers with podman, no
# registry involved: PostgreSQL, Redis and Kafka on the project's base
# (deploy/docker/base.sh; packages from Debian's archive inside the build,
# Kafka's jars fetched with Maven as deploy/local/kafka.sh does). Each image
# is tagged with a hash of its recipe (the Containerfile, the files it copies
# and the base), so it is built once per machine and again only when its
# recipe changes. Prints NAME=image lines for the test setup to read.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PODMAN="$ROOT/deploy/docker/podman.sh"
# shellcheck source=../local/lib.sh
. "$ROOT/deploy/local/lib.sh"
# shellcheck source=../local/kafka.sh
. "$ROOT/deploy/local/kafka.sh"

BASE=$("$ROOT/deploy/docker/base.sh")

# build NAME CONTEXT: the image localhost/partner-api-test-NAME:<recipe hash>.
build() {
  local name=$1 context=$2 recipe tag
  recipe=$( { echo "$BASE"; cat "$HERE/$name/Containerfile"; (cd "$context" && find . -type f | LC_ALL=C sort | xargs sha256sum); } | sha256sum | cut -c1-16)
  tag="localhost/partner-api-test-$name:$recipe"
  if ! "$PODMAN" image exists "$tag"; then
    say "building $tag (once per machine and recipe; output in $LOGS/containers-build.log)"
    "$PODMAN" build --layers --build-arg BASE="$BASE" -f "$HERE/$name/Containerfile" -t "$tag" "$context" \
      >>"$LOGS/containers-build.log" 2>&1 || { tail -n 30 "$LOGS/containers-build.log" >&2; die "building $tag failed"; }
  fi
  echo "$tag"
}

EMPTY="$DATA/containers/empty"
mkdir -p "$EMPTY"
# Kafka's context: its jars (hard links into deploy/local's copy) and start.sh.
kafka_fetch_jars
KAFKA_CONTEXT="$DATA/containers/kafka"
rm -rf "$KAFKA_CONTEXT" && mkdir -p "$KAFKA_CONTEXT"
cp -al "$KAFKA_LIB" "$KAFKA_CONTEXT/lib" 2>/dev/null || cp -a "$KAFKA_LIB" "$KAFKA_CONTEXT/lib"
rm -f "$KAFKA_CONTEXT"/lib/.pom-*
cp "$HERE/kafka/start.sh" "$KAFKA_CONTEXT/"

echo "POSTGRES_IMAGE=$(build postgres "$EMPTY")"
echo "REDIS_IMAGE=$(build redis "$EMPTY")"
echo "KAFKA_IMAGE=$(build kafka "$KAFKA_CONTEXT")"
