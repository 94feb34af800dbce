#!/usr/bin/env bash
# Throwaway MariaDB and PostgreSQL servers for the catalog tests (catalog/).
#
#   scripts/databases.sh start   install what is missing (Debian: mariadb-server, postgresql),
#                                then start both servers on 127.0.0.1 on free ports, data under
#                                the state folder; quick and harmless when they run already
#   scripts/databases.sh env     print the exports of RANGECOPY_TEST_MYSQL_URL and
#                                RANGECOPY_TEST_POSTGRES_URL: eval "$(scripts/databases.sh env)"
#   scripts/databases.sh status  exit 0 when both run
#   scripts/databases.sh stop    stop both and delete their data
#
# The state folder is $RANGECOPY_DB_STATE, by default .testenv/db in the repository. Each
# server gets a user "rangecopy" with a random password allowed to create and drop databases
# (each test makes its own). Run as root, the servers run as the unprivileged user
# rangecopy-db (PostgreSQL refuses root), created when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

state="${RANGECOPY_DB_STATE:-$PWD/.testenv/db}"
dbuser=rangecopy-db
say() { echo "databases: $*" >&2; }

as_db() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$dbuser" -- "$@"; else "$@"; fi
}

pgbin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

install_missing() {
  local missing=()
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
  pgbin >/dev/null || missing+=(postgresql)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    apt-get update -qq
    # The packages' own services stay off (policy-rc.d on containers, masked otherwise): the
    # tests use only the throwaway servers below.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    say "missing: ${missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${missing[*]})"
    exit 1
  fi
}

ensure_user() {
  [ "$(id -u)" = 0 ] || return 0
  id "$dbuser" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$dbuser"
}

