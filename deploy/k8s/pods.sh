#!/usr/bin/env bash
# The chart's pods, running: a control plane (cluster.sh) and one node
# (node.sh), PostgreSQL, Redis and Kafka as pods (pods/infrastructure.yaml),
# then a plain `helm install --wait` of the project image (pods/values.yaml)
# in a namespace that enforces Pod Security `restricted`: the migration hook
# must finish and every Deployment become ready (the gateway's readiness
# includes its backends' gRPC health). Then `GET /` through the gateway's
# Service; an IP allowlist through it, by the caller's own address and
# deaf to a forged X-Forwarded-For; `kubectl logs`, `exec` and
# `port-forward`; API calls that cross gateway, inventory and PostgreSQL,
# both inventory pods serving, one of them deleted under traffic without a
# failed call, an uninstall, and everything stopped.
#   deploy/k8s/pods.sh [IMAGE]   default: the image deploy/docker/image.sh builds
# Exits non-zero on the first failure, after printing the pods, events and
# every pod's `kubectl logs`. See docs/deploy.md.
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
IMAGE=${1:-$("$ROOT/deploy/docker/image.sh")}
IMAGE=${IMAGE#localhost/}

diagnose() {
  say "--- pods"; kubectl get pods -A -o wide >&2 || true
  say "--- events"; kubectl get events -A --sort-by=.lastTimestamp 2>/dev/null | tail -n 30 >&2 || true
  local pod
  for pod in $(kubectl get pods -n "$NS" -o name 2>/dev/null); do
    say "--- kubectl logs $pod"; kubectl logs "$pod" -n "$NS" --all-containers --tail=15 >&2 || true
  done
}
fail() { say "k8s pods test FAILED: $*"; diagnose; exit 1; }
gateway_grpc_forward=""
cleanup() {
  [[ -z $gateway_grpc_forward ]] || kill "$gateway_grpc_forward" 2>/dev/null || true
  "$HERE/node.sh" down || true
  "$HERE/cluster.sh" down || true
}
trap cleanup EXIT

"$HERE/cluster.sh" up
"$HERE/node.sh" up
eval "$("$ROOT/deploy/containers/images.sh")"
"$HERE/node.sh" load "$IMAGE" "$POSTGRES_IMAGE" "$REDIS_IMAGE" "$KAFKA_IMAGE"

say "== infrastructure pods"
sed -e "s|\${POSTGRES_IMAGE}|$POSTGRES_IMAGE|" -e "s|\${REDIS_IMAGE}|$REDIS_IMAGE|" -e "s|\${KAFKA_IMAGE}|$KAFKA_IMAGE|" \
  "$HERE/pods/infrastructure.yaml" | kubectl apply -f - >/dev/null
kubectl wait --for=condition=available deployment --all -n partner-infra --timeout=180s >/dev/null ||
  fail "PostgreSQL, Redis and Kafka did not become ready"

say "== helm install --wait ($IMAGE)"
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
started=$SECONDS
"$HELM" install partner-api "$CHART" -n "$NS" -f "$HERE/pods/values.yaml" \
  --set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}" --wait --timeout 6m >/dev/null ||
  fail "helm install --wait"
say "   migration hook completed, every Deployment ready, in $((SECONDS - started)) s"
ready=$(kubectl get deployments -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name}={.status.readyReplicas}/{.spec.replicas} {end}')
say "   $ready"
[[ $(kubectl get deployments -n "$NS" -o name | wc -l) -eq 6 ]] || fail "expected 6 Deployments"
address=$(kubectl get service partner-api-gateway -n "$NS" -o jsonpath='{.spec.clusterIP}:{.spec.ports[?(@.name=="http")].port}')

