# Apache Kafka 3.9 in KRaft mode (one combined broker + controller) on
# 127.0.0.1:59092, from the Maven Central jars listed in kafka/pom.xml.
# Sourced by infra.sh after lib.sh.
# shellcheck shell=bash
KAFKA_PORT=59092
KAFKA_CONTROLLER_PORT=59093
KAFKA_BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
KAFKA_TOPIC=partner.events.v1
KAFKA_DIR="$DATA/kafka"
KAFKA_LIB="$KAFKA_DIR/lib"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$LOGS/kafka.log"
KAFKA_POM="$ROOT/deploy/local/kafka/pom.xml"
KAFKA_SINGLE_NODE_PROPERTIES="$ROOT/deploy/local/kafka/single-node.properties"
KAFKA_SERVER_LOG4J="$ROOT/deploy/local/kafka/server-log4j.properties"

kafka_running() { pid_is "$(pid_from "$KAFKA_PID")" kafka.Kafka; }

# The jars, once: a completed fetch leaves a stamp named after the pom's
# content, so editing the pom (e.g. the version) fetches again.
kafka_fetch_jars() {
  local stamp
  stamp="$KAFKA_LIB/.pom-$(sha256sum "$KAFKA_POM" | cut -c1-16)"
  [[ -f "$stamp" ]] && return 0
  command -v mvn >/dev/null || apt_install maven
  say "fetching the Kafka jars with Maven (first run only; output in $LOGS/maven.log)"
  # Into a fresh folder, swapped in only when complete: no half-filled lib.
  rm -rf "$KAFKA_LIB.new"
  mvn -q -B -f "$KAFKA_POM" dependency:copy-dependencies -DoutputDirectory="$KAFKA_LIB.new" \
    >>"$LOGS/maven.log" 2>&1 || { tail -n 20 "$LOGS/maven.log" >&2; die "fetching the Kafka jars failed (see $LOGS/maven.log)"; }
  touch "$KAFKA_LIB.new/${stamp##*/}"
  rm -rf "$KAFKA_LIB"
  mv "$KAFKA_LIB.new" "$KAFKA_LIB"
}

kafka_write_config() {
  # log.dirs is absolute, so it is computed here rather than checked in.
  {
    echo "# Written by deploy/local/kafka.sh on every start; edits are lost."
    cat "$KAFKA_SINGLE_NODE_PROPERTIES"
    cat <<PROPS
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DIR/data
PROPS
  } >"$KAFKA_DIR/server.properties"
  kafka_write_log4j
}

# Log settings for servers and tools, shared by the single broker and the cluster.
kafka_write_log4j() {
  mkdir -p "$KAFKA_DIR"
  # The server: INFO to stdout, which nohup sends to .data/logs/kafka.log
  # (with anything the JVM itself prints). Per-request logs only on warnings.
  cp "$KAFKA_SERVER_LOG4J" "$KAFKA_DIR/log4j.properties"
  # The command-line tools: warnings only, on stderr.
  cat >"$KAFKA_DIR/tools-log4j.properties" <<'PROPS'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
}

# A short-lived tool JVM: the client compiler and serial GC start faster.
kafka_tool() {
  java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Dlog4j.configuration="file:$KAFKA_DIR/tools-log4j.properties" -cp "$KAFKA_LIB/*" "$@"
}

kafka_format() {
  [[ -f "$KAFKA_DIR/data/meta.properties" ]] && return 0
  local cluster_id
  cluster_id=$(kafka_tool kafka.tools.StorageTool random-uuid 2>>"$KAFKA_LOG") ||
    die "kafka.tools.StorageTool random-uuid failed (see $KAFKA_LOG)"
  say "formatting Kafka storage (cluster id $cluster_id)"
  kafka_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$KAFKA_DIR/server.properties" \
    >>"$KAFKA_LOG" 2>&1 || { tail -n 20 "$KAFKA_LOG" >&2; die "formatting Kafka storage failed (see $KAFKA_LOG)"; }
}

# Where this start's output begins in the (appended) log, so an earlier
# run's "Kafka Server started" cannot pass for this one.
KAFKA_LOG_FROM=0

kafka_ready() {
  kafka_running || { tail -n 40 "$KAFKA_LOG" >&2; die "Kafka exited during start (see $KAFKA_LOG)"; }
  port_open "$KAFKA_PORT" &&
    grep -q 'Kafka Server started' <(tail -c "+$((KAFKA_LOG_FROM + 1))" "$KAFKA_LOG")
}

# auto.create.topics.enable is off, so the events topic is made here. Its
# first partition's folder is the cheap sign that it exists already.
kafka_topic() {
  [[ -d "$KAFKA_DIR/data/$KAFKA_TOPIC-0" ]] && return 0
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BOOTSTRAP" \
    --create --if-not-exists --topic "$KAFKA_TOPIC" --partitions 6 --replication-factor 1 \
    >>"$KAFKA_LOG" 2>&1 || { tail -n 20 "$KAFKA_LOG" >&2; die "creating topic $KAFKA_TOPIC failed (see $KAFKA_LOG)"; }
}

kafka_start() {
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  local state=running
  if kafka_running; then
    wait_for_port "$KAFKA_PORT" 90 "$KAFKA_LOG" Kafka
  else
    state=ready
    port_free "$KAFKA_PORT" Kafka
    port_free "$KAFKA_CONTROLLER_PORT" "Kafka's controller"
    kafka_fetch_jars
    mkdir -p "$KAFKA_DIR/data"
    kafka_write_config
    kafka_format
    KAFKA_LOG_FROM=$(stat -c %s "$KAFKA_LOG" 2>/dev/null || echo 0)
    # setsid: its own session, so a Ctrl-C in the terminal that ran `up`
    # does not reach it; nohup and </dev/null: nothing ties it to us.
    setsid nohup java -Xms256m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" \
      -cp "$KAFKA_LIB/*" kafka.Kafka "$KAFKA_DIR/server.properties" </dev/null >>"$KAFKA_LOG" 2>&1 9>&- &
    echo $! >"$KAFKA_PID"
    wait_until 90 "$KAFKA_LOG" Kafka kafka_ready
  fi
  kafka_topic
  say "Kafka $state on $KAFKA_BOOTSTRAP (topic $KAFKA_TOPIC)"
}

# A controlled shutdown takes a few seconds; SIGKILL only after 20.
kafka_stop() {
  if kafka_running; then stop_pid Kafka "$(pid_from "$KAFKA_PID")" 20; fi
  rm -f "$KAFKA_PID"
}

kafka_status() {
  if kafka_running; then echo "kafka: running ($KAFKA_BOOTSTRAP, pid $(pid_from "$KAFKA_PID"))"; else echo "kafka: stopped"; fi
}
