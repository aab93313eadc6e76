# PostgreSQL 15 from Debian, one cluster under .data/postgres on 127.0.0.1:55432.
PG_PORT=55432
PG_URL="postgres://partner:partner@127.0.0.1:$PG_PORT/partner_api"
PG_DIR="$DATA/postgres"

pg_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
  [[ -n "$dir" ]] && echo "$dir"
}

# PostgreSQL refuses to run as root: the Debian package's `postgres` user runs it.
as_postgres() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

postgres_running() { [[ -f "$PG_DIR/data/postmaster.pid" ]] && as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; }

postgres_start() {
  [[ -n "$(pg_bin)" ]] || apt_install postgresql
  local bin
  bin=$(pg_bin)
  if postgres_running; then return 0; fi
  mkdir -p "$PG_DIR"
  touch "$LOGS/postgres.log"
  if [[ $(id -u) -eq 0 ]]; then chown postgres "$PG_DIR" "$LOGS/postgres.log"; fi
  # The cluster must be reachable by its owner: every parent directory needs o+x.
  if [[ ! -f "$PG_DIR/data/PG_VERSION" ]]; then
    # The superuser is reached only over the cluster's own socket; TCP needs a password.
    as_postgres "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      >>"$LOGS/postgres.log" 2>&1 || die "initdb failed (see $LOGS/postgres.log)"
  fi
  as_postgres "$bin/pg_ctl" -D "$PG_DIR/data" -l "$LOGS/postgres.log" -w -t 60 \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_DIR -c max_connections=300" start >/dev/null ||
    die "PostgreSQL did not start (see $LOGS/postgres.log)"
  as_postgres "$bin/psql" -h "$PG_DIR" -p "$PG_PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 <<'SQL' >/dev/null
SELECT 'CREATE ROLE partner LOGIN SUPERUSER PASSWORD ''partner'''
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'partner') \gexec
SELECT 'CREATE DATABASE partner_api OWNER partner'
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'partner_api') \gexec
SQL
  say "PostgreSQL ready on 127.0.0.1:$PG_PORT"
}

postgres_stop() {
  if postgres_running; then
    as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null
    say "PostgreSQL stopped"
  fi
}
