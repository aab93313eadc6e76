# Redis from Debian on 127.0.0.1:56379, data and AOF under .data/redis.
REDIS_PORT=56379
REDIS_URL_LOCAL="redis://127.0.0.1:$REDIS_PORT"
REDIS_DIR="$DATA/redis"
REDIS_PID="$REDIS_DIR/redis.pid"

redis_running() { pid_alive "$(pid_from "$REDIS_PID")"; }

redis_start() {
  command -v redis-server >/dev/null || apt_install redis-server
  if redis_running; then return 0; fi
  mkdir -p "$REDIS_DIR"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$REDIS_DIR" --daemonize yes \
    --pidfile "$REDIS_PID" --logfile "$LOGS/redis.log" --appendonly yes --save "" >/dev/null ||
    die "redis-server did not start (see $LOGS/redis.log)"
  wait_until 20 "$LOGS/redis.log" Redis redis_ping
  say "Redis ready on 127.0.0.1:$REDIS_PORT"
}

redis_ping() { [[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]; }

redis_stop() { stop_pid Redis "$REDIS_PID" 10; }

# For crash tests: the hard way, no chance to write anything.
redis_kill() {
  local pid
  pid=$(pid_from "$REDIS_PID")
  pid_alive "$pid" && kill -KILL "$pid"
  rm -f "$REDIS_PID"
}
