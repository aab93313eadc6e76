#!/usr/bin/env bash
# Zero-downtime operations on the one-node cluster (cluster.sh, node.sh),
# each under partner traffic through the gateway's Service (traffic.js:
# about 100 checkout sessions a second with Idempotency-Keys, catalog reads
# and check-ins of issued tickets):
#   1. from-previous: the previous release installed (previous-image.sh:
#      its chart and image, by default the revision before the last
#      migration), then `helm upgrade` to this tree's chart and image; the
#      migration hook runs while the old pods serve;
#   2. rolling: `helm upgrade` to a new tag of this tree's image, so every
#      Deployment rolls;
#   3. rollback: `helm rollback` to the revision before.
# Each passes when no partner request failed (a 429 with Retry-After waited
# out and sent again is not a failure; a 5xx, a reset or a timeout is).
# At the end no checkout session holds tickets that its buyer never
# received (no hold leak). The last line gives the figures.
#   deploy/k8s/upgrade.sh [IMAGE]   default: the image deploy/docker/image.sh builds
# K8S_UPGRADE_PREVIOUS: the previous release's git revision (previous-image.sh's default
# otherwise); K8S_UPGRADE_RATE: checkout sessions a second (100).
# Exits non-zero on the first failure, after printing the pods and events.
# See docs/deploy.md and docs/runbooks.md.
set -euo pipefail
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
HERE="$ROOT/deploy/k8s"
CHART="$ROOT/charts/partner-api"
HELM=$("$ROOT/deploy/helm/install-helm.sh")
BIN=$("$HERE/build-kube.sh")
export KUBECONFIG="$DATA/k8s/kubeconfig"
kubectl() { "$BIN/kubectl" "$@"; }
NS=partner-api
RATE=${K8S_UPGRADE_RATE:-100}
IMAGE=${1:-$("$ROOT/deploy/docker/image.sh")}
IMAGE=localhost/${IMAGE#localhost/}
# The rolled-to image: the same build under another name and tag, so every
# pod template changes (another name: node.sh keeps one tag per name).
NEXT="localhost/partner-api-next:${IMAGE##*:}"
"$ROOT/deploy/docker/podman.sh" tag "$IMAGE" "$NEXT"
previous=$("$HERE/previous-image.sh" ${K8S_UPGRADE_PREVIOUS:+"$K8S_UPGRADE_PREVIOUS"}) || die "the previous release did not build"
PREVIOUS=$(sed -n 1p <<<"$previous")
PREVIOUS_CHART=$(sed -n 2p <<<"$previous")
PREVIOUS_VALUES="$PREVIOUS_CHART/../../deploy/k8s/pods/values.yaml"
WORK="$DATA/k8s/upgrade"
# The chart's own pause before SIGTERM (pods.sh shortens it to 1 s for speed).
ROLL_VALUES=(--set preStopSleepSeconds=5)

diagnose() {
  say "--- pods"; kubectl get pods -A -o wide >&2 || true
  say "--- events"; kubectl get events -n "$NS" --sort-by=.lastTimestamp 2>/dev/null | tail -n 40 >&2 || true
}
traffic=""
fail() { say "k8s upgrade test FAILED: $*"; diagnose; exit 1; }
cleanup() {
  [[ -n $traffic ]] && kill "$traffic" 2>/dev/null
  "$HERE/node.sh" down || true
  "$HERE/cluster.sh" down || true
}
trap cleanup EXIT

started=$SECONDS
"$HERE/cluster.sh" up
"$HERE/node.sh" up
eval "$("$ROOT/deploy/containers/images.sh")"
"$HERE/node.sh" load "$IMAGE" "$NEXT" "$PREVIOUS" "$POSTGRES_IMAGE" "$REDIS_IMAGE" "$KAFKA_IMAGE"
rm -rf "$WORK" && mkdir -p "$WORK"

say "== infrastructure pods"
sed -e "s|\${POSTGRES_IMAGE}|$POSTGRES_IMAGE|" -e "s|\${REDIS_IMAGE}|$REDIS_IMAGE|" -e "s|\${KAFKA_IMAGE}|$KAFKA_IMAGE|" \
  "$HERE/pods/infrastructure.yaml" | kubectl apply -f - >/dev/null
kubectl wait --for=condition=available deployment --all -n partner-infra --timeout=180s >/dev/null ||
  fail "PostgreSQL, Redis and Kafka did not become ready"
kubectl create namespace "$NS" >/dev/null
kubectl label namespace "$NS" pod-security.kubernetes.io/enforce=restricted \
  pod-security.kubernetes.io/enforce-version=v1.31 >/dev/null
secret() { openssl rand -hex 24; }
infra=partner-infra.svc.cluster.local
kubectl create secret generic partner-api-infrastructure -n "$NS" \
  --from-literal=DATABASE_URL="postgres://partner:partner@postgres.$infra:5432/partner_api" \
  --from-literal=REDIS_URL="redis://redis.$infra:6379" --from-literal=KAFKA_BROKERS="kafka.$infra:9092" \
  --from-literal=CURSOR_SECRET="$(secret)" --from-literal=CHANNEL_TOKEN_SECRET="$(secret)" \
  --from-literal=TICKET_PAGE_SECRET="$(secret)" --from-literal=WAITING_ROOM_PASS_SECRET="$(secret)" \
  --from-literal=DASHBOARD_SECRET="$(secret)" >/dev/null

# helm_release VERB CHART VALUES IMAGE: install or upgrade, waiting for every Deployment.
helm_release() {
  "$HELM" "$1" partner-api "$2" -n "$NS" -f "$3" "${ROLL_VALUES[@]}" \
    --set image.repository="${4%:*}" --set image.tag="${4##*:}" --wait --timeout 8m >"$WORK/helm.log" 2>&1 ||
    fail "helm $1 to ${4#localhost/}: $(tail -n 5 "$WORK/helm.log")"
}

say "== the previous release: helm install ${PREVIOUS#localhost/}"
# Up to e240953 the chart's default TRUST_PROXY for orders and the dashboard
# ("loopback,uniquelocal") was one its own code refused; name the pod range.
PREVIOUS_SET=(--set-string components.orders.env.TRUST_PROXY=10.0.0.0/8 --set-string components.dashboard.env.TRUST_PROXY=10.0.0.0/8)
ROLL_VALUES+=("${PREVIOUS_SET[@]}")
helm_release install "$PREVIOUS_CHART" "$PREVIOUS_VALUES" "$PREVIOUS"
ROLL_VALUES=("${ROLL_VALUES[@]:0:2}")
address=$(kubectl get service partner-api-gateway -n "$NS" -o jsonpath='{.spec.clusterIP}:{.spec.ports[?(@.name=="http")].port}')
base="http://$address"
database="postgres://partner:partner@$(kubectl get service postgres -n partner-infra -o jsonpath='{.spec.clusterIP}'):5432/partner_api"

# A partner: the demo organisation and its catalog, a key with room for the
# traffic, and tickets issued to check in (the free Lawn Pass of an event
# with no capacity limit, so the test never sells out). partnerctl is the
# release's own, run in its gateway pod (the pods' environment names the
# cluster's PostgreSQL and Redis).
partnerctl() { kubectl exec -n "$NS" deploy/partner-api-gateway -- node /app/services/cli/dist/main.js "$@"; }
partnerctl demo seed --out /tmp/demo.env --base-url "$base" >/dev/null || fail "partnerctl demo seed"
kubectl exec -n "$NS" deploy/partner-api-gateway -- cat /tmp/demo.env >"$WORK/demo.env"
org=$(sed -n 's/^DEMO_ORGANISATION_ID=//p' "$WORK/demo.env")
key=$(partnerctl key issue --org "$org" --name "Upgrade test" --rate-limit 1000000 | jq -r .secret) || fail "partnerctl key issue"
api() { # METHOD PATH [BODY]
  curl -fsS --max-time 10 -X "$1" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' ${3:+--data "$3"} "$base$2"
}
event=jazz-in-the-park
ticket_type=$(api GET "/events/$event/ticket_types" | jq -r '.data[] | select(.name == "Lawn Pass") | .id') ||
  fail "GET /events/$event/ticket_types"
attendees=$(jq -nc '[range(50) | {email: "guest\(.)@upgrade.example", name: "Guest \(.)"}]')
tickets=$(api POST /comp_tickets "{\"event_id\":\"$event\",\"ticket_type_id\":$ticket_type,\"attendees\":$attendees}" |
  jq -r '[.tickets[].id] | join(",")') || fail "POST /comp_tickets"
[[ -n $tickets ]] || fail "POST /comp_tickets issued no tickets"
say "   partner: organisation $org, $event ticket type $ticket_type, $(tr ',' '\n' <<<"$tickets" | wc -l) comp tickets to check in"
say "   set up in $((SECONDS - started)) s"

# under_traffic NAME COMMAND...: runs COMMAND while traffic.js sends, from
# 10 s before it to 10 s after it, then checks that no request failed.
# Sets REQUESTS.
under_traffic() {
  local name=$1 out="$WORK/$1.json" stop="$WORK/$1.stop" step_started=$SECONDS
  shift
  node "$HERE/traffic.js" "$base" "$key" "$event" "$ticket_type" "$tickets" "$stop" "$RATE" >"$out" 2>"$WORK/$name.err" &
  traffic=$!
  sleep 10
  "$@"
  sleep 10
  touch "$stop"
  wait "$traffic" || fail "$name: the traffic generator failed: $(cat "$WORK/$name.err")"
  traffic=""
  REQUESTS=$(jq .requests "$out")
  local failed
  failed=$(jq .failed "$out")
  say "   $name: $REQUESTS requests in $(jq .seconds "$out") s ($(jq -c '{checkouts, reads, check_ins, retried_429, skipped}' "$out")), $failed failed; $((SECONDS - step_started)) s"
  [[ $failed -eq 0 ]] || fail "$name: $failed of $REQUESTS partner requests failed: $(jq -c .failures "$out"); $(head -c 2000 "$WORK/$name.err")"
  [[ $REQUESTS -gt 0 ]] || fail "$name: no request was answered"
  jq -r '.sessions[]' "$out" >>"$WORK/received-sessions"
}

rolled() { # every Deployment runs IMAGE, all its replicas updated and ready
  local deployments
  deployments=$(kubectl get deployments -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name} {.spec.template.spec.containers[0].image} {.status.updatedReplicas}/{.status.readyReplicas}/{.spec.replicas}{"\n"}{end}')
  awk -v image="${1#localhost/}" '{ split($3, n, "/"); if (($2 != image && $2 != "localhost/" image) || n[1] != n[3] || n[2] != n[3]) bad = 1 } END { exit bad }' \
    <<<"$deployments" || fail "after the roll: $(tr '\n' ';' <<<"$deployments")"
}

say "== from-previous: helm upgrade ${PREVIOUS#localhost/} -> ${IMAGE#localhost/} (this chart, its migrations) under traffic"
under_traffic from-previous helm_release upgrade "$CHART" "$HERE/pods/values.yaml" "$IMAGE"
rolled "$IMAGE"
from_previous=$REQUESTS

say "== rolling: helm upgrade to ${NEXT#localhost/} under traffic"
under_traffic rolling helm_release upgrade "$CHART" "$HERE/pods/values.yaml" "$NEXT"
rolled "$NEXT"
rolling=$REQUESTS

say "== rollback: helm rollback to ${IMAGE#localhost/} under traffic"
rollback_to() {
  "$HELM" rollback partner-api 2 -n "$NS" --wait --timeout 8m >"$WORK/helm.log" 2>&1 || fail "helm rollback: $(tail -n 5 "$WORK/helm.log")"
}
under_traffic rollback rollback_to
rolled "$IMAGE"
rollback=$REQUESTS

# No hold leak: every session still holding tickets is one a buyer received.
leaked=$(DATABASE_URL="$database" node "$HERE/held-sessions.js" "$org" "$WORK/received-sessions") || fail "reading the held sessions"
[[ $leaked -eq 0 ]] || fail "$leaked checkout sessions hold tickets that no buyer received"
say "== no hold leak: every open session is one a buyer received ($(wc -l <"$WORK/received-sessions") sessions)"
say "   k8s upgrade test done in $((SECONDS - started)) s"
echo "k8s upgrade: rolling $rolling requests 0 failed; from-previous $from_previous requests 0 failed; rollback $rollback requests 0 failed"
