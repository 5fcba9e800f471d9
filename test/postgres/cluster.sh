# shellcheck shell=bash
# test/postgres/cluster.sh - throw-away PostgreSQL clusters for the tests.
#
# Never the system's default cluster: each cluster lives in its own temporary
# directory (data/, its unix socket, its log), listens on 127.0.0.1 on a free
# port and on that socket only, trusts local connections (except role
# authd_pw on TCP, which needs its password: PGPASSFILE/PGPASSWORD tests), and
# is removed afterwards. As root the server runs as the unprivileged Debian
# `postgres` user (PostgreSQL refuses to run as root).
#
# Source it for the functions, or run it:
#   cluster.sh fixture-start STATEFILE   start one cluster, write its
#                                        PG_TEST_DIR / PG_TEST_PORT to STATEFILE
#   cluster.sh fixture-stop STATEFILE    stop it and remove it (and STATEFILE)
# (CTest's FIXTURES_SETUP/FIXTURES_CLEANUP tests postgres.cluster_start/stop
# do exactly this: one cluster per CTest run, see test/CMakeLists.txt.)
#
# Functions
#   pg_cluster_new [DIR]      initdb a cluster in a new temporary directory
#                             (or DIR, created): prints the directory.
#                             Superuser `authd`, no password, UTF8, C locale,
#                             fsync off (tests only), wal_level replica.
#   pg_cluster_start DIR      starts it (waits until it accepts connections);
#                             picks a free port the first time (kept in DIR/port)
#   pg_cluster_stop DIR [MODE]  pg_ctl stop -m MODE (fast by default)
#   pg_cluster_kill DIR       SIGKILL the postmaster (a crash)
#   pg_cluster_remove DIR     stops it if running, removes DIR
#   pg_cluster_port DIR       its TCP port
#   pg_url DIR DBNAME         libpq connection string over its unix socket
#   pg_tcp_url DIR DBNAME     the same over TCP 127.0.0.1
#   pg_psql DIR DBNAME ARGS   psql -X -q -v ON_ERROR_STOP=1 as superuser authd
#   pg_create_db DIR DBNAME   CREATE DATABASE
#   pg_as_server_user CMD...  runs CMD as the cluster's owner
#   pg_cluster_standby PRIMARY  a streaming standby of PRIMARY (pg_basebackup
#                             -R over TCP, in a new temporary directory, not
#                             started): prints its directory
#   pg_cluster_promote DIR    pg_ctl promote (waits until it is a primary)

pg_bindir() {
  local d
  if [[ -n ${PG_BINDIR:-} ]]; then echo "$PG_BINDIR"; return 0; fi
  if command -v pg_config >/dev/null 2>&1; then
    d=$(pg_config --bindir 2>/dev/null)
    [[ -x $d/initdb ]] && { echo "$d"; return 0; }
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x $d/initdb ]] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  echo "cluster.sh: PostgreSQL server binaries (initdb, pg_ctl) not found: scripts/deps.sh test installs them" >&2
  return 1
}

pg_as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

_pg_free_port() {
  local p i
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

pg_cluster_new() {
  local dir=${1:-} bin
  bin=$(pg_bindir) || return 1
  if [[ -z $dir ]]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/authd-pg.XXXXXX") || return 1
  else
    mkdir -p "$dir" || return 1
  fi
  chmod 0700 "$dir"
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || { echo "cluster.sh: no 'postgres' user to run the server as" >&2; return 1; }
    chown postgres:postgres "$dir"
  fi
  if ! pg_as_server_user "$bin/initdb" -D "$dir/data" -U authd -A trust -E UTF8 --locale=C --no-sync \
        >"$dir/initdb.log" 2>&1; then
    echo "cluster.sh: initdb failed:" >&2
    cat "$dir/initdb.log" >&2
    return 1
  fi
  pg_as_server_user tee -a "$dir/data/postgresql.conf" >/dev/null <<CONF
# authd test cluster
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = on
full_page_writes = off
max_connections = 300
shared_buffers = 32MB
wal_level = replica
max_wal_senders = 5
hot_standby = on
log_min_messages = warning
log_line_prefix = '%m [%p] '
CONF
  pg_as_server_user tee "$dir/data/pg_hba.conf" >/dev/null <<'HBA'
local   all          all                     trust
local   replication  all                     trust
host    all          authd_pw  127.0.0.1/32  scram-sha-256
host    all          all       127.0.0.1/32  trust
host    replication  all       127.0.0.1/32  trust
HBA
  echo "$dir"
}

pg_cluster_port() { cat "$1/port"; }

pg_cluster_standby() {
  local primary=$1 dir bin port
  bin=$(pg_bindir) || return 1
  dir=$(mktemp -d "${TMPDIR:-/tmp}/authd-pg-standby.XXXXXX") || return 1
  chmod 0700 "$dir"
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
  if ! pg_as_server_user "$bin/pg_basebackup" -h 127.0.0.1 -p "$(pg_cluster_port "$primary")" -U authd \
        -D "$dir/data" -R -X stream --no-sync --checkpoint=fast >"$dir/basebackup.log" 2>&1; then
    echo "cluster.sh: pg_basebackup failed:" >&2
    cat "$dir/basebackup.log" >&2
    return 1
  fi
  printf "unix_socket_directories = '%s'\n" "$dir" | pg_as_server_user tee -a "$dir/data/postgresql.conf" >/dev/null
  port=$(_pg_free_port) || return 1
  echo "$port" | pg_as_server_user tee "$dir/port" >/dev/null
  echo "$dir"
}

pg_cluster_promote() {
  local bin
  bin=$(pg_bindir) || return 1
  pg_as_server_user "$bin/pg_ctl" -D "$1/data" -w -t 60 promote >/dev/null
}

pg_cluster_start() {
  local dir=$1 bin port attempt
  bin=$(pg_bindir) || return 1
  for ((attempt = 0; attempt < 5; attempt++)); do
    if [[ ! -s $dir/port ]]; then
      port=$(_pg_free_port) || return 1
      echo "$port" | pg_as_server_user tee "$dir/port" >/dev/null
    fi
    port=$(cat "$dir/port")
    if pg_as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
         -o "-p $port" start >/dev/null 2>&1; then
      return 0
    fi
    if grep -q 'could not bind\|Address already in use' "$dir/server.log" 2>/dev/null; then
      pg_as_server_user rm -f "$dir/port"   # taken meanwhile: another port
      continue
    fi
    break
  done
  echo "cluster.sh: PostgreSQL did not start in $dir:" >&2
  tail -n 30 "$dir/server.log" >&2 2>/dev/null
  return 1
}

pg_cluster_stop() {
  local dir=$1 mode=${2:-fast} bin
  bin=$(pg_bindir) || return 1
  [[ -f $dir/data/postmaster.pid ]] || return 0
  pg_as_server_user "$bin/pg_ctl" -D "$dir/data" -m "$mode" -w -t 60 stop >/dev/null 2>&1
}

pg_cluster_kill() {
  local pid
  pid=$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null) || return 0
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
  local i
  for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
}

