# Shared helpers for the local infrastructure scripts (sourced, not run).
# shellcheck shell=bash
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA="$ROOT/.data"
LOGS="$DATA/logs"
mkdir -p "$LOGS"

say() { printf '%s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# --- processes -------------------------------------------------------------

pid_from() { if [[ -f "$1" ]]; then head -n1 "$1"; fi; }
# A zombie (exited, not yet reaped by init) counts as gone.
pid_alive() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && kill -0 "$1" 2>/dev/null || return 1
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ "${stat:0:1}" != Z ]]
}

# pid_is PID PATTERN: PID is alive and its command line contains PATTERN.
# A pidfile that outlived a reboot or a crash may name somebody else's
# process; this keeps us from reporting, or signalling, a stranger.
pid_is() {
  pid_alive "${1:-}" || return 1
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *"$2"* ]]
}

# stop_pid NAME PID SECONDS: TERM, wait, then KILL. Only the pid we recorded.
stop_pid() {
  local name=$1 pid=$2 seconds=$3
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + seconds))
  while pid_alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
  if pid_alive "$pid"; then
    say "$name did not stop within ${seconds}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while pid_alive "$pid"; do sleep 0.1; done
  fi
  say "$name stopped"
}

# kill_pid NAME PID: SIGKILL and wait until it is gone (crash tests).
kill_pid() {
  local name=$1 pid=$2
  pid_alive "$pid" || { say "$name is not running"; return 0; }
  kill -KILL "$pid" 2>/dev/null || true
  while pid_alive "$pid"; do sleep 0.05; done
  say "$name killed (SIGKILL, pid $pid)"
}

# --- readiness -------------------------------------------------------------

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# port_free PORT WHAT: fail at once, and say why, when a stranger holds our port.
port_free() { ! port_open "$1" || die "127.0.0.1:$1 is in use by another process; $2 cannot start (see: ss -ltnp 'sport = :$1')"; }

# wait_until SECONDS LOGFILE WHAT COMMAND...: retry COMMAND until it
# succeeds; on timeout show the end of LOGFILE so the cause is on screen.
wait_until() {
  local seconds=$1 log=$2 what=$3
  shift 3
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    if ((SECONDS >= deadline)); then
      say "$what did not become ready within ${seconds}s; last lines of $log:"
      tail -n 40 "$log" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
}

# wait_for_port PORT SECONDS LOGFILE WHAT
wait_for_port() { wait_until "$2" "$3" "$4" port_open "$1"; }

# --- installing ------------------------------------------------------------

# apt_install PACKAGE...: install Debian packages; refresh the package lists
# only when the first try fails (a fresh machine has none, or stale ones).
apt_install() {
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: $*"
    sudo=(sudo)
  fi
  say "installing $* (Debian packages; output in $LOGS/apt.log)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >>"$LOGS/apt.log" 2>&1 ||
    { "${sudo[@]}" apt-get update -q >>"$LOGS/apt.log" 2>&1 &&
      "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >>"$LOGS/apt.log" 2>&1; } ||
    { tail -n 20 "$LOGS/apt.log" >&2; die "apt-get install $* failed (see $LOGS/apt.log)"; }
}

# --- endpoints -------------------------------------------------------------

# external VAR LOCAL: VAR names a server that is not ours. A value equal to
# our own endpoint (e.g. after `. .data/infra.env`) still counts as ours.
external() { [[ -n "${!1:-}" && "${!1}" != "$2" ]]; }

# --- Go-built tools ----------------------------------------------------------

# go_tool NAME PACKAGE@VERSION [go install flags...]: the binary NAME built
# from PACKAGE at VERSION with `go install` (no prebuilt download) into Go's
# default bin folder, which every clone on the machine shares. Built only
# when the binary there is not of that module version (the first run can
# take minutes; later ones are instant). Prints its path.
go_tool() {
  local name=$1 package=$2 bin
  shift 2
  command -v go >/dev/null || die "Go is needed to build $name"
  bin=$(go env GOBIN)
  [[ -n "$bin" ]] || bin="$(go env GOPATH)/bin"
  if [[ -x "$bin/$name" ]] && grep -qxF "${package##*@}" <<<"$(go version -m "$bin/$name" 2>/dev/null | awk '$1 == "mod" { print $3 }')"; then
    echo "$bin/$name"
    return
  fi
  mkdir -p "$bin"
  say "building $name ${package##*@} with go install (first run only)"
  GOBIN="$bin" go install "$@" "$package" >&2
  echo "$bin/$name"
}
