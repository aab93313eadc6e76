#!/usr/bin/env bash
# One node for the control plane of cluster.sh, so pods run: Debian's
# containerd (runc) with the CNI bridge and host-local plugins, and
# kubelet, kube-scheduler and kube-proxy (iptables) v1.31.0 built by
# build-kube.sh; cluster DNS from CoreDNS built from its Go module
# (deploy/k8s/coredns). Every server listens on loopback. Pods live on a
# bridge of their own (kube0, 10.244.0.0/24, no route off the machine); the
# one way from a pod to the host is the cluster DNS address, which the host
# turns into CoreDNS on loopback (route_localnet on kube0, as kube-proxy
# itself does for localhost node ports).
#   node.sh up         start the node (after cluster.sh up); ready when the node is
#   node.sh load IMG…  copy podman images into the node's containerd
#   node.sh down       stop it, remove its iptables rules and pod network
#   node.sh build      only build what it runs (once per machine)
# Images stay in containerd's root under the per-machine cache, so a later
# run loads only images it has not seen. See docs/deploy.md.
set -euo pipefail
# Command output is read whole before grep -q searches it: piped, a writer
# cut off by grep's early exit would fail the pipeline under pipefail.
# shellcheck source=../local/lib.sh
. "$(dirname "$0")/../local/lib.sh"
K8S="$DATA/k8s"
NODE="$K8S/node"
CACHE=${PARTNER_API_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/partner-api}
CONTAINERD_ROOT="$CACHE/containerd"
SOCKET="$NODE/containerd.sock"
# localhost: the API server calls a kubelet (logs, exec, port-forward) at
# its node's Hostname address, and this kubelet listens on loopback only.
NODE_NAME=${K8S_NODE_NAME:-localhost}
POD_CIDR=10.244.0.0/24
POD_GATEWAY=10.244.0.1
BRIDGE=kube0
CLUSTER_DNS=10.96.0.10
DNS_PORT=${K8S_DNS_PORT:-11053}
DNS_READY_PORT=${K8S_DNS_READY_PORT:-11054}
KUBELET_PORT=${K8S_KUBELET_PORT:-10250}
KUBELET_HEALTH_PORT=${K8S_KUBELET_HEALTH_PORT:-10248}
PROXY_HEALTH_PORT=${K8S_PROXY_HEALTH_PORT:-10256}
PROXY_METRICS_PORT=${K8S_PROXY_METRICS_PORT:-10249}
COREDNS_VERSION=v1.11.3
# The iptables rule that sends the pods' DNS to CoreDNS on loopback (udp and tcp).
dns_rule() { echo "PREROUTING -i $BRIDGE -d $CLUSTER_DNS -p $1 --dport 53 -j DNAT --to-destination 127.0.0.1:$DNS_PORT"; }

ctr() { command ctr --address "$SOCKET" --namespace k8s.io "$@"; }
kubectl() { "$BIN/kubectl" --kubeconfig "$K8S/kubeconfig" "$@"; }

up() {
  [[ -f "$K8S/kubeconfig" ]] || die "no control plane: run deploy/k8s/cluster.sh up first"
  command -v containerd >/dev/null && [[ -x /usr/lib/cni/bridge ]] && command -v conntrack >/dev/null ||
    apt_install containerd containernetworking-plugins conntrack
  BIN=$("$ROOT/deploy/k8s/build-kube.sh" kubelet kube-scheduler kube-proxy kubectl)
  local coredns
  coredns=$(coredns_binary)
  for port in "$KUBELET_PORT" "$KUBELET_HEALTH_PORT" "$PROXY_HEALTH_PORT" "$PROXY_METRICS_PORT" "$DNS_PORT" "$DNS_READY_PORT"; do
    port_free "$port" "the node"
  done
  rm -rf "$NODE" && mkdir -p "$NODE/cni" "$NODE/pod-logs" "$CONTAINERD_ROOT"
  pod_namespaces >"$NODE/netns-before"
  local pause
  pause=$(pause_image)

  start_containerd "$pause"
  grep -qxF "$pause" <<<"$(ctr images ls -q)" || load_archive "$pause" pause_archive
  start_kubelet
  "$BIN/kube-scheduler" --kubeconfig="$K8S/scheduler.kubeconfig" --leader-elect=false --secure-port=0 \
    >"$LOGS/kube-scheduler.log" 2>&1 &
  echo $! >"$NODE/kube-scheduler.pid"
  start_kube_proxy
  start_dns "$coredns"
  wait_until 120 "$LOGS/kubelet.log" "the node $NODE_NAME" node_ready
  say "node up: $NODE_NAME (containerd, kubelet, kube-scheduler, kube-proxy, CoreDNS)"
}

