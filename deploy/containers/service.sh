#!/usr/bin/env bash
# podman's Docker-compatible API socket for testcontainers (podman system
# service), one per checkout, with the project's containers.conf.
#   service.sh start   start it unless it answers already, remove containers an
#                      interrupted run left; prints DOCKER_HOST=..., STARTED=1 when
#                      this call started it, and LABEL=... for the containers
#   service.sh stop    stop it (only the process recorded in our pidfile)
#   service.sh status
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../local/lib.sh
. "$ROOT/deploy/local/lib.sh"

CHECKOUT=$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)
# A unix socket path must fit in 108 bytes: a short folder named after the checkout.
SOCKET_DIR="${TMPDIR:-/tmp}/partner-api-podman-$CHECKOUT"
# The test setup labels its containers with this; a run that was interrupted
# before its teardown leaves them behind, and the next start removes them.
LABEL="partner-api.test-checkout=$CHECKOUT"
SOCKET="$SOCKET_DIR/podman.sock"
PIDFILE="$DATA/containers/podman-service.pid"
LOG="$LOGS/podman-service.log"

answering() { curl -sf --max-time 2 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }
running() { pid_is "$(pid_from "$PIDFILE")" "system service"; }

case "${1:-}" in
  start)
    started=0
    if ! answering; then
      running && stop_pid "podman system service" "$(pid_from "$PIDFILE")" 10
      mkdir -p "$SOCKET_DIR" "$DATA/containers"
      chmod 700 "$SOCKET_DIR"
      rm -f "$SOCKET"
      # --time=0: no idle exit; `stop` ends it. setsid/nohup: it outlives this shell.
      setsid nohup "$ROOT/deploy/docker/podman.sh" system service --time=0 "unix://$SOCKET" \
        </dev/null >>"$LOG" 2>&1 9>&- &
      echo $! >"$PIDFILE"
      wait_until 30 "$LOG" "podman system service" answering
      started=1
    fi
    "$ROOT/deploy/docker/podman.sh" ps -aq --filter "label=$LABEL" | xargs -r "$ROOT/deploy/docker/podman.sh" rm -f >/dev/null
    echo "DOCKER_HOST=unix://$SOCKET"
    echo "STARTED=$started"
    echo "LABEL=$LABEL"
    ;;
  stop)
    if running; then stop_pid "podman system service" "$(pid_from "$PIDFILE")" 10; fi
    rm -f "$PIDFILE" "$SOCKET"
    ;;
  status)
    if answering; then echo "podman system service: answering on unix://$SOCKET"; else echo "podman system service: stopped"; fi
    ;;
  *) die "usage: $0 start|stop|status" ;;
esac
