# MailDev (npm `maildev`, installed with the project's dev dependencies): a
# mail server for development that keeps what it is sent and shows it.
# Every local service mails through its SMTP port (services.sh sets
# MAILER=smtp and SMTP_URL); people read the mail in its web UI and tests
# through its REST API (`/api/email`), both on MAIL_URL. Messages live in
# memory only (the newest MAILDEV_MAX_EMAILS), so a restart starts empty.
# Sourced by infra.sh after lib.sh.
# shellcheck shell=bash
MAILDEV_SMTP_PORT=1025
MAILDEV_WEB_PORT=1080
# shellcheck disable=SC2034 # used by infra.sh
MAILDEV_SMTP_URL="smtp://127.0.0.1:$MAILDEV_SMTP_PORT"
# shellcheck disable=SC2034 # used by infra.sh
MAILDEV_URL="http://127.0.0.1:$MAILDEV_WEB_PORT"
MAILDEV_MAX_EMAILS=${MAILDEV_MAX_EMAILS:-5000}
MAILDEV_DIR="$DATA/maildev"
MAILDEV_PID="$MAILDEV_DIR/maildev.pid"
MAILDEV_LOG="$LOGS/maildev.log"
MAILDEV_BIN="$ROOT/node_modules/maildev/dist/bin/maildev.js"

maildev_running() { pid_is "$(pid_from "$MAILDEV_PID")" maildev; }
# Ready once the REST API answers (the SMTP port opens first).
maildev_ready() {
  maildev_running || { tail -n 20 "$MAILDEV_LOG" >&2; die "MailDev exited during start (see $MAILDEV_LOG)"; }
  port_open "$MAILDEV_SMTP_PORT" && curl -fsS -o /dev/null "$MAILDEV_URL/api/healthz" 2>/dev/null
}

maildev_start() {
  [[ -f "$MAILDEV_BIN" ]] || die "MailDev is not installed: run npm install (make install)"
  local state=running
  if ! maildev_running; then
    state=ready
    port_free "$MAILDEV_SMTP_PORT" "MailDev's SMTP server"
    port_free "$MAILDEV_WEB_PORT" "MailDev's web UI"
    mkdir -p "$MAILDEV_DIR"
    # Loopback only, both ports; setsid and nohup as for Kafka: a Ctrl-C in
    # the terminal that ran `up` does not reach it.
    setsid nohup node "$MAILDEV_BIN" --ip 127.0.0.1 --smtp "$MAILDEV_SMTP_PORT" \
      --web-ip 127.0.0.1 --web "$MAILDEV_WEB_PORT" --max-emails "$MAILDEV_MAX_EMAILS" \
      </dev/null >>"$MAILDEV_LOG" 2>&1 9>&- &
    echo $! >"$MAILDEV_PID"
  fi
  wait_until 60 "$MAILDEV_LOG" MailDev maildev_ready
  say "MailDev $state: SMTP $MAILDEV_SMTP_URL, mail at $MAILDEV_URL"
}

maildev_stop() {
  if maildev_running; then stop_pid MailDev "$(pid_from "$MAILDEV_PID")" 10; fi
  rm -f "$MAILDEV_PID"
}

maildev_status() {
  if maildev_running; then echo "maildev: running ($MAILDEV_URL, pid $(pid_from "$MAILDEV_PID"))"; else echo "maildev: stopped"; fi
}