start_containerd() {
  # restrict_oom_score_adj: the VM refuses the negative OOM score runc would
  # give the pod sandbox (runc then fails with "can't get final child's PID
  # from pipe"), so scores are kept at or above containerd's own.
  cat >"$NODE/containerd.toml" <<TOML
version = 2
root = "$CONTAINERD_ROOT"
state = "$NODE/containerd-state"
[grpc]
  address = "$SOCKET"
[ttrpc]
  address = "$SOCKET.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$NODE/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$1"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$NODE/cni"
TOML
  # The pod network: one bridge, addresses from host-local, hairpin so a pod
  # reaches itself through its own Service. No masquerade: nothing leaves.
  cat >"$NODE/cni/10-pods.conflist" <<JSON
{ "cniVersion": "1.0.0", "name": "partner-pods",
  "plugins": [
    { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$NODE/ipam",
                "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$POD_GATEWAY" }]],
                "routes": [{ "dst": "10.96.0.0/16" }] } },
    { "type": "portmap", "capabilities": { "portMappings": true } } ] }
JSON
  containerd --config "$NODE/containerd.toml" >"$LOGS/containerd.log" 2>&1 &
  echo $! >"$NODE/containerd.pid"
  wait_until 30 "$LOGS/containerd.log" containerd containerd_ready
}

start_kubelet() {
  # Loopback only, and the API server is its only caller (logs,
  # port-forward), so anonymous requests are allowed there.
  cat >"$NODE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTH_PORT
authentication: { anonymous: { enabled: true }, webhook: { enabled: false } }
authorization: { mode: AlwaysAllow }
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCKET
clusterDNS: [$CLUSTER_DNS]
clusterDomain: cluster.local
podLogsDir: $NODE/pod-logs
failSwapOn: false
# A shared build machine: never evict or collect images for disk or memory.
evictionHard: { memory.available: "0%", nodefs.available: "0%", imagefs.available: "0%" }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
YAML
  "$BIN/kubelet" --config="$NODE/kubelet.yaml" --kubeconfig="$K8S/kubelet.kubeconfig" \
    --root-dir="$NODE/kubelet" --hostname-override="$NODE_NAME" \
    >"$LOGS/kubelet.log" 2>&1 &
  echo $! >"$NODE/kubelet.pid"
}

start_kube_proxy() {
  # conntrack settings 0: leave the host's sysctls as they are.
  cat >"$NODE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: "$K8S/kube-proxy.kubeconfig" }
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:$PROXY_HEALTH_PORT
metricsBindAddress: 127.0.0.1:$PROXY_METRICS_PORT
iptables: { localhostNodePorts: false }
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
YAML
  "$BIN/kube-proxy" --config="$NODE/kube-proxy.yaml" >"$LOGS/kube-proxy.log" 2>&1 &
  echo $! >"$NODE/kube-proxy.pid"
}

