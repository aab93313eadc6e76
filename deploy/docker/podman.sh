#!/usr/bin/env bash
# podman with the project's containers.conf (runc, cgroupfs, file events,
# modest ulimits). Every script runs podman through this.
# Installs Debian's podman and runc when missing (crun fails on this kind of host's cgroups).
if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  # shellcheck source=../local/lib.sh
  . "$(dirname "$0")/../local/lib.sh"
  apt_install podman runc >&2
fi
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "$0")" && pwd)/containers.conf}
exec podman "$@"
