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

# The default render must hold every kind the chart promises.
rendered=$("$HELM" template check "$CHART" "${KUBE[@]}" -f "$CHART/ci/production-values.yaml")
for kind in Deployment Service HorizontalPodAutoscaler PodDisruptionBudget NetworkPolicy ServiceMonitor Job ConfigMap; do
  grep -q "^kind: $kind$" <<<"$rendered" || { echo "production render has no $kind" >&2; exit 1; }
done
grep -q 'WEBHOOK_RETRY_SCHEDULE: "1m,5m,30m,2h,5h,8h,8h"' <<<"$rendered" || { echo "production render has no webhook retry schedule" >&2; exit 1; }

echo "chart check: $checked values files lint and render; unknown keys and bad schedules rejected"
