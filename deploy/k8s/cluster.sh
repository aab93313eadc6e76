#!/usr/bin/env bash
# A control plane on loopback for testing the chart against a real API
# server: etcd (Debian's etcd-server), kube-apiserver and
# kube-controller-manager v1.31.0 (built by build-kube.sh), with token
# authentication, the Node authorizer and RBAC, and the default admission
# plugins (Pod Security among them) plus NodeRestriction. No node: pods are
# created and stay Pending until deploy/k8s/node.sh adds one.
#   cluster.sh up | down | env
# `up` writes .data/k8s/kubeconfig (admin) and a kubeconfig per component
# (controller-manager, and scheduler, kubelet and kube-proxy for node.sh);
# `down` stops what `up` started (by pid).
set -euo pipefail
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
K8S="$DATA/k8s"
ETCD_PORT=${K8S_ETCD_PORT:-12379}
API_PORT=${K8S_API_PORT:-16443}
KUBECONFIG_FILE="$K8S/kubeconfig"
# The one node's name, when deploy/k8s/node.sh adds it.
# The node's name, which its kubelet's identity carries (node.sh).
NODE_NAME=${K8S_NODE_NAME:-localhost}

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
  # Every component acts with its own identity, which RBAC's bootstrap
  # roles (and the Node authorizer, for the kubelet) already know: the
  # controller-manager also uses the controllers' own service-account
  # credentials.
  : >"$K8S/pki/tokens.csv"
  chmod 600 "$K8S/pki/tokens.csv"
  identity kubeconfig admin admin system:masters
  identity controller-manager.kubeconfig system:kube-controller-manager kcm
  identity scheduler.kubeconfig system:kube-scheduler scheduler
  identity kubelet.kubeconfig "system:node:$NODE_NAME" kubelet system:nodes
  identity kube-proxy.kubeconfig system:kube-proxy kube-proxy

  etcd --name k8s-test --data-dir "$K8S/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "k8s-test=http://127.0.0.1:$((ETCD_PORT + 1))" >"$LOGS/etcd.log" 2>&1 &
  echo $! >"$K8S/etcd.pid"
  wait_until 30 "$LOGS/etcd.log" etcd port_open "$ETCD_PORT"

  "$BIN/kube-apiserver" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
    --cert-dir="$K8S/pki" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --token-auth-file="$K8S/pki/tokens.csv" --authorization-mode=Node,RBAC --anonymous-auth=false \
    --enable-admission-plugins=NodeRestriction \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$K8S/pki/sa.pub" --service-account-signing-key-file="$K8S/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=false \
    --endpoint-reconciler-type=none >"$LOGS/kube-apiserver.log" 2>&1 &
  echo $! >"$K8S/kube-apiserver.pid"
  wait_until 90 "$LOGS/kube-apiserver.log" kube-apiserver api_server_ready

  # Node lifecycle lifts a registering node's not-ready taint once its
  # kubelet reports Ready (node.sh); pod addresses come from the node's CNI
  # configuration, so no node IPAM. No serving port of its own.
  "$BIN/kube-controller-manager" --kubeconfig="$K8S/controller-manager.kubeconfig" \
    --secure-port=0 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$K8S/pki/sa.key" --root-ca-file="$K8S/pki/apiserver.crt" \
    --controllers='*,-nodeipam,-cloud-node-lifecycle,-csrsigning' >"$LOGS/kube-controller-manager.log" 2>&1 &
  echo $! >"$K8S/kube-controller-manager.pid"
  # Ready once it has created the default ServiceAccount of a namespace.
  wait_until 60 "$LOGS/kube-controller-manager.log" kube-controller-manager default_account_exists
  say "control plane up: KUBECONFIG=$KUBECONFIG_FILE"
}

# identity FILE USER NAME [GROUP]: a token for USER (in GROUP) and a
# kubeconfig FILE under .data/k8s that presents it.
identity() {
  local token
  token=$(openssl rand -hex 24)
  printf '%s,%s,%s,%s\n' "$token" "$2" "$3" "${4:-}" >>"$K8S/pki/tokens.csv"
  kubeconfig "$K8S/$1" "$3" "$token"
}

api_server_ready() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz >/dev/null 2>&1; }
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
