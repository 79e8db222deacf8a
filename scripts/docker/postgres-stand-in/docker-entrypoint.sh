#!/usr/bin/env bash
# What the official postgres image's entrypoint does, for the parts docker-compose.yml uses: on an empty data
# directory, initdb with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD (required unless
# POSTGRES_HOST_AUTH_METHOD=trust), connections from other hosts with POSTGRES_HOST_AUTH_METHOD (default
# scram-sha-256), POSTGRES_DB (default the user's name) created; then PostgreSQL as the postgres user, listening on
# every address, its socket in /var/run/postgresql where pg_isready looks. Not done: /docker-entrypoint-initdb.d,
# *_FILE variables, POSTGRES_INITDB_WALDIR.
set -Eeuo pipefail

if [[ ${1:-} == -* ]]; then set -- postgres "$@"; fi
if [[ ${1:-} != postgres ]]; then exec "$@"; fi

if [[ $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  chmod 3777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [[ ! -s $PGDATA/PG_VERSION ]]; then
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [[ -z ${POSTGRES_PASSWORD:-} && $auth != trust ]]; then
    echo 'Error: the database is uninitialized and POSTGRES_PASSWORD is not set; set it to a password for the' \
      'superuser (or POSTGRES_HOST_AUTH_METHOD=trust to allow every connection without one)' >&2
    exit 1
  fi
  password=(--pwfile=/dev/stdin)
  [[ -n ${POSTGRES_PASSWORD:-} ]] || password=()
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of arguments, as in the official image
  initdb --username="$user" "${password[@]}" ${POSTGRES_INITDB_ARGS:-} <<<"${POSTGRES_PASSWORD:-}" >/dev/null
  printf "listen_addresses = '*'\nunix_socket_directories = '/var/run/postgresql'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
  # A server on the socket only while the database is created, as the official entrypoint runs it.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start >/dev/null
  if [[ $database != postgres ]]; then
    psql -v ON_ERROR_STOP=1 -q --username "$user" --no-password --dbname postgres --set db="$database" \
      <<<'CREATE DATABASE :"db"' >/dev/null
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
