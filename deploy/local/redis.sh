# Redis from Debian on 127.0.0.1:56379, without persistence: no append-only
# file, no RDB snapshots. Everything the services keep in Redis can be
# rebuilt from PostgreSQL or may be forgotten (stock counters, holds, key
# versions, rate-limit windows, idempotency records), and a Redis that came
# back with an old copy of its data would be worse than an empty one: stale
# stock counters oversell (docs/decisions.md, D47). A restart therefore
# starts empty. Sourced by infra.sh after lib.sh.
#
# REDIS_CLUSTER=N (N >= 3) starts a Redis Cluster of N masters instead, on
# REDIS_CLUSTER_PORT, +1, ... (default 17001; each node's cluster bus is on
# its port + 10000), under .data/redis-cluster/<port>/, no replicas, and
# `cluster-require-full-coverage no`: a lost shard stops only its own slots.
# Each node keeps its nodes.conf, so a killed node started again rejoins
# with the same slots, empty.
# shellcheck shell=bash
REDIS_PORT=56379
REDIS_CLUSTER=${REDIS_CLUSTER:-}
REDIS_CLUSTER_PORT=${REDIS_CLUSTER_PORT:-17001}
[[ -z "$REDIS_CLUSTER" || "$REDIS_CLUSTER" =~ ^[0-9]+$ && "$REDIS_CLUSTER" -ge 3 ]] || die "REDIS_CLUSTER must be a number of masters, at least 3"
redis_cluster_ports() { seq "$REDIS_CLUSTER_PORT" $((REDIS_CLUSTER_PORT + REDIS_CLUSTER - 1)); }
if [[ -n "$REDIS_CLUSTER" ]]; then
  # shellcheck disable=SC2034 # used by infra.sh
  REDIS_URL_LOCAL="redis+cluster://$(redis_cluster_ports | sed 's/^/127.0.0.1:/' | paste -sd,)"
else
  # shellcheck disable=SC2034 # used by infra.sh
  REDIS_URL_LOCAL="redis://127.0.0.1:$REDIS_PORT"
fi
REDIS_DIR="$DATA/redis"
REDIS_PID="$REDIS_DIR/redis.pid"
REDIS_LOG="$LOGS/redis.log"

# redis-server names itself "redis-server 127.0.0.1:56379" in its command line.
redis_running() { pid_is "$(pid_from "$REDIS_PID")" ":$REDIS_PORT"; }
# PONG once it accepts commands.
redis_ready() {
  redis_running || { tail -n 20 "$REDIS_LOG" >&2; die "redis-server exited during start (see $REDIS_LOG)"; }
  [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]
}

redis_start() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    apt_install redis-server redis-tools
  fi
  if [[ -n "$REDIS_CLUSTER" ]]; then redis_cluster_start; return; fi
  if ! redis_running; then
    port_free "$REDIS_PORT" Redis
    mkdir -p "$REDIS_DIR"
    rm -f "$REDIS_PID" # a stale one (after `kill redis`) would fool the check above
    # Data files of earlier runs (when this Redis kept an append-only file)
    # are never loaded again; remove them so nobody mistakes them for state.
    rm -rf "$REDIS_DIR/appendonlydir" "$REDIS_DIR/appendonly.aof" "$REDIS_DIR/dump.rdb"
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_DIR" \
      --daemonize yes --pidfile "$REDIS_PID" --logfile "$REDIS_LOG" \
      --appendonly no --save "" </dev/null >/dev/null 9>&- ||
      { tail -n 20 "$REDIS_LOG" >&2; die "redis-server did not start (see $REDIS_LOG)"; }
    # The daemon writes its pidfile a moment after the parent returns.
    wait_until 10 "$REDIS_LOG" "Redis (pidfile)" test -s "$REDIS_PID"
    wait_until 30 "$REDIS_LOG" Redis redis_ready
    say "Redis ready on 127.0.0.1:$REDIS_PORT"
  else
    wait_until 30 "$REDIS_LOG" Redis redis_ready
    say "Redis running on 127.0.0.1:$REDIS_PORT"
  fi
}

