# Redis from Debian on 127.0.0.1:56379, without persistence: no append-only
# file, no RDB snapshots. Everything the services keep in Redis can be
# rebuilt from PostgreSQL or may be forgotten (stock counters, holds, key
# versions, rate-limit windows, idempotency records), and a Redis that came
# back with an old copy of its data would be worse than an empty one: stale
# stock counters oversell (docs/decisions.md, D47). A restart therefore
# starts empty. Sourced by infra.sh after lib.sh.
# shellcheck shell=bash
REDIS_PORT=56379
# shellcheck disable=SC2034 # used by infra.sh
REDIS_URL_LOCAL="redis://127.0.0.1:$REDIS_PORT"
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
  if redis_running; then stop_pid Redis "$(pid_from "$REDIS_PID")" 20; fi
  rm -f "$REDIS_PID"
}

# For crash tests: no chance to flush anything, and nothing survives.
redis_kill() {
  if redis_running; then kill_pid Redis "$(pid_from "$REDIS_PID")"; else say "Redis is not running"; fi
  rm -f "$REDIS_PID"
}

redis_status() {
  if redis_running; then echo "redis: running (127.0.0.1:$REDIS_PORT, pid $(pid_from "$REDIS_PID"))"; else echo "redis: stopped"; fi
}
