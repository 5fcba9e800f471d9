# shellcheck shell=bash source-path=SCRIPTDIR
# test/blackbox/pg_nodes.sh - several front nodes on one PostgreSQL, for the
# t_pg_*.sh tests. Source it after harness.sh (for assert.sh and at_exit).
#
# A node is one lighttpd (conf/lighttpd.conf) + one authd (spawn-fcgi) on a
# free 127.0.0.1 port, with a state directory of its own; all nodes share
# whatever AUTHD_* the test exported: AUTHD_STORE=postgresql,
# AUTHD_DATABASE_URL, and one AUTHD_SIGNING_KEY.
#
#   pg_node_start NAME      starts node NAME; waits until GET /records is 401
#                           there. Sets NODE_URL[NAME], NODE_DIR[NAME].
#   pg_node_authd_restart NAME  restarts only its authd
#   pg_node_stop NAME       stops it (lighttpd, then authd)
#   pg_node_authd_kill NAME SIGKILL to its authd (a crash: no clean-up), lighttpd stays
#   pg_node_of_pid PID      the name of the node whose authd is PID (or nothing)
#   pg_nodes_stop_all       every node (registered with at_exit by the first start)
#   pg_node_logs NAME       prints its authd and lighttpd logs
#   pg_signing_key          64 random hex digits
#   pg_wait_for_store URL   waits until POST /signin answers anything but 503
#   pg_nodes_database       a new cluster (PG, removed at exit) with database
#                           authd, started; exports AUTHD_STORE=postgresql,
#                           AUTHD_DATABASE_URL, one AUTHD_SIGNING_KEY and cheap
#                           Argon2 settings (hashing is not what these tests are about)
#                           With PG_NODES_PGBOUNCER=1 the nodes reach it through
#                           pgbouncer (pool_mode = transaction, started here on a
#                           free 127.0.0.1 port, stopped at exit): AUTHD_DATABASE_URL
#                           names pgbouncer, AUTHD_DATABASE_LISTEN_URL PostgreSQL
#                           itself (LISTEN needs a session of its own); PGBOUNCER_PORT
#   pg_pgbouncer_start PG   pgbouncer (as above) in front of cluster PG alone;
#                           sets PGBOUNCER_PORT, PGBOUNCER_DIR
#   pg_pgbouncer_point PG   points pgbouncer's database authd at cluster PG
#                           (rewrites its ini, RELOAD): what a failover tool does
#                           after promoting a standby
#   pg_pgbouncer_show WHAT  pgbouncer's admin console: SHOW WHAT (CLIENTS, POOLS,
#                           CONFIG), unaligned, '|'-separated
#   pg_nodes_two            starts nodes a and b; sets A and B to their URLs
#   pg_ctl_dir              authctl as on a third machine: ctl runs authctl with a
#                           state directory of its own (CTL_DIR), the database shared
#
# Also sources test/postgres/cluster.sh (pg_cluster_new, pg_url, ...).

# shellcheck source=../postgres/cluster.sh
source "$_HARNESS_DIR/../postgres/cluster.sh"

declare -A NODE_URL=() NODE_DIR=() _NODE_AUTHD=() _NODE_LIGHTTPD=()
_PG_NODES_EXIT=0

pg_signing_key() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

_pg_node_authd_start() {
  local name=$1 dir=${NODE_DIR[$1]}
  rm -f "$dir/authd.sock"
  AUTHD_STATE_DIR=$dir setsid spawn-fcgi -n -s "$dir/authd.sock" -M 0600 -- "$AUTHD_BIN" \
    </dev/null >>"$dir/authd.log" 2>&1 &
  _NODE_AUTHD[$name]=$!
  local i
  for ((i = 0; i < 200; i++)); do
    [[ -S $dir/authd.sock ]] && return 0
    proc_alive "${_NODE_AUTHD[$name]}" || break
    sleep 0.05
  done
  echo "pg_nodes: authd of node $name did not start" >&2
  pg_node_logs "$name" >&2
  return 1
}