# A partner's key, made the way an SRE would: partnerctl from this checkout,
# against the cluster's PostgreSQL through its Service.
cluster_ip() { kubectl get service "$1" -n partner-infra -o jsonpath='{.spec.clusterIP}'; }
keys="$DATA/k8s/pods-demo.env"
rm -f "$keys"
# Its organisation and key commands go to the gateway's GatewayService (D485),
# which only the dashboard may reach inside the cluster: a port-forward to a
# gateway pod stands in for the SRE's.
grpc_forwarding="$DATA/k8s/gateway-grpc-forward.log"
kubectl port-forward deployment/partner-api-gateway -n "$NS" --address 127.0.0.1 :50050 >"$grpc_forwarding" 2>&1 &
gateway_grpc_forward=$!
gateway_grpc_port=""
for _ in $(seq 1 40); do
  gateway_grpc_port=$(sed -n 's/^Forwarding from 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$grpc_forwarding" | head -n 1)
  [[ -n $gateway_grpc_port ]] && break
  sleep 0.5
done
[[ -n $gateway_grpc_port ]] || fail "kubectl port-forward to the gateway's gRPC port: $(cat "$grpc_forwarding")"
partnerctl() {
  DATABASE_URL="postgres://partner:partner@$(cluster_ip postgres):5432/partner_api" REDIS_URL="redis://$(cluster_ip redis):6379" \
    GATEWAY_GRPC_ADDR="127.0.0.1:$gateway_grpc_port" node "$ROOT/services/cli/dist/main.js" "$@"
}
partnerctl demo seed --out "$keys" --base-url "http://$address" >/dev/null || fail "partnerctl demo seed against the cluster's PostgreSQL"
key=$(sed -n 's/^DEMO_LIVE_KEY=//p' "$keys")
# The rollout below sends more than the default 120 requests a minute.
busy_key=$(partnerctl key issue --org "$(sed -n 's/^DEMO_ORGANISATION_ID=//p' "$keys")" --name "Rollout test" --rate-limit 100000 |
  jq -r .secret) || fail "partnerctl key issue"
api() { curl -fsS --max-time 10 -H "Authorization: Bearer $key" "http://$address$1"; }

# The gateway's Service, as an ingress controller or another pod reaches it:
# its ClusterIP, which kube-proxy sends to a gateway pod.
info=$(api /) || fail "GET / through the gateway Service ($address)"
grep -q '"object":"api_key_info"' <<<"$info" || fail "GET / answered: $info"
say "== GET / through the gateway Service ($address): $info"

# IP allowlists go by the caller's own address (D381): with no trustedProxies
# (pods/values.yaml sets none) the gateway believes no X-Forwarded-For, so
# behind the Service it sees this machine as kube-proxy forwards it, and a
# forged header from here can neither unlock a key nor lock its caller out.
# The refusal's message names the address the gateway saw.
org=$(sed -n 's/^DEMO_ORGANISATION_ID=//p' "$keys")
answer="$DATA/k8s/pods-allowlist.json"
status_of() { # <key> [curl options...]: the status of GET / through the Service; the body in $answer
  local secret=$1
  shift
  curl -sS --max-time 10 -o "$answer" -w '%{http_code}' -H "Authorization: Bearer $secret" "$@" "http://$address/"
}
fenced=$(partnerctl key issue --org "$org" --name "Allowlist test" --ip-allowlist 203.0.113.5) || fail "partnerctl key issue --ip-allowlist"
fenced_key=$(jq -r .secret <<<"$fenced")
fenced_id=$(jq -r .id <<<"$fenced")
[[ $(status_of "$fenced_key") == 403 ]] || fail "a key allowing only 203.0.113.5 was not refused through the Service: $(cat "$answer")"
caller=$(jq -r .error.message "$answer" | sed -n 's/^Requests from \(.*\) are not allowed for this key\.$/\1/p')
[[ -n $caller ]] || fail "the ip_not_allowed refusal names no caller address: $(cat "$answer")"
[[ $(status_of "$fenced_key" -H 'X-Forwarded-For: 203.0.113.5') == 403 ]] ||
  fail "a forged X-Forwarded-For: 203.0.113.5 unlocked the key from $caller: $(cat "$answer")"
partnerctl key allowlist "$fenced_id" --org "$org" --ips "$caller" >/dev/null || fail "partnerctl key allowlist"
[[ $(status_of "$fenced_key") == 200 ]] || fail "a key allowing $caller refused it through the Service: $(cat "$answer")"
[[ $(status_of "$fenced_key" -H 'X-Forwarded-For: 198.51.100.9') == 200 ]] ||
  fail "a forged X-Forwarded-For: 198.51.100.9 locked out $caller: $(cat "$answer")"
say "== IP allowlist through the Service: $caller refused, then admitted once listed; a forged X-Forwarded-For changed neither"

# What an SRE reaches for first: a Deployment's logs, a command in its pod,
# and a Service forwarded to this machine.
# Read whole, then searched: piped into grep -q, kubectl could be cut off
# writing the lines after the match, and pipefail failed the check.
gateway_logs=$(kubectl logs deployment/partner-api-gateway -n "$NS") || fail "kubectl logs of the gateway"
grep -q '"msg":"gateway started"' <<<"$gateway_logs" ||
  fail "kubectl logs of the gateway has no start line"
ops_port=$(kubectl get deployment partner-api-inventory -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].ports[?(@.name=="ops")].containerPort}')
kubectl exec deployment/partner-api-inventory -n "$NS" -- \
  node -e "fetch('http://127.0.0.1:$ops_port/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" ||
  fail "kubectl exec: inventory's /readyz from inside its pod"
