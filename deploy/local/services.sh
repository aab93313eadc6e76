#!/usr/bin/env bash
# Runs the Partner API services and the organiser dashboard as local processes (built code, one
# process each) with pidfiles and logs under .data/. `start` restarts any
# that are running so they always run the current build.
#   services.sh start|stop|status [name...]   (default: all of them)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN="$ROOT/.data/run"
LOGS="$ROOT/.data/logs"
SERVICES=(inventory orders tickets webhooks gateway dashboard)
declare -A OPS_PORT=([gateway]=9400 [inventory]=9401 [orders]=9402 [tickets]=9403 [webhooks]=9404 [dashboard]=9405)

pid_of() { [[ -f "$RUN/$1.pid" ]] && cat "$RUN/$1.pid" || true; }
alive() { local pid; pid=$(pid_of "$1"); [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; }

stop_one() {
  local name=$1 pid
  pid=$(pid_of "$name")
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    # The services drain for up to SHUTDOWN_TIMEOUT_MS; wait a little longer.
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" || true
  fi
  rm -f "$RUN/$name.pid"
}

# The proxies each service believes about a caller's address (D381). The gateway trusts none,
# as in a deployment without one: a local client cannot choose the address its allowlist sees.
# The browser pages (dashboard, hosted pages) stand behind a proxy on this machine in the
# end-to-end tests, which name a client address of their own per run
# (e2e/support/client-address.ts). TRUST_PROXY in the environment overrides both.
trusted_proxies() {
  if [[ -n "${TRUST_PROXY+set}" ]]; then echo "$TRUST_PROXY"; return; fi
  case $1 in
    dashboard | orders) echo "127.0.0.1,::1" ;;
    *) echo "" ;;
  esac
}

start_one() {
  local name=$1
  stop_one "$name"
  (
    cd "$ROOT/services/$name"
    # SERVICE_NODE_FLAGS: extra flags for every service's node, e.g.
    # "--cpu-prof --cpu-prof-dir=/some/dir" (not allowed in NODE_OPTIONS).
    # shellcheck disable=SC2086 # split into flags on purpose
    OTEL_SERVICE_NAME="$name" TRUST_PROXY="$(trusted_proxies "$name")" nohup node --enable-source-maps ${SERVICE_NODE_FLAGS:-} \
      --require @partner-api/shared/telemetry/register dist/main.js >>"$LOGS/$name.log" 2>&1 &
    echo $! >"$RUN/$name.pid"
  )
}

wait_ready() {
  local name=$1 port=${OPS_PORT[$1]}
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then return 0; fi
    if ! alive "$name"; then break; fi
    sleep 0.25
  done
  echo "$name did not become ready; last log lines:" >&2
  tail -n 30 "$LOGS/$name.log" >&2
  return 1
}

# The servers of .data/infra.env, except where the environment names its own
# (as for the tests): `REDIS_URL=redis+cluster://... services.sh start` runs
# the stack on a Redis Cluster beside the usual servers.
load_env() {
  local name value
  if [[ -f "$ROOT/.data/infra.env" ]]; then
    while IFS='=' read -r name value; do
      [[ -n "$name" && -z "${!name+set}" ]] && export "$name=$value"
    done <"$ROOT/.data/infra.env"
  fi
  # A local stack delivers webhooks to receivers on this machine (never set in a deployment).
  export WEBHOOK_ALLOW_LOOPBACK_RECEIVERS=${WEBHOOK_ALLOW_LOOPBACK_RECEIVERS:-true}
  # Every service mails through the local mail server (MailDev, SMTP_URL in
  # infra.env), where the mail is read on MAIL_URL; MAILER=log (and the
  # like) in the environment keep a service's mail in its log instead.
  if [[ -n "${SMTP_URL:-}" ]]; then
    export MAILER=${MAILER:-smtp} GUEST_MAILER=${GUEST_MAILER:-smtp} DASHBOARD_MAILER=${DASHBOARD_MAILER:-smtp}
  fi
  # Wallet passes are signed with the local test pair of `make pass-certs`, when it is there.
  if [[ -z "${PASS_CERTIFICATES_DIR+set}" && -d "$ROOT/.data/passkit" ]]; then export PASS_CERTIFICATES_DIR="$ROOT/.data/passkit"; fi
}

command=${1:-}
shift || true
# Named services only (e.g. a test restarting the dashboard with its own mail server), else all.
if [[ $# -gt 0 ]]; then
  for name in "$@"; do [[ -n "${OPS_PORT[$name]:-}" ]] || { echo "unknown service: $name" >&2; exit 2; }; done
  SERVICES=("$@")
fi

case "$command" in
  start)
    mkdir -p "$RUN" "$LOGS"
    load_env
    for name in "${SERVICES[@]}"; do start_one "$name"; done
    for name in "${SERVICES[@]}"; do wait_ready "$name"; done
    echo "services ready: ${SERVICES[*]}"
    ;;
  stop)
    # Dashboard and gateway first, so no new work reaches the others while they drain.
    for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do stop_one "${SERVICES[i]}"; done
    echo "services stopped"
    ;;
  status)
    for name in "${SERVICES[@]}"; do
      if alive "$name"; then echo "$name: running (pid $(pid_of "$name"))"; else echo "$name: stopped"; fi
    done
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
