#!/usr/bin/env bash
# Runs a command against a stack of its own on the local 3-master Redis
# Cluster (REDIS_CLUSTER=3, see redis.sh). The stack gets a database and a
# Kafka topic of its own, made fresh each run, so nothing an earlier run left
# behind (live holds, endpoints, events) shapes what this one sees. The topic
# has a new name each run and is deleted afterwards: the fresh database
# numbers organisations and tickets from 1 again, and the e2e suites read the
# topic from its beginning, so a reused topic would hand them an earlier
# run's events under the same ids. It is
# migrated and seeded, the five services are started on it, and the command
# runs with its environment: REDIS_URL (the cluster), DATABASE_URL,
# KAFKA_TOPIC, the demo keys, and REDIS_CLUSTER_INFRA (infra.sh, for
# `kill redis PORT` and `start redis` with REDIS_CLUSTER=3). Afterwards the
# services are started again on the usual servers, the database is dropped
# and the cluster stopped, whatever the command said.
#   with-redis-cluster-stack.sh COMMAND [ARG...]
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=deploy/local/lib.sh
. "$HERE/lib.sh"
REDIS_CLUSTER=3
# shellcheck source=deploy/local/redis.sh
. "$HERE/redis.sh"

[[ $# -gt 0 ]] || { say "usage: $0 COMMAND [ARG...]"; exit 2; }
[[ -f "$DATA/infra.env" ]] || die "no $DATA/infra.env: run \`make up\` first"

usual_database=$(sed -n 's/^DATABASE_URL=//p' "$DATA/infra.env")
database=partner_api_redis_cluster
cli() { node "$ROOT/services/cli/dist/main.js" "$@"; }
admin() { psql -q -v ON_ERROR_STOP=1 "$usual_database" -c "$1" >/dev/null; }

kafka_brokers=$(sed -n 's/^KAFKA_BROKERS=//p' "$DATA/infra.env")
topic_prefix=partner.events.redis-cluster
drop_topics() { KAFKA_BROKERS=$kafka_brokers node "$HERE/drop-topics.mjs" "$topic_prefix" || true; }

restore() {
  "$HERE/services.sh" start >/dev/null || true
  drop_topics
  admin "DROP DATABASE IF EXISTS $database WITH (FORCE)" || true
  REDIS_CLUSTER=3 "$HERE/infra.sh" stop redis >/dev/null || true
}
trap restore EXIT

REDIS_CLUSTER=3 "$HERE/infra.sh" start redis
drop_topics
admin "DROP DATABASE IF EXISTS $database WITH (FORCE)"
admin "CREATE DATABASE $database"
status=0
(
  export DATABASE_URL="${usual_database%/*}/$database"
  export REDIS_URL=$REDIS_URL_LOCAL
  export KAFKA_TOPIC="$topic_prefix.$(date +%s)"
  export REDIS_CLUSTER_INFRA="$HERE/infra.sh"
  # The usual broker, from infra.env (services.sh and the tests read the rest of it too).
  export "$(grep '^KAFKA_BROKERS=' "$DATA/infra.env")"
  cli migrate >/dev/null
  cli demo seed --out "$DATA/demo-redis-cluster.env" --base-url http://127.0.0.1:4000 >/dev/null
  set -a
  # shellcheck disable=SC1091
  . "$DATA/demo-redis-cluster.env"
  set +a
  "$HERE/services.sh" start
  "$@"
) || status=$?
exit "$status"