# Port 0: kubectl picks a free local port and names it.
forwarding="$DATA/k8s/port-forward.log"
kubectl port-forward service/partner-api-gateway -n "$NS" --address 127.0.0.1 ":${address##*:}" >"$forwarding" 2>&1 &
forward=$!
forward_port=""
for _ in $(seq 1 40); do
  forward_port=$(sed -n 's/^Forwarding from 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$forwarding" | head -n 1)
  [[ -n $forward_port ]] && break
  sleep 0.5
done
forwarded=$( [[ -n $forward_port ]] && curl -fsS --max-time 10 -H "Authorization: Bearer $key" "http://127.0.0.1:$forward_port/") || true
kill "$forward" 2>/dev/null || true
grep -q '"object":"api_key_info"' <<<"$forwarded" || fail "GET / through kubectl port-forward: $(cat "$forwarding")"
say "== kubectl logs, exec and port-forward (127.0.0.1:$forward_port -> gateway Service) answer"

# gateway -> inventory over gRPC (every inventory pod, from the headless
# Service's DNS) -> PostgreSQL and Redis. Both inventory pods must take calls.
for _ in $(seq 1 40); do
  events=$(api '/events?limit=5') || fail "GET /events through the gateway Service"
done
grep -q '"object":"list"' <<<"$events" && grep -q '"object":"event"' <<<"$events" || fail "GET /events answered: $events"
served=()
# Each pod's address and the ops port its spec names (the chart's ports.ops).
for pod in $(kubectl get pods -n "$NS" -l app.kubernetes.io/name=inventory \
    -o jsonpath='{range .items[*]}{.status.podIP}:{.spec.containers[0].ports[?(@.name=="ops")].containerPort}{" "}{end}'); do
  calls=$(curl -fsS --max-time 5 "http://$pod/metrics" |
    awk '/^grpc_server_handling_seconds_count/ { sum += $NF } END { print sum + 0 }')
  served+=("$pod=$calls")
  [[ $calls -gt 0 ]] || fail "inventory pod $pod served no gRPC calls (${served[*]})"
done
[[ ${#served[@]} -eq 2 ]] || fail "expected 2 inventory pods, found ${#served[@]}"
say "== 40 GET /events: gRPC calls served per inventory pod: ${served[*]}"

# A pod going away mid-traffic (a rollout, a node drain) costs no request:
# the preStop pause lets DNS and the clients drop it before SIGTERM, and the
# server finishes what it has. One inventory pod is deleted while calls run.
requests="$DATA/k8s/pods-rollout.txt"
( end=$((SECONDS + 20)); while ((SECONDS < end)); do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 -H "Authorization: Bearer $busy_key" "http://$address/events?limit=5"
  done >"$requests" ) &
traffic=$!
sleep 3
victim=$(kubectl get pods -n "$NS" -l app.kubernetes.io/name=inventory -o jsonpath='{.items[0].metadata.name}')
kubectl delete pod "$victim" -n "$NS" --wait=true --timeout=60s >/dev/null || fail "deleting inventory pod $victim"
wait "$traffic"
answered=$(grep -c . "$requests"); failed=$(grep -vc '^200$' "$requests" || true)
[[ $answered -gt 0 && $failed -eq 0 ]] || fail "$failed of $answered GET /events failed while $victim went away: $(sort "$requests" | uniq -c | tr '\n' ' ')"
kubectl rollout status deployment/partner-api-inventory -n "$NS" --timeout=120s >/dev/null || fail "inventory did not get its second pod back"
say "== inventory pod $victim deleted under traffic: $answered GET /events, none failed; replaced"

started=$SECONDS
"$HELM" uninstall partner-api -n "$NS" --wait --timeout 2m >/dev/null || fail "helm uninstall"
kubectl delete namespace "$NS" --wait=true --timeout=120s >/dev/null || fail "namespace $NS was not removed"
say "== uninstalled in $((SECONDS - started)) s; k8s pods test passed"
