#!/usr/bin/env bash
# Lints and renders the chart with every values scenario, and proves the
# schema rejects unknown keys. Exits non-zero on any failure.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HELM=$("$ROOT/deploy/helm/install-helm.sh")
CHART="$ROOT/charts/partner-api"
# A go-installed helm assumes Kubernetes 1.20 when rendering offline; name a current one.
KUBE=(--kube-version 1.31.0)
checked=0

for values in "$CHART"/ci/*-values.yaml "$ROOT"/deploy/values/*.yaml; do
  name=${values#"$ROOT/"}
  "$HELM" lint --strict "$CHART" "${KUBE[@]}" -f "$values" >/dev/null ||
    { echo "helm lint failed: $name" >&2; "$HELM" lint --strict "$CHART" "${KUBE[@]}" -f "$values" >&2; exit 1; }
  "$HELM" template check "$CHART" "${KUBE[@]}" -f "$values" >/dev/null || { echo "helm template failed: $name" >&2; exit 1; }
  checked=$((checked + 1))
done

if "$HELM" template check "$CHART" "${KUBE[@]}" --set components.gateway.bogus=1 >/dev/null 2>&1; then
  echo "values.schema.json accepted an unknown key" >&2
  exit 1
fi

if "$HELM" template check "$CHART" "${KUBE[@]}" --set config.webhookRetrySchedule="5 minutes" >/dev/null 2>&1; then
  echo "values.schema.json accepted a malformed webhook retry schedule" >&2
  exit 1
fi

# Values a real API server refuses (or that break a rollout) must be refused
# by the schema or a template `fail`, naming the value, before anything is sent.
refused=0
refuse() { # <what the message must contain> <--set ...>...
  local expect=$1 out; shift
  if out=$("$HELM" template check "$CHART" "${KUBE[@]}" "$@" 2>&1 >/dev/null); then
    echo "the chart accepted $*" >&2; exit 1
  fi
  grep -qF -- "$expect" <<<"$out" || { echo "refusing $* did not mention $expect:" >&2; echo "$out" >&2; exit 1; }
  refused=$((refused + 1))
}
refuse 'minReplicas (5) is greater than maxReplicas (3)' --set components.gateway.autoscaling.enabled=true \
  --set components.gateway.autoscaling.minReplicas=5 --set components.gateway.autoscaling.maxReplicas=3
refuse '/components/inventory/resources/requests/cpu' --set components.inventory.resources.requests.cpu=lots
refuse '/components/orders/resources/limits/memory' --set components.orders.resources.limits.memory=lots
refuse '/serviceMonitor/interval' --set serviceMonitor.interval=banana
refuse '/components/gateway/pdb/minAvailable' --set components.gateway.pdb.minAvailable=200%
refuse 'http and ops are both 4000' --set components.gateway.ports.ops=4000
refuse 'grpc and ops are both 50051' --set components.inventory.ports.ops=50051
refuse 'must end before terminationGracePeriodSeconds' --set preStopSleepSeconds=15
refuse 'does not serve gateway.networking.k8s.io/v1 HTTPRoute' --set httpRoute.enabled=true
refuse '/image/digest' --set image.digest=latest
refuse '/config/traceSampling/ratio' --set-json config.traceSampling.ratio=1.5
refuse '/config/traceSampling/sampler' --set config.traceSampling.sampler=sometimes
refuse 'the dashboard is routed' --set ingress.dashboardHost=dash.example.com --set components.dashboard.enabled=false
refuse '/config/dashboardMailer' --set config.dashboardMailer=pigeon
refuse '/trustedProxies/0' --set-json 'trustedProxies=["loopback"]'
refuse '/trustedProxies/0' --set-json 'trustedProxies=["10.0.0.0/8,192.168.0.0/16"]'

# The default render must hold every kind the chart promises.
MONITORING=(--api-versions monitoring.coreos.com/v1/ServiceMonitor)
rendered=$("$HELM" template check "$CHART" "${KUBE[@]}" "${MONITORING[@]}" -f "$CHART/ci/production-values.yaml")
for kind in Deployment Service HorizontalPodAutoscaler PodDisruptionBudget NetworkPolicy ServiceMonitor Job ServiceAccount ConfigMap; do
  grep -q "^kind: $kind$" <<<"$rendered" || { echo "production render has no $kind" >&2; exit 1; }
done
# The migration hook runs as a hook ServiceAccount created before it (a
# pre-install hook cannot use the release's own account: it does not exist yet).
grep -q 'serviceAccountName: check-partner-api-migrate$' <<<"$rendered" || { echo "the migration Job does not use its hook ServiceAccount" >&2; exit 1; }
# Without the Prometheus Operator's CRD there is no ServiceMonitor (the release would fail), and the notes say so.
# Rendered whole, then searched: piped into grep -q, a render cut off after a
# match fails under pipefail, and the check would pass on the very render it
# exists to catch.
without_crds=$("$HELM" template check "$CHART" "${KUBE[@]}" -f "$CHART/ci/production-values.yaml")
if grep -q '^kind: ServiceMonitor$' <<<"$without_crds"; then
  echo "a ServiceMonitor was rendered for a cluster without its CRD" >&2; exit 1
fi
# Six Deployments: the five services and the organiser dashboard.
[[ $(grep -c '^kind: Deployment$' <<<"$rendered") -eq 6 ]] || { echo "production render does not have 6 Deployments" >&2; exit 1; }
grep -q 'workingDir: /app/services/dashboard$' <<<"$rendered" || { echo "production render has no dashboard Deployment" >&2; exit 1; }
# Every pod pauses before SIGTERM and is spread over zones and nodes.
[[ $(grep -c 'sleep: { seconds: 5 }' <<<"$rendered") -eq 6 ]] || { echo "not every Deployment has the preStop pause" >&2; exit 1; }
[[ $(grep -c 'topologyKey: topology.kubernetes.io/zone' <<<"$rendered") -eq 6 ]] || { echo "not every Deployment spreads over zones" >&2; exit 1; }
# gRPC spreads over every pod: a headless Service per gRPC component, clients on dns:/// targets, native grpc readiness probes.
[[ $(grep -c 'clusterIP: None' <<<"$rendered") -eq 5 ]] || { echo "not every gRPC component has a headless Service" >&2; exit 1; }
[[ $(grep -c '_GRPC_ADDR: "dns:///check-partner-api-[a-z]*-headless:' <<<"$rendered") -eq 5 ]] || { echo "gRPC clients do not use the headless Services" >&2; exit 1; }
[[ $(grep -c 'grpc: { port: ' <<<"$rendered") -eq 5 ]] || { echo "not every gRPC container has a grpc readiness probe" >&2; exit 1; }
# The dashboard calls the gateway (keys), orders, tickets, webhooks and
# inventory: each one's NetworkPolicy lets its pods in.
[[ $(grep -c 'app.kubernetes.io/name: dashboard$' < <("$HELM" template check "$CHART" "${KUBE[@]}" -f "$CHART/ci/production-values.yaml" --show-only templates/component.yaml |
  awk 'BEGIN { RS = "\n---\n" } /kind: NetworkPolicy/ && /port: 5005[0-4]/')) -ge 5 ]] ||
  { echo "the gRPC components' NetworkPolicies do not admit the dashboard" >&2; exit 1; }
# Optional routing, annotations, Secret env and digests render as asked.
DIGEST=sha256:$(printf '%064d' 7)
extras=$("$HELM" template check "$CHART" "${KUBE[@]}" --api-versions gateway.networking.k8s.io/v1/HTTPRoute \
  --set ingress.enabled=true --set httpRoute.enabled=true --set httpRoute.parentRefs[0].name=public \
  --set podAnnotations.team=tickets --set extraEnvFromSecrets[0]=stripe --set image.digest="$DIGEST" \
  --set components.orders.secretEnv.STRIPE_SECRET_KEY.name=stripe --set components.orders.secretEnv.STRIPE_SECRET_KEY.key=key)
for kind in Ingress HTTPRoute; do
  [[ $(grep -c "^kind: $kind$" <<<"$extras") -eq 1 ]] || { echo "expected exactly one $kind (none for the hosted checkout unless asked)" >&2; exit 1; }
done
grep -q "image: partner-api:0.1.0@$DIGEST" <<<"$extras" || { echo "the image digest is not used" >&2; exit 1; }
[[ $(grep -c 'team: tickets' <<<"$extras") -eq 7 ]] || { echo "podAnnotations missing from some pod" >&2; exit 1; }
[[ $(grep -c 'name: stripe$' <<<"$extras") -ge 7 ]] || { echo "extraEnvFromSecrets missing from some container" >&2; exit 1; }
grep -q 'secretKeyRef: { name: stripe, key: key }' <<<"$extras" || { echo "secretEnv not rendered" >&2; exit 1; }
checkout=$("$HELM" template check "$CHART" "${KUBE[@]}" --set ingress.enabled=true --set ingress.checkoutHost=pay.example.com)
grep -q 'host: pay.example.com' <<<"$checkout" || { echo "the hosted checkout rule is missing when asked" >&2; exit 1; }
! grep -q 'name: check-partner-api-dashboard, port' <<<"$checkout" || { echo "the dashboard was routed without ingress.dashboardHost" >&2; exit 1; }
dashboard=$("$HELM" template check "$CHART" "${KUBE[@]}" --api-versions gateway.networking.k8s.io/v1/HTTPRoute \
  --set ingress.enabled=true --set ingress.dashboardHost=dash.example.com --set ingress.tlsSecretName=tls \
  --set httpRoute.enabled=true --set httpRoute.parentRefs[0].name=public --set httpRoute.dashboardHostnames[0]=dash.example.com)
grep -q 'backend: { service: { name: check-partner-api-dashboard, port: { name: http } } }' <<<"$dashboard" ||
  { echo "the dashboard's ingress rule is missing when asked" >&2; exit 1; }
[[ $(grep -c '^kind: HTTPRoute$' <<<"$dashboard") -eq 2 ]] && grep -A1 -- '- name: check-partner-api-dashboard$' <<<"$dashboard" | grep -q 'port: 4200$' ||
  { echo "the dashboard's HTTPRoute is missing when asked" >&2; exit 1; }
grep -q 'DASHBOARD_BASE_URL: "https://dashboard.example.com"' <<<"$dashboard" ||
  { echo "the dashboard's settings are not rendered" >&2; exit 1; }
grep -q 'WEBHOOK_RETRY_SCHEDULE: "1m,5m,30m,2h,5h,8h,8h"' <<<"$rendered" || { echo "production render has no webhook retry schedule" >&2; exit 1; }
# Caller addresses (D381): no proxy is trusted unless trustedProxies names it; the list reaches every
# component through the shared ConfigMap, and no component sets a TRUST_PROXY of its own by default.
default_render=$("$HELM" template check "$CHART" "${KUBE[@]}")
grep -q '^  TRUST_PROXY: ""$' <<<"$default_render" && ! grep -q 'name: TRUST_PROXY' <<<"$default_render" ||
  { echo "the default render trusts a proxy (TRUST_PROXY)" >&2; exit 1; }
grep -q '^  TRUST_PROXY: "10.244.0.0/16"$' <<<"$rendered" || { echo "production render does not trust its ingress controller's range (trustedProxies)" >&2; exit 1; }
proxied=$("$HELM" template check "$CHART" "${KUBE[@]}" --set-json 'trustedProxies=["10.244.0.0/16","fd00:10:244::/56"]')
grep -q '^  TRUST_PROXY: "10.244.0.0/16,fd00:10:244::/56"$' <<<"$proxied" || { echo "trustedProxies is not what the pods get as TRUST_PROXY" >&2; exit 1; }
# Wallet passes: the certificates Secret is mounted into the orders pods only, and only when named.
passes=$("$HELM" template check "$CHART" "${KUBE[@]}" --show-only templates/component.yaml -f "$CHART/ci/production-values.yaml")
mounting=$(awk 'BEGIN { RS = "\n---\n" } /kind: Deployment/ && /PASS_CERTIFICATES_DIR/' <<<"$passes")
[[ $(grep -c 'secretName: partner-api-wallet-passes$' <<<"$passes") -eq 1 ]] &&
  [[ $(grep -c 'name: PASS_CERTIFICATES_DIR, value: /etc/partner-api/wallet-passes' <<<"$passes") -eq 1 ]] &&
  grep -q 'workingDir: /app/services/orders$' <<<"$mounting" ||
  { echo "walletPasses.certificatesSecret does not reach the orders pods (alone)" >&2; exit 1; }
! grep -q 'PASS_CERTIFICATES_DIR\|wallet-passes' <<<"$default_render" || { echo "the default render mounts Wallet pass certificates" >&2; exit 1; }
refuse '/walletPasses/certificatesSecret' --set walletPasses.certificatesSecret=Not_A_Name
# Traces: a parent-based ratio unless a values file says otherwise, and the sampler it names.
grep -q 'OTEL_TRACES_SAMPLER: "parentbased_traceidratio"' <<<"$rendered" && grep -q 'OTEL_TRACES_SAMPLER_ARG: "0.1"' <<<"$rendered" ||
  { echo "production render has no parent-based ratio sampler" >&2; exit 1; }
sampled=$("$HELM" template check "$CHART" "${KUBE[@]}" --set config.traceSampling.sampler=parentbased_always_on --set-json config.traceSampling.ratio=0.25)
grep -q 'OTEL_TRACES_SAMPLER: "parentbased_always_on"' <<<"$sampled" && grep -q 'OTEL_TRACES_SAMPLER_ARG: "0.25"' <<<"$sampled" ||
  { echo "config.traceSampling is not what the pods get" >&2; exit 1; }

# Alerts only where the PrometheusRule CRD is served; their rules pass promtool,
# and the dashboard parses and queries only metrics the services declare.
if grep -q '^kind: PrometheusRule$' <<<"$without_crds"; then
  echo "a PrometheusRule was rendered for a cluster without its CRD" >&2; exit 1
fi
grep -q 'grafana_dashboard: "1"' <<<"$rendered" || { echo "production render has no dashboard ConfigMap for the Grafana sidecar" >&2; exit 1; }
PROMTOOL=$("$ROOT/deploy/k8s/install-promtool.sh")
RULES_DIR=$(mktemp -d)
trap 'rm -rf "$RULES_DIR"' EXIT
"$HELM" template check "$CHART" "${KUBE[@]}" --api-versions monitoring.coreos.com/v1/PrometheusRule -f "$CHART/ci/production-values.yaml" \
  --show-only templates/prometheusrule.yaml | python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin)["spec"], sys.stdout)' >"$RULES_DIR/rules.json"
"$PROMTOOL" check rules "$RULES_DIR/rules.json" >/dev/null || { "$PROMTOOL" check rules "$RULES_DIR/rules.json" >&2; exit 1; }
grep -q 'runbook_url: .*/runbooks.md#partnerapiredisgateclosed' < <("$HELM" template check "$CHART" "${KUBE[@]}" --api-versions monitoring.coreos.com/v1/PrometheusRule) ||
  { echo "alerts do not link their runbook sections" >&2; exit 1; }
node "$ROOT/deploy/helm/metric-references.mjs" "$CHART/files/dashboards/partner-api.json" "$RULES_DIR/rules.json" >/dev/null

echo "chart check: $checked values files lint and render; unknown keys, bad schedules and $refused values the API server would refuse are rejected; alert rules pass promtool and the dashboard queries only declared metrics"
