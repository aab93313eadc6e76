# Apache Kafka as a 3-node KRaft cluster (each node a combined broker and
# controller), replicated the way production must be: replication factor 3,
# min.insync.replicas 2, no unclean leader election. Started instead of the
# single broker by `KAFKA_CLUSTER=3 make up`, and by `make test-kafka-cluster`.
# Same jars as kafka.sh. Sourced by infra.sh after lib.sh and kafka.sh.
#
# Ports: brokers on KAFKA_CLUSTER_PORT, +1, +2 (default 29092–29094),
# controllers on +3, +4, +5. Below Linux's ephemeral range (32768–60999), so
# no outgoing connection can be holding one when a node restarts.
# shellcheck shell=bash
KAFKA_CLUSTER_NODES=3
KAFKA_CLUSTER_PORT=${KAFKA_CLUSTER_PORT:-29092}
KAFKA_CLUSTER_DIR="$DATA/kafka-cluster"

kc_broker_port() { echo $((KAFKA_CLUSTER_PORT + $1 - 1)); }
kc_controller_port() { echo $((KAFKA_CLUSTER_PORT + KAFKA_CLUSTER_NODES + $1 - 1)); }
kc_dir() { echo "$KAFKA_CLUSTER_DIR/node-$1"; }
kc_pidfile() { echo "$(kc_dir "$1")/kafka.pid"; }
kc_log() { echo "$LOGS/kafka-$1.log"; }
kc_nodes() { seq 1 "$KAFKA_CLUSTER_NODES"; }

# The bootstrap list clients use: every broker, so any one may be down.
kafka_cluster_bootstrap() {
  local node list=()
  for node in $(kc_nodes); do list+=("127.0.0.1:$(kc_broker_port "$node")"); done
  (IFS=,; echo "${list[*]}")
}

# Only the value 3 is supported: RF 3 with min ISR 2 is what the cluster is for.
kafka_cluster_requested() {
  [[ -n "${KAFKA_CLUSTER:-}" ]] || return 1
  [[ "$KAFKA_CLUSTER" == "$KAFKA_CLUSTER_NODES" ]] || die "KAFKA_CLUSTER=$KAFKA_CLUSTER: only 3 is supported (3 brokers, replication factor 3)"
}

kc_running() { pid_is "$(pid_from "$(kc_pidfile "$1")")" "$(kc_dir "$1")/server.properties"; }

kc_write_config() {
  local node=$1 dir voters=() n
  dir=$(kc_dir "$node")
  for n in $(kc_nodes); do voters+=("$n@127.0.0.1:$(kc_controller_port "$n")"); done
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<PROPS
# Written by deploy/local/kafka-cluster.sh on every start; edits are lost.
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$(IFS=,; echo "${voters[*]}")
listeners=PLAINTEXT://127.0.0.1:$(kc_broker_port "$node"),CONTROLLER://127.0.0.1:$(kc_controller_port "$node")
advertised.listeners=PLAINTEXT://127.0.0.1:$(kc_broker_port "$node")
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
# What production needs (docs/deploy.md): every partition on 3 brokers, a
# write acknowledged (acks=all) only once 2 of them have it, and a replica
# that missed writes never elected leader.
default.replication.factor=3
min.insync.replicas=2
unclean.leader.election.enable=false
offsets.topic.replication.factor=3
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
num.partitions=6
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
# A dead broker is fenced, and its partitions get new leaders, after 6 s
# without a heartbeat rather than 9.
broker.session.timeout.ms=6000
broker.heartbeat.interval.ms=1000
PROPS
}

# Every node formatted with the one cluster id, kept beside them.
kc_format() {
  local node=$1 dir cluster_id
  dir=$(kc_dir "$node")
  [[ -f "$dir/data/meta.properties" ]] && return 0
  if [[ ! -s "$KAFKA_CLUSTER_DIR/cluster.id" ]]; then
    kafka_tool kafka.tools.StorageTool random-uuid >"$KAFKA_CLUSTER_DIR/cluster.id" 2>>"$(kc_log "$node")" ||
      die "kafka.tools.StorageTool random-uuid failed (see $(kc_log "$node"))"
  fi
  cluster_id=$(cat "$KAFKA_CLUSTER_DIR/cluster.id")
  say "formatting Kafka node $node (cluster id $cluster_id)"
  kafka_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" >>"$(kc_log "$node")" 2>&1 ||
    { tail -n 20 "$(kc_log "$node")" >&2; die "formatting Kafka node $node failed (see $(kc_log "$node"))"; }
}

