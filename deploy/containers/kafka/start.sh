#!/bin/sh
# Starts the broker. Clients reach it through a port the container runtime
# maps on the host, so the PLAINTEXT listener advertises KAFKA_ADVERTISED
# (host:port as seen from the host); the broker talks to itself on INTERNAL.
set -eu
# No globbing: the class path "libs/*" is for java to expand, not the shell.
set -f
: "${KAFKA_ADVERTISED:?set KAFKA_ADVERTISED to the host:port clients connect to}"
CONF=/var/lib/kafka/server.properties
{
  cat /opt/kafka/single-node.properties
  cat <<PROPS
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://0.0.0.0:9092,INTERNAL://127.0.0.1:9094,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$KAFKA_ADVERTISED,INTERNAL://127.0.0.1:9094
inter.broker.listener.name=INTERNAL
log.dirs=/var/lib/kafka/data
PROPS
} >"$CONF"
cp /opt/kafka/server-log4j.properties /var/lib/kafka/log4j.properties
# The client compiler and serial GC: a test broker starts sooner that way.
JAVA="java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true -Dlog4j.configuration=file:/var/lib/kafka/log4j.properties -cp /opt/kafka/libs/*"
if [ -n "${KAFKA_FORMAT_ONLY:-}" ]; then
  # A fixed cluster id (base64 of "partner-api-test"): every container of this image is a fresh one-node cluster.
  exec $JAVA -Xmx256m kafka.tools.StorageTool format -t cGFydG5lci1hcGktdGVzdA -c "$CONF"
fi
exec $JAVA -Xms256m -Xmx512m -XX:+ExitOnOutOfMemoryError kafka.Kafka "$CONF"
