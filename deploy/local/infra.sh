#!/usr/bin/env bash
# Local PostgreSQL, Redis, Kafka and MailDev for development and tests, without Docker.
# Installs what is missing, runs each under .data/ on loopback, waits until
# ready, and records the URLs in .data/infra.env. A server named by
# DATABASE_URL, REDIS_URL, KAFKA_BROKERS or SMTP_URL in the environment is
# used as it is. Idempotent: `up` when everything runs returns in well under a second.
#
#   infra.sh up | down | status | env
#   infra.sh start|stop postgres|redis|kafka|maildev  one server (crash tests)
#   infra.sh start|stop kafka-cluster             the 3-node Kafka cluster (every node not running)
#   infra.sh kill redis [PORT] | kill kafka NODE  SIGKILL, for crash tests (Redis Cluster: one shard; NODE: 1-3 of the Kafka cluster)
#
# REDIS_CLUSTER=3 makes Redis a 3-master Redis Cluster (see redis.sh).
# KAFKA_CLUSTER=3 makes `up` start the 3-node Kafka cluster (replication 3,
# min ISR 2) instead of the single broker; see kafka-cluster.sh.
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
# shellcheck source=deploy/local/kafka-cluster.sh
. "$HERE/kafka-cluster.sh"
# shellcheck source=deploy/local/maildev.sh
. "$HERE/maildev.sh"

ENV_FILE="$DATA/infra.env"

usage() {
  say "usage: $0 up|down|status|env | start|stop postgres|redis|kafka|kafka-cluster|maildev | kill redis [PORT] | kill kafka NODE"
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
    echo "KAFKA_BROKERS=${KAFKA_BROKERS:-$(kafka_endpoint)}"
    echo "SMTP_URL=${SMTP_URL:-$MAILDEV_SMTP_URL}"
    # Where the mail sent locally is read (MailDev's web UI and REST API).
    if ! external SMTP_URL "$MAILDEV_SMTP_URL"; then echo "MAIL_URL=$MAILDEV_URL"; fi
  } >"$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

# The single broker, or the cluster's brokers with KAFKA_CLUSTER=3.
kafka_endpoint() { if kafka_cluster_requested; then kafka_cluster_bootstrap; else echo "$KAFKA_BOOTSTRAP"; fi; }

server() { # postgres|redis|kafka -> the env var that points elsewhere, our endpoint
  case "$1" in
    postgres) echo "DATABASE_URL $PG_URL" ;;
    redis) echo "REDIS_URL $REDIS_URL_LOCAL" ;;
    kafka) echo "KAFKA_BROKERS $(kafka_endpoint)" ;;
    maildev) echo "SMTP_URL $MAILDEV_SMTP_URL" ;;
    *) say "unknown server: $1 (postgres, redis, kafka or maildev)"; usage ;;
  esac
}

up() {
  local name var endpoint
  kafka_cluster_requested || true # fail early on an unsupported KAFKA_CLUSTER
  for name in postgres redis kafka maildev; do
    read -r var endpoint < <(server "$name")
    if external "$var" "$endpoint"; then
      say "$name: using $var from the environment"
    elif [[ $name == kafka ]] && kafka_cluster_requested; then
      kafka_cluster_start
    else
      "${name}_start"
    fi
  done
  write_env
}

status() {
  local name var endpoint
  for name in postgres redis kafka maildev; do
    read -r var endpoint < <(server "$name")
    if external "$var" "$endpoint"; then
      echo "$name: external ($var=${!var})"
    elif [[ $name != kafka ]] || ! kafka_cluster_requested; then
      "${name}_status"
    fi
  done
  if kafka_cluster_requested || [[ -d "$KAFKA_CLUSTER_DIR" ]]; then kafka_cluster_status; fi
}

case "${1:-}" in
  up)
    lock
    up
    say "infrastructure up in ${SECONDS}s; URLs in ${ENV_FILE#"$ROOT"/}"
    ;;
  down)
    lock
    maildev_stop
    kafka_cluster_stop
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
    if [[ $2 == kafka-cluster ]]; then
      lock
      "kafka_cluster_$1"
    else
      server "$2" >/dev/null
      lock
      "${2}_$1"
    fi
    ;;
  kill)
    case "${2:-}" in
      redis) lock; redis_kill "${3:-}" ;;
      kafka) [[ $# -eq 3 ]] || usage; lock; kafka_cluster_kill "$3" ;;
      *) say "only 'kill redis [PORT]' and 'kill kafka NODE' are supported"; usage ;;
    esac
    ;;
  *) usage ;;
esac
