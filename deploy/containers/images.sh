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

# build NAME [FILE...]: the image localhost/partner-api-test-NAME:<hash of the
# base's name, the Containerfile and FILEs>. The context is made (by
# context_NAME, when defined) only when the image has to be built.
build() {
  local name=$1 recipe tag context="$DATA/containers/$1"
  shift
  recipe=$(cat <(echo "$BASE") "$HERE/$name/Containerfile" "$@" | sha256sum | cut -c1-16)
  tag="localhost/partner-api-test-$name:$recipe"
  if ! "$PODMAN" image exists "$tag"; then
    rm -rf "$context" && mkdir -p "$context"
    if declare -F "context_$name" >/dev/null; then "context_$name" "$context"; fi
    say "building $tag (once per machine and recipe; output in $LOGS/containers-build.log)"
    "$PODMAN" build --layers --build-arg BASE="$BASE" -f "$HERE/$name/Containerfile" -t "$tag" "$context" \
      >>"$LOGS/containers-build.log" 2>&1 || { tail -n 30 "$LOGS/containers-build.log" >&2; die "building $tag failed"; }
    # Earlier recipes' images of this name are not used again.
    "$PODMAN" images --format '{{.Repository}}:{{.Tag}}' "localhost/partner-api-test-$name" | grep -vxF "$tag" |
      xargs -r "$PODMAN" rmi >/dev/null 2>&1 || true
  fi
  echo "$tag"
}

# Kafka's context: the jars of deploy/local/kafka/pom.xml (hard links to the
# copy deploy/local/kafka.sh fetched), start.sh and the broker settings it
# shares with deploy/local/kafka.sh.
context_kafka() {
  kafka_fetch_jars
  cp -al "$KAFKA_LIB" "$1/lib" 2>/dev/null || cp -a "$KAFKA_LIB" "$1/lib"
  rm -f "$1"/lib/.pom-*
  cp "$HERE/kafka/start.sh" "$KAFKA_SINGLE_NODE_PROPERTIES" "$KAFKA_SERVER_LOG4J" "$1/"
}

echo "POSTGRES_IMAGE=$(build postgres)"
echo "REDIS_IMAGE=$(build redis)"
echo "KAFKA_IMAGE=$(build kafka "$HERE/kafka/start.sh" "$KAFKA_POM" "$KAFKA_SINGLE_NODE_PROPERTIES" "$KAFKA_SERVER_LOG4J")"
