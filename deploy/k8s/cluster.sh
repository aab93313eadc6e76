#!/usr/bin/env bash
# A control plane on loopback for testing the chart against a real API
# server: etcd (Debian's etcd-server), kube-apiserver and
# kube-controller-manager v1.31.0 (built by build-kube.sh), with token
# authentication, RBAC and the default admission plugins (Pod Security
# among them). No kubelet: pods are created and stay Pending.
#   cluster.sh up | down | env
# `up` writes .data/k8s/kubeconfig; `down` stops what `up` started (by pid).
set -euo pipefail
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
K8S="$DATA/k8s"
ETCD_PORT=${K8S_ETCD_PORT:-12379}
API_PORT=${K8S_API_PORT:-16443}
KUBECONFIG_FILE="$K8S/kubeconfig"

up() {
  command -v etcd >/dev/null || apt_install etcd-server
  BIN=$("$ROOT/deploy/k8s/build-kube.sh")
  mkdir -p "$K8S/pki"
  port_free "$ETCD_PORT" etcd
  port_free "$API_PORT" kube-apiserver
  # Fresh state every time: the test owns this cluster.
  rm -rf "$K8S/etcd"
  if [[ ! -f "$K8S/pki/sa.key" ]]; then
    openssl genrsa -out "$K8S/pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$K8S/pki/sa.key" -pubout -out "$K8S/pki/sa.pub" 2>/dev/null
  fi
  local admin controller
  admin=$(openssl rand -hex 24)
  controller=$(openssl rand -hex 24)
  # The controller-manager acts with its own identity, bound by RBAC's
  # bootstrap role system:kube-controller-manager (plus the controllers'
  # own roles, which it uses through its service-account credentials).
  printf '%s,admin,admin,system:masters\n%s,system:kube-controller-manager,kcm\n' "$admin" "$controller" >"$K8S/pki/tokens.csv"
  chmod 600 "$K8S/pki/tokens.csv"

  etcd --name k8s-test --data-dir "$K8S/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "k8s-test=http://127.0.0.1:$((ETCD_PORT + 1))" >"$LOGS/etcd.log" 2>&1 &
  echo $! >"$K8S/etcd.pid"
  wait_until 30 "$LOGS/etcd.log" etcd port_open "$ETCD_PORT"

  "$BIN/kube-apiserver" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
    --cert-dir="$K8S/pki" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --token-auth-file="$K8S/pki/tokens.csv" --authorization-mode=RBAC --anonymous-auth=false \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$K8S/pki/sa.pub" --service-account-signing-key-file="$K8S/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=false \
    --endpoint-reconciler-type=none >"$LOGS/kube-apiserver.log" 2>&1 &
  echo $! >"$K8S/kube-apiserver.pid"

  kubeconfig "$KUBECONFIG_FILE" admin "$admin"
  kubeconfig "$K8S/controller-manager.kubeconfig" kcm "$controller"
  wait_until 90 "$LOGS/kube-apiserver.log" kube-apiserver \
    curl -fsk -o /dev/null -H "Authorization: Bearer $admin" "https://127.0.0.1:$API_PORT/readyz"

  # No nodes, so none of the node controllers; no serving port of its own.
  "$BIN/kube-controller-manager" --kubeconfig="$K8S/controller-manager.kubeconfig" \
    --secure-port=0 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$K8S/pki/sa.key" --root-ca-file="$K8S/pki/apiserver.crt" \
    --controllers='*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-csrsigning' >"$LOGS/kube-controller-manager.log" 2>&1 &
  echo $! >"$K8S/kube-controller-manager.pid"
  # Ready once it has created the default ServiceAccount of a namespace.
  wait_until 60 "$LOGS/kube-controller-manager.log" kube-controller-manager default_account_exists
  say "control plane up: KUBECONFIG=$KUBECONFIG_FILE"
}

default_account_exists() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" get serviceaccount default -n default >/dev/null 2>&1; }

# kubeconfig FILE USER TOKEN: the API server's serving certificate is
# self-signed by it at start (--cert-dir), so trust exactly that one.
kubeconfig() {
  cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster: { server: "https://127.0.0.1:$API_PORT", certificate-authority: "$K8S/pki/apiserver.crt" }
users:
  - name: $2
    user: { token: "$3" }
contexts:
  - name: test
    context: { cluster: test, user: $2 }
current-context: test
YAML
  chmod 600 "$1"
}

down() {
  stop_pid kube-controller-manager "$(pid_from "$K8S/kube-controller-manager.pid")" 10
  stop_pid kube-apiserver "$(pid_from "$K8S/kube-apiserver.pid")" 20
  stop_pid etcd "$(pid_from "$K8S/etcd.pid")" 10
  rm -f "$K8S"/*.pid
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) echo "KUBECONFIG=$KUBECONFIG_FILE" ;;
  *) die "usage: $0 up|down|env" ;;
esac