# A small heap per node: three JVMs share the machine with everything else.
kc_launch() {
  local node=$1 dir log
  dir=$(kc_dir "$node")
  log=$(kc_log "$node")
  port_free "$(kc_broker_port "$node")" "Kafka node $node"
  port_free "$(kc_controller_port "$node")" "Kafka node $node's controller"
  kc_write_config "$node"
  kc_format "$node"
  stat -c %s "$log" 2>/dev/null >"$dir/log-from" || echo 0 >"$dir/log-from"
  setsid nohup java -Xms128m -Xmx320m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" \
    -cp "$KAFKA_LIB/*" kafka.Kafka "$dir/server.properties" </dev/null >>"$log" 2>&1 9>&- &
  echo $! >"$(kc_pidfile "$node")"
}

kc_ready() {
  local node=$1 log
  log=$(kc_log "$node")
  kc_running "$node" || { tail -n 40 "$log" >&2; die "Kafka node $node exited during start (see $log)"; }
  port_open "$(kc_broker_port "$node")" &&
    grep -q 'Kafka Server started' <(tail -c "+$(($(cat "$(kc_dir "$node")/log-from") + 1))" "$log")
}

# The events topic, replicated on all three with min ISR 2 (explicit, not
# only the broker defaults). Its folder on node 1 says it exists already.
kc_topic() {
  [[ -d "$(kc_dir 1)/data/$KAFKA_TOPIC-0" ]] && return 0
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(kafka_cluster_bootstrap)" \
    --create --if-not-exists --topic "$KAFKA_TOPIC" --partitions 6 --replication-factor 3 \
    --config min.insync.replicas=2 --config unclean.leader.election.enable=false \
    >>"$(kc_log 1)" 2>&1 || { tail -n 20 "$(kc_log 1)" >&2; die "creating topic $KAFKA_TOPIC failed (see $(kc_log 1))"; }
}

# Starts every node that is not running (all at once: a node finishes
# starting only when a quorum of controllers is up), then waits for them.
kafka_cluster_start() {
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  kafka_fetch_jars
  kafka_write_log4j
  mkdir -p "$KAFKA_CLUSTER_DIR"
  local node started=()
  for node in $(kc_nodes); do
    if ! kc_running "$node"; then
      kc_launch "$node"
      started+=("$node")
    fi
  done
  for node in $(kc_nodes); do
    if [[ " ${started[*]} " == *" $node "* ]]; then
      wait_until 120 "$(kc_log "$node")" "Kafka node $node" kc_ready "$node"
    else
      wait_for_port "$(kc_broker_port "$node")" 90 "$(kc_log "$node")" "Kafka node $node"
    fi
  done
  kc_topic
  say "Kafka cluster ${started[*]:+started (nodes ${started[*]}) }running on $(kafka_cluster_bootstrap) (topic $KAFKA_TOPIC, replication 3, min ISR 2)"
}

kafka_cluster_stop() {
  local node
  for node in $(kc_nodes); do
    if kc_running "$node"; then stop_pid "Kafka node $node" "$(pid_from "$(kc_pidfile "$node")")" 20; fi
    rm -f "$(kc_pidfile "$node")"
  done
}

# SIGKILL one node (crash tests); `start kafka-cluster` brings it back.
kafka_cluster_kill() {
  local node=$1
  [[ "$node" =~ ^[1-3]$ ]] || die "kill kafka: name a node, 1 to 3"
  kill_pid "Kafka node $node" "$(pid_from "$(kc_pidfile "$node")")"
  rm -f "$(kc_pidfile "$node")"
}

# Exit 0 when every node runs.
kafka_cluster_running() {
  local node
  for node in $(kc_nodes); do kc_running "$node" || return 1; done
}

kafka_cluster_status() {
  local node
  for node in $(kc_nodes); do
    if kc_running "$node"; then
      echo "kafka node $node: running (127.0.0.1:$(kc_broker_port "$node"), pid $(pid_from "$(kc_pidfile "$node")"))"
    else
      echo "kafka node $node: stopped"
    fi
  done
}
