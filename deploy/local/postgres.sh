# PostgreSQL 15 from Debian: one cluster under .data/postgres, on
# 127.0.0.1:55432, role `partner` owning database `partner_api`.
# Sourced by infra.sh after lib.sh.
# shellcheck shell=bash
PG_PORT=55432
# shellcheck disable=SC2034 # used by infra.sh
PG_URL="postgres://partner:partner@127.0.0.1:$PG_PORT/partner_api"
PG_BIN=/usr/lib/postgresql/15/bin
PG_LOG="$LOGS/postgres.log"
PG_LINK="$DATA/postgres"

# PostgreSQL refuses to run as root: the Debian package's `postgres` user
# runs it, from / since it may not be allowed into our working directory.
as_postgres() { if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }

# Where the cluster lives: .data/postgres, or where that is a symlink to
# (see pg_choose_dir). Data in $PG_DIR/data, the socket in $PG_DIR.
pg_dir() { if [[ -L "$PG_LINK" ]]; then readlink -f "$PG_LINK"; else echo "$PG_LINK"; fi; }

# pg_choose_dir: the cluster's owner must reach it through every parent
# directory, and the socket path must fit in 107 bytes. When the repo sits
# somewhere the `postgres` user cannot traverse (e.g. under a home directory only its owner can enter, mode
# 700), the cluster goes to a directory of its own under the postgres
# user's home instead, and .data/postgres becomes a symlink to it, so every
# path the scripts and people use stays under .data/.
pg_choose_dir() {
  [[ $(id -u) -eq 0 && ! -L "$PG_LINK" ]] || return 0
  chmod o+x "$DATA" # our own folder; a restrictive umask must not lock postgres out
  if runuser -u postgres -- test -x "$DATA" && ((${#PG_LINK} <= 85)); then return 0; fi
  [[ ! -e "$PG_LINK/data/PG_VERSION" ]] ||
    die "the postgres user cannot reach $PG_LINK (a parent directory is not traversable); move the repo or rm -rf $PG_LINK"
  local home
  home=$(getent passwd postgres | cut -d: -f6)
  local dir
  dir="$home/partner-api-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
  say "postgres cannot traverse $ROOT; keeping the cluster in $dir (linked from .data/postgres)"
  mkdir -p "$dir"
  chown postgres "$dir"
  rm -rf "$PG_LINK"
  ln -s "$dir" "$PG_LINK"
}

postgres_pid() { pid_from "$(pg_dir)/data/postmaster.pid"; }
postgres_running() { pid_is "$(postgres_pid)" postgres; }
postgres_ready() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -d postgres -t 1 >/dev/null 2>&1; }

postgres_start() {
  [[ -x "$PG_BIN/pg_ctl" ]] || apt_install postgresql-15
  if postgres_running; then
    # Alive but maybe still recovering after a crash: wait for connections.
    wait_until 60 "$PG_LOG" PostgreSQL postgres_ready
    say "PostgreSQL running on 127.0.0.1:$PG_PORT"
    return 0
  fi
  port_free "$PG_PORT" PostgreSQL
  pg_choose_dir
  local dir
  dir=$(pg_dir)
  mkdir -p "$dir"
  touch "$PG_LOG"
  if [[ $(id -u) -eq 0 ]]; then chown postgres "$dir"; fi
  # A postmaster killed with SIGKILL leaves its lock files, and until init
  # reaps it (seconds, on some machines) PostgreSQL takes the zombie for a
  # live server. Their pid is no running postgres (checked above): drop
  # them. Orphaned backends still holding shared memory would still be caught.
  rm -f "$dir/data/postmaster.pid" "$dir/.s.PGSQL.$PG_PORT.lock"
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    say "creating the PostgreSQL cluster in $dir/data"
    # Local (socket) logins trust, but the socket is 0700 (below), so only
    # the cluster's owner gets in; TCP always needs the password.
    as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=trust --auth-host=scram-sha-256 >>"$PG_LOG" 2>&1 ||
      { tail -n 20 "$PG_LOG" >&2; die "initdb failed (see $PG_LOG)"; }
  fi
  # Our settings live in a file of their own that postgresql.conf includes,
  # so a manual `pg_ctl restart` keeps them. Durability settings (fsync,
  # synchronous_commit, full_page_writes) stay at their safe defaults: the
  # crash tests rely on them.
  cat >"$dir/data/partner-local.conf" <<CONF
# Written by deploy/local/postgres.sh on every start; edits are lost.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$dir'
unix_socket_permissions = 0700
max_connections = 300
CONF
  grep -q "^include_if_exists = 'partner-local.conf'" "$dir/data/postgresql.conf" ||
    echo "include_if_exists = 'partner-local.conf'" >>"$dir/data/postgresql.conf"
  if [[ $(id -u) -eq 0 ]]; then chown postgres "$dir/data/partner-local.conf" "$dir/data/postgresql.conf"; fi
  # No -l: the server inherits our descriptor on the log file, so the
  # postgres user needs no write access to .data/logs.
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -w -t 60 start </dev/null >>"$PG_LOG" 2>&1 9>&- ||
    { tail -n 30 "$PG_LOG" >&2; die "PostgreSQL did not start (see $PG_LOG)"; }
  # Re-applied on every start so an old cluster matches a fresh one.
  as_postgres "$PG_BIN/psql" -h "$dir" -p "$PG_PORT" -U postgres -d postgres -qAt -v ON_ERROR_STOP=1 \
    >/dev/null 2>>"$PG_LOG" <<'SQL' || { tail -n 10 "$PG_LOG" >&2; die "creating role/database partner failed"; }
SELECT 'CREATE ROLE partner' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'partner') \gexec
ALTER ROLE partner WITH LOGIN NOSUPERUSER CREATEDB PASSWORD 'partner';
SELECT 'CREATE DATABASE partner_api OWNER partner' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'partner_api') \gexec
ALTER DATABASE partner_api OWNER TO partner;
SQL
  say "PostgreSQL ready on 127.0.0.1:$PG_PORT"
}

postgres_stop() {
  postgres_running || return 0
  as_postgres "$PG_BIN/pg_ctl" -D "$(pg_dir)/data" -m fast -w -t 60 stop >/dev/null 2>>"$PG_LOG" ||
    die "PostgreSQL did not stop (see $PG_LOG)"
  say "PostgreSQL stopped"
}

postgres_status() {
  if postgres_running; then echo "postgres: running (127.0.0.1:$PG_PORT, pid $(postgres_pid))"; else echo "postgres: stopped"; fi
}