# free_port prints a loopback port nothing listens on.
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$(( 20000 + RANDOM % 40000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  say "no free port found"; exit 1
}

# base is where the data lives: the state folder, or (when the unprivileged user cannot reach
# it, as under /root) a folder in /tmp it names.
base() {
  if [ -f "$state/base" ]; then cat "$state/base"; return; fi
  mkdir -p "$state"
  local b="$state/data"
  if [ "$(id -u)" = 0 ] && ! runuser -u "$dbuser" -- test -x "$state" 2>/dev/null; then
    b=$(mktemp -d /tmp/rangecopy-db.XXXXXX)
  fi
  mkdir -p "$b"
  [ "$(id -u)" = 0 ] && chown "$dbuser" "$b"
  echo "$b" >"$state/base"
  echo "$b"
}

mariadb_running() {
  [ -f "$state/mariadb.url" ] && [ -S "$(base)/mariadb.sock" ] &&
    mariadb-admin --no-defaults --socket="$(base)/mariadb.sock" -urangecopy -p"$(cat "$state/password")" ping >/dev/null 2>&1
}

postgres_running() {
  [ -f "$state/postgres.url" ] && as_db "$(pgbin)/pg_ctl" -D "$(base)/postgres" status >/dev/null 2>&1
}

start_mariadb() {
  local b data port pw
  b=$(base); data="$b/mariadb"; pw=$(cat "$state/password")
  if mariadb_running; then return 0; fi
  stop_mariadb
  port=$(free_port)
  as_db mkdir -p "$data"
  as_db mariadb-install-db --no-defaults --datadir="$data" --auth-root-authentication-method=socket \
    --skip-test-db >"$state/mariadb-install.log" 2>&1 || { cat "$state/mariadb-install.log" >&2; exit 1; }
  # Throwaway: no binary log, no flush per commit, a small buffer pool.
  as_db setsid mariadbd --no-defaults --datadir="$data" --socket="$b/mariadb.sock" --port="$port" \
    --bind-address=127.0.0.1 --pid-file="$b/mariadb.pid" --log-error="$b/mariadb.err" \
    --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=64M --innodb-log-file-size=32M \
    --innodb-flush-log-at-trx-commit=0 --max-connections=500 </dev/null >/dev/null 2>&1 &
  for i in $(seq 1 120); do
    if [ -S "$b/mariadb.sock" ] && as_db mariadb-admin --no-defaults --socket="$b/mariadb.sock" ping >/dev/null 2>&1; then break; fi
    [ "$i" = 120 ] && { say "MariaDB did not start in 60 s:"; tail -20 "$b/mariadb.err" >&2; exit 1; }
    sleep 0.5
  done
  # mariadb-install-db gave the OS user that runs the server a socket account with every
  # privilege; the tests' user logs in over TCP with a password.
  as_db mariadb --no-defaults --socket="$b/mariadb.sock" -e "
    CREATE USER IF NOT EXISTS 'rangecopy'@'127.0.0.1' IDENTIFIED BY '$pw';
    GRANT ALL PRIVILEGES ON *.* TO 'rangecopy'@'127.0.0.1';
    CREATE DATABASE IF NOT EXISTS rangecopy;"
  echo "mysql://rangecopy:$pw@127.0.0.1:$port/rangecopy" >"$state/mariadb.url"
  say "MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port"
}

start_postgres() {
  local b data port pw bin
  b=$(base); data="$b/postgres"; pw=$(cat "$state/password"); bin=$(pgbin)
  if postgres_running; then return 0; fi
  stop_postgres
  port=$(free_port)
  as_db sh -c "umask 077; printf '%s\n' '$pw' >'$b/pgpass'"
  as_db "$bin/initdb" -D "$data" -U rangecopy --auth=scram-sha-256 --pwfile="$b/pgpass" -E UTF8 \
    --locale=C >"$state/postgres-install.log" 2>&1 || { cat "$state/postgres-install.log" >&2; exit 1; }
  # Throwaway: no fsync.
  as_db "$bin/pg_ctl" -D "$data" -l "$b/postgres.log" -w -t 60 \
    -o "-p $port -k $b -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { say "PostgreSQL did not start:"; tail -20 "$b/postgres.log" >&2; exit 1; }
  PGPASSWORD="$pw" as_db "$bin/psql" -q -h 127.0.0.1 -p "$port" -U rangecopy -d postgres -c "CREATE DATABASE rangecopy" >/dev/null
  echo "postgres://rangecopy:$pw@127.0.0.1:$port/rangecopy?sslmode=disable" >"$state/postgres.url"
  say "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

stop_mariadb() {
  local b pid
  b=$(base)
  if [ -f "$b/mariadb.pid" ]; then
    pid=$(cat "$b/mariadb.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$b/mariadb" "$b/mariadb.sock" "$b/mariadb.pid" "$state/mariadb.url"
}

stop_postgres() {
  local b bin
  b=$(base); bin=$(pgbin || true)
  if [ -n "$bin" ] && [ -f "$b/postgres/postmaster.pid" ]; then
    as_db "$bin/pg_ctl" -D "$b/postgres" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$b/postgres" "$b/pgpass" "$state/postgres.url"
}

case "${1:-}" in
  start)
    t0=$(date +%s)
    if [ -f "$state/password" ] && mariadb_running && postgres_running; then
      say "already running"; exit 0
    fi
    install_missing
    ensure_user
    mkdir -p "$state"
    [ -f "$state/password" ] || (umask 077; head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$state/password")
    start_mariadb
    start_postgres
    say "started in $(( $(date +%s) - t0 )) s"
    ;;
  env)
    for f in mariadb postgres; do
      [ -f "$state/$f.url" ] || { say "not running: scripts/databases.sh start"; exit 1; }
    done
    echo "export RANGECOPY_TEST_MYSQL_URL='$(cat "$state/mariadb.url")'"
    echo "export RANGECOPY_TEST_POSTGRES_URL='$(cat "$state/postgres.url")'"
    ;;
  status)
    [ -f "$state/password" ] && mariadb_running && postgres_running
    ;;
  stop)
    if [ -d "$state" ]; then
      stop_mariadb
      stop_postgres
      b=$(base)
      case "$b" in "$state"/*) ;; *) rm -rf "$b" ;; esac
      rm -rf "$state"
    fi
    say "stopped"
    ;;
  *)
    echo "usage: $0 start|env|status|stop" >&2; exit 2
    ;;
esac