pg_cluster_remove() {
  local dir=$1
  [[ -n $dir && -d $dir ]] || return 0
  pg_cluster_stop "$dir" immediate || pg_cluster_kill "$dir"
  rm -rf "$dir"
}

pg_url() { printf 'host=%s port=%s user=authd dbname=%s' "$1" "$(pg_cluster_port "$1")" "$2"; }
pg_tcp_url() { printf 'host=127.0.0.1 port=%s user=authd dbname=%s' "$(pg_cluster_port "$1")" "$2"; }

# pg_pgbouncer_ini PG DIR PORT: on stdout, the pgbouncer.ini that puts
# pgbouncer in front of cluster PG's database authd the way
# docs/scaling-out.md does (pool_mode = transaction, on 127.0.0.1:PORT, user
# authd trusted from DIR/users.txt, admin console for authd, its log in DIR);
# a server it cannot reach is given up after 1 s (server_login_retry), so a
# database restart is noticed as it would be without it. The test nodes
# (test/blackbox/pg_nodes.sh) and bench/run.sh write it with this.
pg_pgbouncer_ini() {
  cat <<INI
[databases]
authd = host=$1 port=$(pg_cluster_port "$1") dbname=authd user=authd

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $3
unix_socket_dir =
auth_type = trust
auth_file = $2/users.txt
admin_users = authd
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
server_login_retry = 1
logfile = $2/pgbouncer.log
INI
}

pg_psql() {
  local dir=$1 db=$2 bin
  shift 2
  bin=$(pg_bindir) || return 1
  "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$(pg_cluster_port "$dir")" -U authd -d "$db" "$@"
}

pg_create_db() { pg_psql "$1" postgres -c "CREATE DATABASE \"$2\""; }

# Run as a script: the CTest fixture.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  cmd=${1:-}
  state=${2:-}
  [[ -n $state ]] || { echo "usage: $0 fixture-start|fixture-stop STATEFILE" >&2; exit 2; }
  case $cmd in
    fixture-start)
      if [[ -f $state ]]; then  # left over by an interrupted run
        # shellcheck disable=SC1090
        old=$(. "$state"; echo "${PG_TEST_DIR:-}")
        [[ -n $old ]] && pg_cluster_remove "$old"
        rm -f "$state"
      fi
      dir=$(pg_cluster_new)
      pg_cluster_start "$dir" || { pg_cluster_remove "$dir"; exit 1; }
      mkdir -p "$(dirname "$state")"
      printf 'PG_TEST_DIR=%q\nPG_TEST_PORT=%q\n' "$dir" "$(pg_cluster_port "$dir")" >"$state"
      echo "PostgreSQL test cluster up: $dir (port $(pg_cluster_port "$dir"))"
      ;;
    fixture-stop)
      [[ -f $state ]] || exit 0
      # shellcheck disable=SC1090
      dir=$(. "$state"; echo "${PG_TEST_DIR:-}")
      pg_cluster_remove "$dir"
      rm -f "$state"
      echo "PostgreSQL test cluster removed"
      ;;
    *) echo "usage: $0 fixture-start|fixture-stop STATEFILE" >&2; exit 2 ;;
  esac
fi
