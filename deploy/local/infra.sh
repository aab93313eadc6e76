#!/usr/bin/env bash
# Local PostgreSQL, Redis and Kafka for development and tests, without Docker.
# Installs what is missing, runs each under .data/ on loopback, waits until
# ready, and records the URLs in .data/infra.env. A server named by
# DATABASE_URL, REDIS_URL or KAFKA_BROKERS in the environment is used as it
# is. Idempotent: `up` when everything runs returns in well under a second.
#
#   infra.sh up | down | status | env
#   infra.sh start|stop postgres|redis|kafka      one server (crash tests)
#   infra.sh kill redis [PORT]                    SIGKILL, for crash tests (a cluster: one shard)
#
# REDIS_CLUSTER=3 makes Redis a 3-master Redis Cluster (see redis.sh).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=deploy/local/lib.sh
. "$HERE/lib.sh"
# shellcheck source=deploy/local/postgres.sh
. "$HERE/postgres.sh"
# shellcheck source=deploy/local/redis.sh
. "$HERE/redis.sh"
# shellcheck source=deploy/local/kafka.sh
. "$HERE/kafka.sh"

ENV_FILE="$DATA/infra.env"

usage() {
  say "usage: $0 up|down|status|env | start|stop postgres|redis|kafka | kill redis [PORT]"
  exit 2
}

# One change at a time (two `make` runs, a test restarting Redis). Every
# server we launch gets `9>&-`: an inherited descriptor would hold the lock
# for as long as the server lives.
lock() {
  exec 9>"$DATA/.infra.lock"
  flock -w 300 9 || die "another infra.sh has held $DATA/.infra.lock for 5 minutes"
}

write_env() {
  # Written whole and renamed, so a reader never sees half a file.
  {
    echo "DATABASE_URL=${DATABASE_URL:-$PG_URL}"
    echo "REDIS_URL=${REDIS_URL:-$REDIS_URL_LOCAL}"
    echo "KAFKA_BROKERS=${KAFKA_BROKERS:-$KAFKA_BOOTSTRAP}"
  } >"$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

server() { # postgres|redis|kafka -> the env var that points elsewhere, our endpoint
  case "$1" in
    postgres) echo "DATABASE_URL $PG_URL" ;;
    redis) echo "REDIS_URL $REDIS_URL_LOCAL" ;;
    kafka) echo "KAFKA_BROKERS $KAFKA_BOOTSTRAP" ;;
    *) say "unknown server: $1 (postgres, redis or kafka)"; usage ;;
  esac
}

up() {
  local name var endpoint
  for name in postgres redis kafka; do
    read -r var endpoint < <(server "$name")
    if external "$var" "$endpoint"; then
      say "$name: using $var from the environment"
    else
      "${name}_start"
    fi
  done
  write_env
}

status() {
  local name var endpoint
  for name in postgres redis kafka; do
    read -r var endpoint < <(server "$name")
    if external "$var" "$endpoint"; then echo "$name: external ($var=${!var})"; else "${name}_status"; fi
  done
}

case "${1:-}" in
  up)
    lock
    up
    say "infrastructure up in ${SECONDS}s; URLs in ${ENV_FILE#"$ROOT"/}"
    ;;
  down)
    lock
    kafka_stop
    redis_stop
    postgres_stop
    ;;
  status) status ;;
  env)
    [[ -f "$ENV_FILE" ]] || die "no ${ENV_FILE#"$ROOT"/} yet: run $0 up"
    cat "$ENV_FILE"
    ;;
  start | stop)
    [[ $# -eq 2 ]] || usage
    server "$2" >/dev/null
    lock
    "${2}_$1"
    ;;
  kill)
    [[ "${2:-}" == redis ]] || { say "only 'kill redis' is supported"; usage; }
    lock
    redis_kill "${3:-}"
    ;;
  *) usage ;;
esac
