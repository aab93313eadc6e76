#!/usr/bin/env bash
# Runs a command against the local 3-node Kafka cluster (kafka-cluster.sh):
# starts the nodes that are not running, exports KAFKA_BROKERS (all three)
# and KAFKA_CLUSTER_INFRA (this folder's infra.sh, for `kill kafka NODE` and
# `start kafka-cluster`), runs the command, and stops the cluster again if it
# was not running before. The single broker and the other servers are left
# as they are.
#   with-kafka-cluster.sh COMMAND [ARG...]
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=deploy/local/lib.sh
. "$HERE/lib.sh"
# shellcheck source=deploy/local/kafka.sh
. "$HERE/kafka.sh"
# shellcheck source=deploy/local/kafka-cluster.sh
. "$HERE/kafka-cluster.sh"

[[ $# -gt 0 ]] || { say "usage: $0 COMMAND [ARG...]"; exit 2; }

was_running=false
if kafka_cluster_running; then was_running=true; fi
"$HERE/infra.sh" start kafka-cluster

status=0
KAFKA_BROKERS=$(kafka_cluster_bootstrap) KAFKA_CLUSTER_INFRA="$HERE/infra.sh" "$@" || status=$?

if ! $was_running; then "$HERE/infra.sh" stop kafka-cluster; fi
exit "$status"