start_dns() {
  cat >"$NODE/Corefile" <<COREFILE
.:$DNS_PORT {
  bind 127.0.0.1
  errors
  ready 127.0.0.1:$DNS_READY_PORT
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $K8S/kubeconfig test
    pods insecure
  }
  cache 5
}
COREFILE
  "$1" -conf "$NODE/Corefile" >"$LOGS/coredns.log" 2>&1 &
  echo $! >"$NODE/coredns.pid"
  wait_until 30 "$LOGS/coredns.log" CoreDNS curl -fs -o /dev/null "http://127.0.0.1:$DNS_READY_PORT/ready"
  # The bridge appears with the first pod; make it now so the rule has its address.
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge
  grep -qF " $POD_GATEWAY/" <<<"$(ip addr show dev "$BRIDGE")" || ip addr add "$POD_GATEWAY/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  sysctl -qw "net.ipv4.conf.$BRIDGE.route_localnet=1"
  for proto in udp tcp; do
    # shellcheck disable=SC2046
    iptables -t nat -C $(dns_rule "$proto") 2>/dev/null || iptables -t nat -A $(dns_rule "$proto")
  done
}

containerd_ready() { ctr version >/dev/null 2>&1; }
node_ready() {
  [[ $(kubectl get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]]
}

# CoreDNS with the few plugins deploy/k8s/coredns names, built once per machine.
coredns_binary() {
  local out="$CACHE/coredns-$COREDNS_VERSION/coredns"
  if [[ ! -x "$out" ]]; then
    say "building CoreDNS $COREDNS_VERSION from its Go module (first run on this machine only)"
    mkdir -p "$(dirname "$out")"
    (cd "$ROOT/deploy/k8s/coredns" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$out.tmp" .) >&2
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# The pod sandbox's image: Kubernetes' own pause.c (from the module build-kube.sh
# fetched), compiled static; no registry holds one we can reach.
pause_image() { echo "localhost/partner-api-pause:$(sha256sum "$(pause_source)" | cut -c1-12)"; }
pause_source() { echo "$CACHE/kubernetes-v1.31.0/src/build/pause/linux/pause.c"; }
pause_archive() {
  local dir
  dir=$(mktemp -d)
  gcc -Os -static -DVERSION=v3.10-partner -o "$dir/pause" "$(pause_source)"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$dir/Containerfile"
  "$ROOT/deploy/docker/podman.sh" build --quiet -t "$(pause_image)" "$dir" >/dev/null
  "$ROOT/deploy/docker/podman.sh" save --format docker-archive "$(pause_image)"
  rm -rf "$dir"
}

# load_archive NAME COMMAND...: import the docker-archive COMMAND writes (it
# holds NAME). Written to a file first, so a save that fails is seen as a
# failure rather than imported as nothing; tried twice (a CI run once found
# the image missing after an import that reported no error).
load_archive() {
  local name=$1 archive attempt
  shift
  archive=$(mktemp)
  for attempt in 1 2; do
    say "loading $name into the node's containerd"
    if "$@" >"$archive" && [[ -s $archive ]] && ctr images import - <"$archive" >/dev/null && grep -qxF "$name" <<<"$(ctr images ls -q)"; then
      rm -f "$archive"
      return 0
    fi
    say "containerd did not get $name (attempt $attempt of 2)"
  done
  rm -f "$archive"
  die "containerd did not get $name"
}

# load IMAGE...: podman images into containerd, once per image id (noted in
# the root's loaded-images file). Names without a registry are also tagged
# docker.io/library/… (what the kubelet asks for when a pod names
# `partner-api:tag`).
load() {
  local image id name loaded="$CONTAINERD_ROOT/loaded-images"
  touch "$loaded"
  for image in "$@"; do
    image="localhost/${image#localhost/}"
    id=$("$ROOT/deploy/docker/podman.sh" image inspect --format '{{.Id}}' "$image")
    name=${image#localhost/}
    [[ $name == */* ]] || name="docker.io/library/$name"
    if grep -qxF "$name $id" "$loaded" && grep -qxF "$name" <<<"$(ctr images ls -q)"; then continue; fi
    # Other tags of the same image (earlier revisions) are not run again:
    # drop them, so the cache holds one copy of each image.
    local stale
    for stale in $(ctr images ls -q | grep -F -e "${image%:*}:" -e "${name%:*}:" | grep -vxF -e "$image" -e "$name"); do
      ctr images rm --sync "$stale" >/dev/null
    done
    grep -v "^${name%:*}:" "$loaded" >"$loaded.tmp" || true
    mv "$loaded.tmp" "$loaded"
    load_archive "$image" "$ROOT/deploy/docker/podman.sh" save --format docker-archive "$image"
    ctr images tag --force "$image" "$name" >/dev/null
    echo "$name $id" >>"$loaded"
  done
}

down() {
  BIN=$("$ROOT/deploy/k8s/build-kube.sh" kubelet kube-proxy kubectl)
  # Pods first, through the API while the kubelet still runs, so it tears
  # down their containers and network: cordon, then delete every pod here.
  if pid_alive "$(pid_from "$NODE/kubelet.pid")" && kubectl get node "$NODE_NAME" >/dev/null 2>&1; then
    kubectl cordon "$NODE_NAME" >/dev/null 2>&1 || true
    kubectl delete pods -A --field-selector "spec.nodeName=$NODE_NAME" --grace-period=2 --timeout=60s >/dev/null 2>&1 || true
  fi
  stop_pid kubelet "$(pid_from "$NODE/kubelet.pid")" 20
  # Whatever is left (a run that was interrupted) goes through containerd.
  if pid_alive "$(pid_from "$NODE/containerd.pid")"; then
    for task in $(ctr tasks ls -q 2>/dev/null); do ctr tasks kill -s KILL "$task" >/dev/null 2>&1 || true; done
    sleep 1
    for task in $(ctr tasks ls -q 2>/dev/null); do ctr tasks delete -f "$task" >/dev/null 2>&1 || true; done
    for container in $(ctr containers ls -q 2>/dev/null); do ctr containers delete "$container" >/dev/null 2>&1 || true; done
  fi
  stop_pid kube-proxy "$(pid_from "$NODE/kube-proxy.pid")" 10
  stop_pid kube-scheduler "$(pid_from "$NODE/kube-scheduler.pid")" 10
  stop_pid coredns "$(pid_from "$NODE/coredns.pid")" 10
  stop_pid containerd "$(pid_from "$NODE/containerd.pid")" 20
  remove_host_rules
  # Network namespaces of sandboxes that were never torn down (the ones
  # this node made: not there when it started), then the bridge.
  if [[ -f "$NODE/netns-before" ]]; then
    comm -13 "$NODE/netns-before" <(pod_namespaces) | xargs -r -n1 ip netns delete 2>/dev/null || true
  fi
  ip link del "$BRIDGE" 2>/dev/null || true
  if [[ -d "$NODE" ]]; then
    grep -F " $NODE/" /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf "$NODE"
  fi
}

pod_namespaces() { ip netns list 2>/dev/null | awk '$1 ~ /^cni-/ { print $1 }' | sort; }

# kube-proxy's rules (its own --cleanup), the kubelet's KUBE-* chains (the
# localnet firewall and canaries, which nothing else removes), and the DNS rule.
remove_host_rules() {
  "$BIN/kube-proxy" --cleanup >>"$LOGS/kube-proxy.log" 2>&1 || true
  local table chain
  for table in filter nat mangle; do
    iptables -t "$table" -S 2>/dev/null | awk '$1 == "-A" && $0 ~ / -j KUBE-/' | cut -d' ' -f2- |
      while read -r rule; do
        # shellcheck disable=SC2086
        iptables -t "$table" -D $rule 2>/dev/null || true
      done
    for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ { print $2 }'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^KUBE-/ { print $2 }'); do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
  for proto in udp tcp; do
    # shellcheck disable=SC2046
    while iptables -t nat -C $(dns_rule "$proto") 2>/dev/null; do iptables -t nat -D $(dns_rule "$proto"); done
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  load) shift; load "$@" ;;
  build) "$ROOT/deploy/k8s/build-kube.sh" kubelet kube-scheduler kube-proxy >/dev/null; coredns_binary >/dev/null ;;
  *) die "usage: $0 up|load IMAGE...|down|build" ;;
esac
