# Apache Kafka 3.9 in KRaft mode (one combined broker + controller) on
# 127.0.0.1:59092, from the Maven Central jars listed in kafka/pom.xml.
KAFKA_PORT=59092
KAFKA_CONTROLLER_PORT=59093
KAFKA_DIR="$DATA/kafka"
KAFKA_LIB="$KAFKA_DIR/lib"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$LOGS/kafka.log"

kafka_running() { pid_alive "$(pid_from "$KAFKA_PID")"; }

kafka_fetch_jars() {
  # A completed fetch leaves a stamp named after the pom's content.
  local stamp
  stamp="$KAFKA_LIB/.pom-$(sha256sum "$ROOT/deploy/local/kafka/pom.xml" | cut -c1-16)"
  [[ -f "$stamp" ]] && return 0
  command -v mvn >/dev/null || apt_install maven
  rm -rf "$KAFKA_LIB"
  say "fetching the Kafka broker jars (first run only)"
  mvn -q -f "$ROOT/deploy/local/kafka/pom.xml" dependency:copy-dependencies -DoutputDirectory="$KAFKA_LIB" \
    >>"$LOGS/maven.log" 2>&1 || die "fetching Kafka jars failed (see $LOGS/maven.log)"
  touch "$stamp"
}

kafka_write_config() {
  cat >"$KAFKA_DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.partitions=6
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
PROPS
  cat >"$KAFKA_DIR/log4j.properties" <<'PROPS'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka=WARN
log4j.logger.kafka.server.KafkaRaftServer=INFO
PROPS
}

kafka_java() { java -Xms128m -Xmx512m -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" -cp "$KAFKA_LIB/*" "$@"; }

kafka_start() {
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  if kafka_running; then return 0; fi
  kafka_fetch_jars
  mkdir -p "$KAFKA_DIR/data"
  kafka_write_config
  if [[ ! -f "$KAFKA_DIR/data/meta.properties" ]]; then
    local cluster_id
    cluster_id=$(kafka_java kafka.tools.StorageTool random-uuid 2>>"$KAFKA_LOG")
    kafka_java kafka.tools.StorageTool format -t "$cluster_id" -c "$KAFKA_DIR/server.properties" \
      >>"$KAFKA_LOG" 2>&1 || die "formatting Kafka storage failed (see $KAFKA_LOG)"
  fi
  : >"$KAFKA_LOG.start"
  nohup java -Xms256m -Xmx768m -XX:+UseG1GC -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" \
    -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_DIR/server.properties" >>"$KAFKA_LOG" 2>&1 &
  echo $! >"$KAFKA_PID"
  wait_until 90 "$KAFKA_LOG" Kafka kafka_ready
  say "Kafka ready on 127.0.0.1:$KAFKA_PORT"
}

kafka_ready() {
  kafka_running || { tail -n 40 "$KAFKA_LOG" >&2; die "Kafka exited during start"; }
  port_open "$KAFKA_PORT" && grep -q 'Kafka Server started' <(tail -n 200 "$KAFKA_LOG")
}

kafka_stop() { stop_pid Kafka "$KAFKA_PID" 30; }
