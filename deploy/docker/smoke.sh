#!/usr/bin/env bash
# Runs the project image the way the chart runs it (read-only root, user
# 1000, every capability dropped, no privilege escalation, /tmp as the only
# writable place) against the local infrastructure: the migration as the
# hook Job runs it, then the gateway, which must answer GET / for a demo key.
# Needs `make build` (the demo seed runs from the checkout). Stops what it starts.
#   smoke.sh IMAGE
set -euo pipefail
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
IMAGE=${1:?usage: smoke.sh IMAGE}
PODMAN="$ROOT/deploy/docker/podman.sh"
# Ports of their own, so a running local stack (gateway on 4000) is no obstacle.
HTTP_PORT=14000 OPS_PORT=19400
NAME="partner-api-smoke-$$"

"$ROOT/deploy/local/infra.sh" up >/dev/null
set -a; . "$DATA/infra.env"; set +a
as_the_chart_runs_it=(--rm --network host --read-only --user 1000:1000 --cap-drop ALL
  --security-opt no-new-privileges --tmpfs /tmp:rw,size=64m
  -e NODE_ENV=production -e BIND_HOST=127.0.0.1 -e LOG_LEVEL=warn
  -e DATABASE_URL -e REDIS_URL -e KAFKA_BROKERS -e CURSOR_SECRET=smoke-test-cursor-secret-0123456789)

"$PODMAN" run "${as_the_chart_runs_it[@]}" -w /app/services/cli "$IMAGE" node dist/main.js migrate >/dev/null
node "$ROOT/services/cli/dist/main.js" demo seed --out "$DATA/demo.env" --base-url http://127.0.0.1:4000 >/dev/null
# shellcheck disable=SC1091
. "$DATA/demo.env"

# Backends at an address where nothing listens (the discard port), whether or
# not a local stack runs beside it: the gateway must then be alive, serve
# GET /, and say it is not ready.
no_backend=127.0.0.1:9
# GRPC_PORT 0: any free port for its GatewayService, beside a local stack whose gateway may hold the usual one.
"$PODMAN" run -d --name "$NAME" "${as_the_chart_runs_it[@]}" -e HTTP_PORT=$HTTP_PORT -e OPS_PORT=$OPS_PORT -e GRPC_PORT=0 \
  -e INVENTORY_GRPC_ADDR=$no_backend -e ORDERS_GRPC_ADDR=$no_backend -e TICKETS_GRPC_ADDR=$no_backend -e WEBHOOKS_GRPC_ADDR=$no_backend \
  -w /app/services/gateway "$IMAGE" node --enable-source-maps --require @partner-api/shared/telemetry/register dist/main.js >/dev/null
trap '"$PODMAN" rm -f -t 10 "$NAME" >/dev/null 2>&1 || true' EXIT
# Alive, not ready: the gateway alone has no backends, and its readiness
# follows theirs (decision D133); GET / needs only PostgreSQL and Redis.
ready() { curl -fs -o /dev/null "http://127.0.0.1:$OPS_PORT/healthz"; }
deadline=$((SECONDS + 60))
until ready; do
  if ((SECONDS >= deadline)) || ! "$PODMAN" container exists "$NAME"; then
    "$PODMAN" logs "$NAME" 2>&1 | tail -n 30 >&2 || true
    die "the gateway in $IMAGE did not become ready"
  fi
  sleep 0.5
done
body=$(curl -fsS -H "Authorization: Bearer $DEMO_LIVE_KEY" "http://127.0.0.1:$HTTP_PORT/")
grep -q '"object":"api_key_info"' <<<"$body" || die "GET / through the image answered: $body"
readiness=$(curl -s "http://127.0.0.1:$OPS_PORT/readyz" || true)
grep -q 'backend inventory' <<<"$readiness" || die "/readyz of a gateway without backends answered: $readiness"
user=$("$PODMAN" exec "$NAME" id -u)
[[ "$user" == 1000 ]] || die "the gateway runs as uid $user"
say "image smoke test: $IMAGE migrated the schemas and served GET / read-only as uid 1000 without capabilities (not ready without its backends, as it should be)"