pg_node_start() {
  local name=$1 dir port attempt code i
  if ((_PG_NODES_EXIT == 0)); then
    at_exit pg_nodes_stop_all
    _PG_NODES_EXIT=1
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/authd-node-$name.XXXXXX") || return 1
  NODE_DIR[$name]=$dir
  _pg_node_authd_start "$name" || return 1
  for ((attempt = 0; attempt < 10; attempt++)); do
    port=$(pick_port) || return 1
    : >"$dir/lighttpd-error.log"
    LIGHTTPD_PORT=$port LIGHTTPD_WWW=$SOURCE_DIR/www LIGHTTPD_RUN_DIR=$dir LIGHTTPD_FCGI_SOCKET=$dir/authd.sock \
      setsid lighttpd -D -f "$SOURCE_DIR/conf/lighttpd.conf" </dev/null >>"$dir/lighttpd.out" 2>&1 &
    _NODE_LIGHTTPD[$name]=$!
    NODE_URL[$name]=http://127.0.0.1:$port
    for ((i = 0; i < 200; i++)); do
      proc_alive "${_NODE_LIGHTTPD[$name]}" || break
      code=$(curl --silent --noproxy '*' --max-time 2 -o /dev/null -w '%{http_code}' "${NODE_URL[$name]}/records" || true)
      [[ $code == 401 ]] && return 0
      sleep 0.05
    done
    if proc_alive "${_NODE_LIGHTTPD[$name]}"; then break; fi
    wait "${_NODE_LIGHTTPD[$name]}" 2>/dev/null
    grep -qi 'address already in use' "$dir/lighttpd-error.log" "$dir/lighttpd.out" 2>/dev/null || break
  done
  echo "pg_nodes: node $name did not answer GET /records with 401 (last: ${code:-none})" >&2
  pg_node_logs "$name" >&2
  return 1
}

pg_node_authd_restart() {
  local name=$1
  stop_group "${_NODE_AUTHD[$name]}" "authd ($name)"
  _pg_node_authd_start "$name"
}

pg_node_authd_kill() {
  kill -KILL -- "-${_NODE_AUTHD[$1]}" 2>/dev/null || kill -KILL "${_NODE_AUTHD[$1]}"
  wait "${_NODE_AUTHD[$1]}" 2>/dev/null || true
}

pg_node_of_pid() {
  local name
  for name in "${!_NODE_AUTHD[@]}"; do
    [[ ${_NODE_AUTHD[$name]} == "$1" ]] && { printf '%s\n' "$name"; return 0; }
  done
  return 1
}

pg_node_stop() {
  local name=$1
  [[ -n ${NODE_DIR[$name]:-} ]] || return 0
  stop_group "${_NODE_LIGHTTPD[$name]:-}" "lighttpd ($name)"
  stop_group "${_NODE_AUTHD[$name]:-}" "authd ($name)"
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "${NODE_DIR[$name]}/authd.log" 2>/dev/null; then
    fail "node $name: authd ran without sanitizer reports" "$(grep -A20 -E 'Sanitizer|runtime error:' "${NODE_DIR[$name]}/authd.log" | head -40)"
  fi
  if ((FAILED > 0)); then pg_node_logs "$name"; fi
  [[ ${KEEP_STATE:-0} == 1 ]] || rm -rf "${NODE_DIR[$name]}"
  unset "NODE_DIR[$name]"
}

pg_nodes_stop_all() {
  local name
  for name in "${!NODE_DIR[@]}"; do pg_node_stop "$name"; done
}

pg_node_logs() {
  local name=$1 f
  for f in authd.log lighttpd-error.log; do
    [[ -s ${NODE_DIR[$name]}/$f ]] || continue
    printf -- '----- node %s: %s (last 60 lines) -----\n' "$name" "$f"
    tail -n 60 "${NODE_DIR[$name]}/$f"
  done
}

pg_wait_for_store() {
  local url=$1 deadline=$((SECONDS + ${2:-20})) code
  while ((SECONDS < deadline)); do
    code=$(curl --silent --noproxy '*' --max-time 5 -o /dev/null -w '%{http_code}' -X POST \
           -H 'Authorization: Basic bm9ib2R5Om5vdGhpbmc=' "$url/signin" || true)
    [[ $code != 503 && $code != 000 ]] && return 0
    sleep 0.2
  done
  return 1
}