redis_stop() {
  if [[ -n "$REDIS_CLUSTER" ]]; then redis_cluster_each stop; return; fi
  if redis_running; then stop_pid Redis "$(pid_from "$REDIS_PID")" 20; fi
  rm -f "$REDIS_PID"
}

# For crash tests: no chance to flush anything, and nothing survives. In a
# cluster, one shard: the node on port $1 (default: the first).
redis_kill() {
  if [[ -n "$REDIS_CLUSTER" ]]; then redis_node_kill "${1:-$REDIS_CLUSTER_PORT}"; return; fi
  if redis_running; then kill_pid Redis "$(pid_from "$REDIS_PID")"; else say "Redis is not running"; fi
  rm -f "$REDIS_PID"
}

redis_status() {
  if [[ -n "$REDIS_CLUSTER" ]]; then redis_cluster_each status; return; fi
  if redis_running; then echo "redis: running (127.0.0.1:$REDIS_PORT, pid $(pid_from "$REDIS_PID"))"; else echo "redis: stopped"; fi
}

# --- cluster mode (REDIS_CLUSTER=N) -----------------------------------------

redis_node_dir() { echo "$DATA/redis-cluster/$1"; }
redis_node_pid() { pid_from "$(redis_node_dir "$1")/redis.pid"; }
redis_node_running() { pid_is "$(redis_node_pid "$1")" ":$1"; }
redis_node_log() { echo "$LOGS/redis-$1.log"; }
redis_node_ready() {
  redis_node_running "$1" || { tail -n 20 "$(redis_node_log "$1")" >&2; die "redis-server on $1 exited during start"; }
  [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]
}
# Every node sees the whole cluster: all slots assigned and state ok.
redis_cluster_ok() {
  local port
  for port in $(redis_cluster_ports); do
    grep -q '^cluster_state:ok' <<<"$(redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null)" || return 1
  done
}

redis_node_start() {
  local port=$1 dir
  dir=$(redis_node_dir "$port")
  if redis_node_running "$port"; then return; fi
  port_free "$port" "Redis node"
  port_free $((port + 10000)) "Redis node (cluster bus)"
  mkdir -p "$dir"
  rm -f "$dir/redis.pid"
  rm -rf "$dir/appendonlydir" "$dir/dump.rdb"
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --cluster-require-full-coverage no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$(redis_node_log "$port")" \
    --appendonly no --save "" </dev/null >/dev/null 9>&- ||
    { tail -n 20 "$(redis_node_log "$port")" >&2; die "redis-server on $port did not start"; }
  wait_until 10 "$(redis_node_log "$port")" "Redis $port (pidfile)" test -s "$dir/redis.pid"
  wait_until 30 "$(redis_node_log "$port")" "Redis $port" redis_node_ready "$port"
}

redis_cluster_start() {
  local port nodes=()
  for port in $(redis_cluster_ports); do
    redis_node_start "$port"
    nodes+=("127.0.0.1:$port")
  done
  # A node that has never been part of a cluster knows only itself: form it once.
  if [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_CLUSTER_PORT" cluster info | grep -c '^cluster_slots_assigned:16384')" == 0 ]]; then
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$LOGS/redis-cluster-create.log" 2>&1 ||
      { tail -n 20 "$LOGS/redis-cluster-create.log" >&2; die "redis-cli --cluster create failed"; }
  fi
  wait_until 30 "$LOGS/redis-cluster-create.log" "Redis Cluster" redis_cluster_ok
  say "Redis Cluster of $REDIS_CLUSTER masters ready on 127.0.0.1:${REDIS_CLUSTER_PORT}+"
}

redis_node_kill() {
  if redis_node_running "$1"; then kill_pid "Redis node $1" "$(redis_node_pid "$1")"; else say "Redis node $1 is not running"; fi
  rm -f "$(redis_node_dir "$1")/redis.pid"
}

redis_cluster_each() {
  local port
  for port in $(redis_cluster_ports); do
    case "$1" in
      stop) if redis_node_running "$port"; then stop_pid "Redis node $port" "$(redis_node_pid "$port")" 20; fi ;;
      status) if redis_node_running "$port"; then echo "redis: node 127.0.0.1:$port running (pid $(redis_node_pid "$port"))"; else echo "redis: node 127.0.0.1:$port stopped"; fi ;;
    esac
  done
}
