#!/usr/bin/env bash
# Installs the chart on a real API server (deploy/k8s/cluster.sh) for every
# values file, each in a namespace of its own with Pod Security `restricted`
# enforced, and proves what the cluster made of it; then uninstalls, stops
# the control plane, and runs the project image as the chart runs it.
# Exits non-zero on the first failure. See docs/deploy.md.
set -euo pipefail
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
CHART="$ROOT/charts/partner-api"
HELM=$("$ROOT/deploy/helm/install-helm.sh")
BIN=$("$ROOT/deploy/k8s/build-kube.sh")
export KUBECONFIG="$DATA/k8s/kubeconfig"
kubectl() { "$BIN/kubectl" "$@"; }
fail() { say "k8s test FAILED: $*"; exit 1; }

cleanup() { "$ROOT/deploy/k8s/cluster.sh" down || true; }
trap cleanup EXIT
"$ROOT/deploy/k8s/cluster.sh" up

# poll SECONDS WHAT COMMAND...: retry until COMMAND succeeds.
poll() {
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do ((SECONDS < deadline)) || fail "$what (waited ${seconds}s)"; sleep 0.5; done
}
count() { kubectl get "$@" -o name 2>/dev/null | grep -c . || true; }
has_pod_for() { [[ $(count pods -n "$1" -l "$2") -ge 1 ]]; }
leftovers() { kubectl get deployments,replicasets,pods,services,hpa,pdb,networkpolicies,configmaps,serviceaccounts,jobs,servicemonitors \
  -n "$1" -l app.kubernetes.io/instance=partner-api -o name 2>/dev/null; }
nothing_left() { [[ -z $(leftovers "$1") ]]; }
# The release's rendered manifest, as helm sent it.
manifest_kinds() { "$HELM" get manifest "$1" -n "$2" | sed -n 's/^kind: //p' | sort | uniq -c; }

