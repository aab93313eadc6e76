#!/usr/bin/env bash
# podman with the project's containers.conf (runc, cgroupfs, file events,
# modest ulimits). Every script runs podman through this.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$(cd "$(dirname "$0")" && pwd)/containers.conf}
exec podman "$@"
