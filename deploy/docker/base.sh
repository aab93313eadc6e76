#!/usr/bin/env bash
# Builds the local base image `partner-api-base:<tag>` without any registry:
# Debian's minbase (debootstrap, the same release as this machine) plus this
# machine's Node.js package, with the unprivileged `node` user (uid 1000), the
# shape of the official node:20-slim. Built once per machine (about a minute
# or two); the rootfs tarball is cached so `podman system reset` costs seconds.
# PATH is set in the image: podman supplies a default, containerd does not.
# `base.sh build` makes the build stage's base instead, `partner-api-build-base:<tag>`:
# the same plus python3, make and g++ for native addons that node-gyp
# compiles at install (argon2). Prints the image name.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PODMAN="$HERE/podman.sh"
CACHE=${PARTNER_API_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/partner-api}/base
. /etc/os-release
NODE_VERSION=$(node -p process.versions.node)
case "${1:-}" in
  "") NAME=partner-api-base INCLUDE=() SUFFIX="" ;;
  build) NAME=partner-api-build-base INCLUDE=(--include=python3,make,g++) SUFFIX="-build" ;;
  *) echo "usage: base.sh [build]" >&2; exit 2 ;;
esac
IMAGE="$NAME:${VERSION_CODENAME}-node${NODE_VERSION}"

if "$PODMAN" image exists "$IMAGE"; then echo "$IMAGE"; exit 0; fi
TARBALL="$CACHE/${VERSION_CODENAME}-node${NODE_VERSION}${SUFFIX}.tar"
if [[ ! -f "$TARBALL" ]]; then
  if ! command -v debootstrap >/dev/null; then
    # shellcheck source=../local/lib.sh
    . "$HERE/../local/lib.sh"
    apt_install debootstrap >&2
  fi
  echo "building the base image $IMAGE with debootstrap (first run on this machine only)" >&2
  mkdir -p "$CACHE"
  ROOTFS=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  trap 'rm -rf "$ROOTFS"' EXIT
  # The mirror is the one apt on this machine already uses (debootstrap's default otherwise).
  debootstrap --variant=minbase "${INCLUDE[@]}" "$VERSION_CODENAME" "$ROOTFS" ${DEBIAN_MIRROR:-} >&2
  # Node.js (with npm) exactly as installed here: the version the tests run on.
  # npm as installed now (it may have been upgraded past the package's own).
  { dpkg -L nodejs | while read -r f; do [[ -f "$f" || -L "$f" ]] && echo "${f#/}"; done | grep -v '^usr/lib/node_modules/npm/'
    (cd / && find usr/lib/node_modules/npm \( -type f -o -type l \)); } > "$ROOTFS.files"
  tar -C / -cf - --no-recursion -T "$ROOTFS.files" | tar -C "$ROOTFS" -xf -
  rm -f "$ROOTFS.files"
  chroot "$ROOTFS" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/sh --create-home node'
  chroot "$ROOTFS" sh -c 'apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/*'
  chroot "$ROOTFS" node -e 'require("assert")(process.versions.node)'
  tar -C "$ROOTFS" --numeric-owner -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi
"$PODMAN" import --change 'CMD ["node"]' --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$TARBALL" "$IMAGE" >&2
echo "$IMAGE"