installed=0
for values in "$CHART"/ci/*-values.yaml "$ROOT"/deploy/values/*.yaml; do
  name=$(basename "$values" .yaml); name=${name%-values}
  # chart-ci-production for charts/partner-api/ci/production-values.yaml, chart-values-production for deploy/values/production.yaml.
  [[ $values == "$CHART"/ci/* ]] && ns="chart-ci-$name" || ns="chart-values-$name"
  release=partner-api
  say "== $ns: ${values#"$ROOT/"}"
  kubectl create namespace "$ns" >/dev/null
  kubectl label namespace "$ns" pod-security.kubernetes.io/enforce=restricted \
    pod-security.kubernetes.io/enforce-version=v1.31 pod-security.kubernetes.io/warn=restricted >/dev/null
  # The Secret the SRE creates beforehand (see the chart's README).
  secret=$(sed -n 's/^infrastructureSecret: *//p' "$values"); secret=${secret:-partner-api-infrastructure}
  kubectl create secret generic "$secret" -n "$ns" --from-literal=DATABASE_URL=postgres://db/partner \
    --from-literal=REDIS_URL=redis://redis:6379 --from-literal=KAFKA_BROKERS=kafka:9092 \
    --from-literal=CURSOR_SECRET=0123456789abcdef0123456789abcdef --from-literal=SMTP_URL=smtp://mail:587 \
    --from-literal=CHANNEL_TOKEN_SECRET=0123456789abcdef0123456789abcdef \
    --from-literal=TICKET_PAGE_SECRET=0123456789abcdef0123456789abcdef \
    --from-literal=WAITING_ROOM_PASS_SECRET=0123456789abcdef0123456789abcdef \
    --from-literal=DASHBOARD_SECRET=0123456789abcdef0123456789abcdef >/dev/null
  args=(-n "$ns" -f "$values")

  # Step 1, the pre-install hook as helm runs it: only the hook's objects,
  # before any of the release's own. The controller-manager must be able
  # to create the Job's pod (it could not while the Job named the release's
  # ServiceAccount, which does not exist yet: the first-install hang).
  # Rendered against this cluster (its version and APIs), as install would.
  rendered=$("$HELM" template "$release" "$CHART" "${args[@]}" --validate) || fail "$ns: helm template"
  hooks=$(awk 'BEGIN { RS = "\n---\n" } /helm.sh\/hook:/ { print "---"; print }' <<<"$rendered")
  if grep -q '^kind: Job$' <<<"$rendered"; then
    [[ -n "$hooks" ]] || fail "$ns: the migration Job is not a hook"
    kubectl apply -n "$ns" -f - <<<"$hooks" >/dev/null
    job=$(kubectl get jobs -n "$ns" -o name)
    [[ -n "$job" ]] || fail "$ns: no migration Job"
    poll 60 "$ns: the controller-manager did not create the migration Job's pod" has_pod_for "$ns" app.kubernetes.io/name=migrate
    say "   hook $job: pod created"
    kubectl delete -n "$ns" --wait=true -f - <<<"$hooks" >/dev/null
  fi

  # Step 2, everything else (without a kubelet the hook would never finish).
  "$HELM" install "$release" "$CHART" "${args[@]}" --no-hooks >/dev/null || fail "$ns: helm install"
  manifest=$("$HELM" get manifest "$release" -n "$ns")
  # Every object helm sent is there.
  found=$(kubectl get -n "$ns" -f - -o name 2>&1 <<<"$manifest") || fail "$ns: $found"
  kinds=$(manifest_kinds "$release" "$ns")
  for kind in Deployment Service ConfigMap ServiceAccount; do
    grep -q " $kind$" <<<"$kinds" || fail "$ns: no $kind"
  done
  for resource in deployments services horizontalpodautoscalers poddisruptionbudgets networkpolicies; do
    printf '   %-24s %s\n' "$resource" "$(count "$resource" -n "$ns")" >&2
  done
  # Each Deployment gets a ReplicaSet and pods (admitted under `restricted`).
  for deploy in $(kubectl get deployments -n "$ns" -o jsonpath='{.items[*].metadata.name}'); do
    component=${deploy#"$release-"}
    poll 60 "$ns: no pods for $deploy" has_pod_for "$ns" "app.kubernetes.io/name=$component"
    [[ $(count replicasets -n "$ns" -l "app.kubernetes.io/name=$component") -ge 1 ]] || fail "$ns: no ReplicaSet for $deploy"
  done
  # The five services and the organiser dashboard, in every values file.
  [[ $(count deployments -n "$ns") -eq 6 ]] || fail "$ns: expected 6 Deployments (the five services and the dashboard)"
  kubectl get deployment "$release-dashboard" -n "$ns" >/dev/null 2>&1 || fail "$ns: no dashboard Deployment"
  say "   every Deployment has a ReplicaSet and pods"
  installed=$((installed + 1))
done

# Values that name an HPA, PDB or NetworkPolicy produced them.
[[ $(count horizontalpodautoscalers -n chart-values-production) -eq 6 ]] || fail "deploy/values/production.yaml: expected 6 HPAs"
[[ $(count poddisruptionbudgets -n chart-values-production) -eq 6 ]] || fail "deploy/values/production.yaml: expected 6 PDBs"
[[ $(count networkpolicies -n chart-values-production) -eq 6 ]] || fail "deploy/values/production.yaml: expected 6 NetworkPolicies"

# None of the installs above met the Prometheus Operator's CRDs, and none made
# a ServiceMonitor. With the CRDs (from the operator's Go module), the
# production values get one per component, accepted by the CRD's schema.
[[ $(count servicemonitors -A) -eq 0 ]] || fail "a ServiceMonitor exists without its CRD"
crds=$("$ROOT/deploy/k8s/crds.sh") || fail "no Prometheus Operator CRDs (run make k8s-tools once with network)"
for kind in servicemonitors prometheusrules; do
  kubectl create -f "$crds/monitoring.coreos.com_$kind.yaml" >/dev/null
  kubectl wait --for condition=established --timeout 60s "crd/$kind.monitoring.coreos.com" >/dev/null
done
ns=chart-monitoring
kubectl create namespace "$ns" >/dev/null
kubectl create secret generic partner-api-production-infrastructure -n "$ns" --from-literal=DATABASE_URL=postgres://db/partner >/dev/null
"$HELM" install partner-api "$CHART" -n "$ns" -f "$ROOT/deploy/values/production.yaml" --no-hooks >/dev/null || fail "$ns: helm install"
[[ $(count servicemonitors -n "$ns") -eq 6 ]] || fail "$ns: expected 6 ServiceMonitors with the operator's CRD"
say "== with the Prometheus Operator's CRDs: 6 ServiceMonitors; without them: none, and the release installs"

# A change to the infrastructure Secret rolls the pods on the next upgrade.
ns=chart-ci-default
before=$(kubectl get deployment partner-api-gateway -n "$ns" -o jsonpath='{.spec.template.metadata.annotations.checksum/infrastructure}')
kubectl patch secret partner-api-infrastructure -n "$ns" -p '{"stringData":{"REDIS_URL":"redis://redis-2:6379"}}' >/dev/null
"$HELM" upgrade partner-api "$CHART" -n "$ns" --reuse-values --no-hooks >/dev/null
after=$(kubectl get deployment partner-api-gateway -n "$ns" -o jsonpath='{.spec.template.metadata.annotations.checksum/infrastructure}')
[[ -n "$before" && "$before" != "$after" ]] || fail "a changed infrastructure Secret did not change the pods' checksum"
poll 60 "the Secret change did not start a new ReplicaSet" \
  bash -c "[[ \$('$BIN/kubectl' get replicasets -n $ns -l app.kubernetes.io/name=gateway -o name | wc -l) -ge 2 ]]"
say "== a changed infrastructure Secret rolled the gateway (new ReplicaSet)"

# Uninstall cleanly: nothing of the release is left, namespaces go away.
for ns in $(kubectl get namespaces -o name | sed -n 's|^namespace/\(chart-.*\)|\1|p'); do
  "$HELM" uninstall partner-api -n "$ns" --wait >/dev/null || fail "$ns: helm uninstall"
  # ReplicaSets and pods go through the garbage collector, a moment later.
  poll 60 "$ns: objects of the release left after uninstall" nothing_left "$ns"
  kubectl delete namespace "$ns" --wait=false >/dev/null
done
poll 120 "namespaces were not removed" bash -c "! '$BIN/kubectl' get namespaces -o name | grep -q '^namespace/chart-'"
say "k8s test: $installed values files installed on kube-apiserver $("$BIN/kube-apiserver" --version | cut -d' ' -f2), objects, hook pod, ReplicaSets and pods proven; uninstalled"
