# Shared helpers for the local infrastructure scripts (sourced, not run).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA="$ROOT/.data"
LOGS="$DATA/logs"
mkdir -p "$LOGS"

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }
pid_from() { [[ -f "$1" ]] && head -n1 "$1" || true; }

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_until SECONDS LOGFILE WHAT COMMAND...: retry COMMAND until it succeeds.
wait_until() {
  local seconds=$1 log=$2 what=$3
  shift 3
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    if ((SECONDS >= deadline)); then
      say "$what did not become ready within ${seconds}s; last lines of $log:"
      tail -n 40 "$log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

# apt_install PACKAGE...: install Debian packages, refreshing the lists once if needed.
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "$@" >>"$LOGS/apt.log" 2>&1 ||
    { apt-get update -q >>"$LOGS/apt.log" 2>&1 && apt-get install -y -q "$@" >>"$LOGS/apt.log" 2>&1; } ||
    die "apt-get install $* failed (see $LOGS/apt.log)"
}

# stop_pid NAME PIDFILE SECONDS: TERM, wait, then KILL; only the pid we recorded.
stop_pid() {
  local name=$1 pidfile=$2 seconds=$3 pid
  pid=$(pid_from "$pidfile")
  if pid_alive "$pid"; then
    kill -TERM "$pid"
    local deadline=$((SECONDS + seconds))
    while pid_alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
    pid_alive "$pid" && kill -KILL "$pid"
    say "$name stopped"
  fi
  rm -f "$pidfile"
}
