#!/usr/bin/env bash
# Local PostgreSQL, Redis and Kafka for development and tests, without Docker.
# Installs what is missing, runs each under .data/ on loopback, waits until
# ready, and records the URLs in .data/infra.env. Servers named by
# DATABASE_URL, REDIS_URL or KAFKA_BROKERS in the environment are used as
# they are. Idempotent: a second `up` returns at once.
#
#   infra.sh up | down | status | env
#   infra.sh start|stop postgres|redis|kafka      one server
#   infra.sh kill redis                           SIGKILL, for crash tests
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

write_env() {
  {
    echo "DATABASE_URL=${DATABASE_URL:-$PG_URL}"
    echo "REDIS_URL=${REDIS_URL:-$REDIS_URL_LOCAL}"
    echo "KAFKA_BROKERS=${KAFKA_BROKERS:-127.0.0.1:$KAFKA_PORT}"
  } >"$DATA/infra.env"
}

state() { # NAME ENVVAR RUNNING-CHECK
  if [[ -n "${!2:-}" ]]; then echo "$1: external (${!2})"
  elif $3; then echo "$1: running"
  else echo "$1: stopped"; fi
}

one() { # start|stop NAME
  case "$2" in
    postgres | redis | kafka) "${2}_$1" ;;
    *) die "unknown server: $2 (postgres, redis or kafka)" ;;
  esac
}

case "${1:-}" in
  up)
    [[ -n "${DATABASE_URL:-}" ]] || postgres_start
    [[ -n "${REDIS_URL:-}" ]] || redis_start
    [[ -n "${KAFKA_BROKERS:-}" ]] || kafka_start
    write_env
    ;;
  down)
    kafka_stop
    redis_stop
    postgres_stop
    ;;
  status)
    state postgres DATABASE_URL postgres_running
    state redis REDIS_URL redis_running
    state kafka KAFKA_BROKERS kafka_running
    ;;
  env) cat "$DATA/infra.env" ;;
  start | stop) one "$1" "${2:-}" ;;
  kill)
    [[ "${2:-}" == redis ]] || die "only 'kill redis' is supported"
    redis_kill
    ;;
  *)
    say "usage: $0 up|down|status|env | start|stop postgres|redis|kafka | kill redis"
    exit 2
    ;;
esac