pg_nodes_database() {
  PG=$(pg_cluster_new) || { echo "cannot create a PostgreSQL cluster"; exit 1; }
  at_exit pg_cluster_remove "$PG"
  pg_cluster_start "$PG" || exit 1
  pg_create_db "$PG" authd || exit 1
  export AUTHD_STORE=postgresql
  AUTHD_DATABASE_URL=$(pg_url "$PG" authd)
  AUTHD_SIGNING_KEY=$(pg_signing_key)
  export AUTHD_DATABASE_URL AUTHD_SIGNING_KEY
  export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
  if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
    pg_pgbouncer_start "$PG" || exit 1
    export AUTHD_DATABASE_LISTEN_URL=$AUTHD_DATABASE_URL
    AUTHD_DATABASE_URL="host=127.0.0.1 port=$PGBOUNCER_PORT user=authd dbname=authd"
    echo "pg_nodes: the nodes reach PostgreSQL through pgbouncer (transaction mode) on port $PGBOUNCER_PORT"
  fi
}

# pgbouncer between the nodes and PostgreSQL $1, in transaction mode: a
# server connection is a client's for one transaction only (its settings:
# pg_pgbouncer_ini in test/postgres/cluster.sh).
pg_pgbouncer_start() {
  local pg=$1 dir attempt i bin
  bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  [[ -x $bin ]] || { echo "pg_nodes: pgbouncer is not installed (scripts/deps.sh test installs it)" >&2; return 1; }
  dir=$(mktemp -d "${TMPDIR:-/tmp}/authd-pgbouncer.XXXXXX") || return 1
  at_exit rm -rf "$dir"
  PGBOUNCER_DIR=$dir
  [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"  # pgbouncer refuses to run as root
  printf '"authd" ""\n' | pg_as_server_user tee "$dir/users.txt" >/dev/null
  for ((attempt = 0; attempt < 5; attempt++)); do
    PGBOUNCER_PORT=$(_pg_free_port) || return 1
    pg_pgbouncer_ini "$pg" "$dir" "$PGBOUNCER_PORT" | pg_as_server_user tee "$dir/pgbouncer.ini" >/dev/null
    if [[ $(id -u) -eq 0 ]]; then
      ( cd "$dir" && exec setsid runuser -u postgres -- "$bin" "$dir/pgbouncer.ini" ) </dev/null >>"$dir/pgbouncer.out" 2>&1 &
    else
      ( cd "$dir" && exec setsid "$bin" "$dir/pgbouncer.ini" ) </dev/null >>"$dir/pgbouncer.out" 2>&1 &
    fi
    _PGBOUNCER_PID=$!
    for ((i = 0; i < 100; i++)); do
      if pg_pgbouncer_show CONFIG >/dev/null 2>&1; then
        at_exit stop_group "$_PGBOUNCER_PID" pgbouncer
        return 0
      fi
      proc_alive "$_PGBOUNCER_PID" || break
      sleep 0.05
    done
    stop_group "$_PGBOUNCER_PID" pgbouncer
    grep -qi 'address already in use' "$dir/pgbouncer.log" "$dir/pgbouncer.out" 2>/dev/null || break
  done
  echo "pg_nodes: pgbouncer did not start:" >&2
  tail -n 20 "$dir/pgbouncer.log" "$dir/pgbouncer.out" >&2
  return 1
}

pg_pgbouncer_point() {
  pg_pgbouncer_ini "$1" "$PGBOUNCER_DIR" "$PGBOUNCER_PORT" | pg_as_server_user tee "$PGBOUNCER_DIR/pgbouncer.ini" >/dev/null
  _pg_pgbouncer_admin RELOAD >/dev/null
}

pg_pgbouncer_show() { _pg_pgbouncer_admin "SHOW $1"; }

_pg_pgbouncer_admin() {
  local bin
  bin=$(pg_bindir) || return 1
  "$bin/psql" -X -q -A -t -h 127.0.0.1 -p "$PGBOUNCER_PORT" -U authd -d pgbouncer -c "$1"
}

pg_nodes_two() {
  pg_node_start a || exit 1
  pg_node_start b || exit 1
  A=${NODE_URL[a]}
  B=${NODE_URL[b]}
}

pg_ctl_dir() {
  make_temp_dir CTL_DIR authctl
  ctl() { AUTHD_STATE_DIR=$CTL_DIR authctl "$@"; }
}
