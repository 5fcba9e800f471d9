# shellcheck shell=bash
# bench/lib/scale.sh - the capacity model's measurements (BENCH_PARTS "scale",
# issue 45 part 4; sourced by bench/run.sh; uses its say/die/check/
# status_of/signin_token, $STATE, $AUTHCTL_BIN, $AUTHD_BIN, BENCH_*, and
# bench/lib/fronts.sh, measure.sh, oidc.sh).
#
# One throw-away PostgreSQL (test/postgres/cluster.sh) with pg_stat_statements
# loaded, the set-up's users and record imported, the OpenID clients
# registered in it. Then:
#
#   per request kind, one node (lighttpd + authd, store = postgresql, the
#   OpenID provider and refresh tokens on, its default threads, not pinned):
#     scale_guarded_read     GET /records with a bearer token
#     scale_signin           POST /signin (Basic, argon2id at authd's defaults)
#     scale_refresh          the refresh_token grant with rotation
#     scale_code_exchange    GET /authorize (PKCE) -> 302 -> POST /token
#     scale_introspection    POST /introspect of a valid access token
#   each with the CPU time per request of authd, lighttpd, wrk and the
#   PostgreSQL server (every process of the postmaster's group), and the
#   statements, transactions (BEGINs), write transactions and WAL bytes it
#   caused (bench/lib/measure.sh's db_counters, ROW_DB_STATEMENTS=1);
#
#   for each N of BENCH_SCALE_NODES (1 2 4): N nodes on the same PostgreSQL,
#   node K pinned to core K mod cores (`taskset`: authd and its lighttpd; authd
#   with event_loops = 1 and hash_workers = 1, as on a one-core machine;
#   wrk and PostgreSQL not pinned), one wrk whose threads are dealt out over
#   the nodes (BENCH_NODES in bench/wrk/scenario.lua), the guarded read and
#   sign-in: rows scale_guarded_read_nN, scale_signin_nN.
#
# bench/results.jq turns them into the model (per kind: CPU per operation on
# a node and on the database, statements and writes; from them the nodes and
# database a site needs) and compares each N-node row with what the model
# predicts for this machine; docs/scaling-out.md explains it.
#
#   scale_phase        all of it
#   scale_stop_nodes   stops the N nodes (run.sh's cleanup calls it too)

BENCH_SCALE_NODES=${BENCH_SCALE_NODES:-"1 2 4"}
SCALE_AUTHD_PIDS=()
SCALE_FRONT_PIDS=()
SCALE_PORTS=()

scale_stop_nodes() {
  local pid
  for pid in "${SCALE_FRONT_PIDS[@]}"; do stop_group "$pid" "lighttpd (scale node)"; done
  for pid in "${SCALE_AUTHD_PIDS[@]}"; do stop_group "$pid" "authd (scale node)"; done
  SCALE_AUTHD_PIDS=()
  SCALE_FRONT_PIDS=()
  SCALE_PORTS=()
}

# scale_start_nodes N: N nodes, node K on core K mod CORES.
scale_start_nodes() {
  local n=$1 k core sock dir port attempt rc
  for ((k = 0; k < n; k++)); do
    core=$((k % CORES))
    sock=$STATE/scale-$k.sock
    dir=$(mktemp -d "$STATE/scale-node-$k.XXXX")
    AUTHD_WORKERS=2 AUTHD_EVENT_LOOPS=1 AUTHD_HASH_WORKERS=1 AUTHD_STATE_DIR=$STATE/db \
      fcgi_spawn "$sock" "$dir/authd.log" "$TASKSET_BIN" -c "$core" "$AUTHD_BIN" || { cat "$dir/authd.log" >&2; die "scale node $k: authd did not start"; }
    SCALE_AUTHD_PIDS+=("$SPAWNED_PID")
    for ((attempt = 0; attempt < 10; attempt++)); do
      port=$(pick_port) || die "found no free port"
      rc=0
      lighttpd_spawn "$ROOT/conf/lighttpd.conf" "$port" "$ROOT/www" "$dir" "$sock" || rc=$?
      ((rc == 0)) && break
      stop_group "$SPAWNED_PID" lighttpd
      ((rc == 2)) || { cat "$dir"/lighttpd*.log "$dir"/lighttpd.out >&2 2>/dev/null; die "scale node $k: lighttpd did not start"; }
    done
    ((rc == 0)) || die "scale node $k: lighttpd found no free port"
    taskset -a -cp "$core" "$SPAWNED_PID" >/dev/null || die "taskset of lighttpd (scale node $k) failed"
    SCALE_FRONT_PIDS+=("$SPAWNED_PID")
    SCALE_PORTS+=("$port")
    wait_for_http "http://127.0.0.1:$port/records" 401 15 || die "scale node $k: GET /records answered $WAIT_STATUS, not 401"
  done
  say "scale: $n node(s) on ports ${SCALE_PORTS[*]}, authd pids ${SCALE_AUTHD_PIDS[*]}, pinned round robin to $CORES core(s)"
}

# scale_row ID TITLE EXPECTED CONNECTIONS DURATION METHOD PATH [wrk args]: one node ($FCGI_PID behind $FRONT_PID).
scale_row() {
  local id=$1 title=$2 expected=$3
  shift 3
  BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND="authd (PostgreSQL)" ROW_CEILING='' \
  ROW_THREADS=$WORKERS ROW_KEEP='' ROW_USERS='' ROW_DB=postgresql:$PG_DIR ROW_DB_STATEMENTS=1 \
  BENCH_EXPECT=${BENCH_EXPECT:-$expected} ROW_DB_STATEMENTS_OUT=$RAW/scale_$id.statements \
    run_scenario "scale_$id" "$title (capacity model, PostgreSQL)" "$expected" "$@"
  scale_top_statements "scale_$id"
}

# scale_top_statements ID: the statements the measured run of ID called most
# (calls during the run, from the two snapshots db_counters wrote), added to
# its scenario JSON as top_statements.
scale_top_statements() {
  local id=$1 out=$RAW/$1.statements
  [[ -s $out.0 && -s $out.1 ]] || return 0
  jq --slurpfile before "$out.0" --slurpfile after "$out.1" \
    '($before[0] | map({key: .id, value: .calls}) | from_entries) as $b
     | .top_statements = ($after[0] | map(.calls -= ($b[.id] // 0)) | map(select(.calls > 0))
                          | sort_by(-.calls) | .[:12] | map({calls, query}))' \
    "$RAW/$id.scenario.json" >"$RAW/$id.scenario.json.new" && mv "$RAW/$id.scenario.json.new" "$RAW/$id.scenario.json"
}

# scale_nodes_row N KIND CONNECTIONS DURATION METHOD PATH [wrk args]: the N nodes running now.
scale_nodes_row() {
  local n=$1 kind=$2 conns=$3 threads
  shift 3
  threads=$(( (BENCH_THREADS + n - 1) / n * n ))  # a multiple of N: every node gets as many wrk threads
  ((conns >= threads)) || conns=$threads
  BASE=http://127.0.0.1:${SCALE_PORTS[0]} ACCESS_LOG='' BENCH_NODES="${SCALE_PORTS[*]}" BENCH_THREADS=$threads \
  BACKEND_PGID="${SCALE_AUTHD_PIDS[*]}" FRONT_PGID="${SCALE_FRONT_PIDS[*]}" ROW_FRONT=lighttpd \
  ROW_BACKEND="$n × authd (PostgreSQL, pinned)" ROW_CEILING='' ROW_THREADS=1 ROW_KEEP='' ROW_USERS='' \
  ROW_DB=postgresql:$PG_DIR ROW_DB_STATEMENTS=1 BENCH_EXPECT=200 \
    run_scenario "scale_${kind}_n$n" "$kind, $n node(s) pinned (capacity model, PostgreSQL)" 200 "$conns" "$@"
}

scale_phase() {
  TASKSET_BIN=$(command -v taskset) || die "the scale part needs taskset (util-linux)"
  # shellcheck source=../../test/postgres/cluster.sh
  source "$ROOT/test/postgres/cluster.sh"
  PG_DIR=$(pg_cluster_new) || die "cannot create a PostgreSQL cluster"
  echo "shared_preload_libraries = 'pg_stat_statements'" | pg_as_server_user tee -a "$PG_DIR/data/postgresql.conf" >/dev/null
  pg_cluster_start "$PG_DIR" || die "PostgreSQL did not start"
  pg_create_db "$PG_DIR" authd >/dev/null || die "cannot create the database"
  pg_psql "$PG_DIR" authd -c 'CREATE EXTENSION pg_stat_statements' >/dev/null ||
    die "CREATE EXTENSION pg_stat_statements failed (the PostgreSQL server package ships it)"
  export AUTHD_STORE=postgresql AUTHD_DATABASE_URL
  AUTHD_DATABASE_URL=$(pg_url "$PG_DIR" authd)
  "$AUTHCTL_BIN" import "$STATE/export.jsonl" >/dev/null || die "authctl import into PostgreSQL failed"
  export AUTHD_OIDC_PROVIDER=true
  oidc_clients  # into this database (OIDC_CLIENT_ID, OIDC_BASIC)

  # ---- per request kind, one node ----
  AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=86400 start_fcgi "$AUTHD_BIN" "$STATE/authd-scale.log" "$WORKERS"
  start_front lighttpd
  wait_for_status /records 401
  say "scale: authd on PostgreSQL (pid $FCGI_PID, $WORKERS threads) behind lighttpd (pid $FRONT_PID) on $BASE"
  check 200 GET /records -H "Authorization: Bearer $USER_TOKEN"
  OIDC_SESSION=$(signin_token benchuser)
  [[ -n $OIDC_SESSION ]] || die "the scale part's sign-in failed"
  local form='Content-Type: application/x-www-form-urlencoded' access refresh_file=$STATE/scale-refresh-tokens one
  access=$(oidc_exchange "openid profile" | jq -r '.access_token // empty')
  [[ -n $access ]] || die "the code exchange gave no access token"
  say "scale: minting $((4 * BENCH_CONNECTIONS)) refresh tokens (one code exchange each)"
  oidc_refresh_tokens "$((2 * BENCH_CONNECTIONS))" "$refresh_file"
  oidc_refresh_tokens "$((2 * BENCH_CONNECTIONS))" "$refresh_file.warmup"
  one=$(head -n 1 "$refresh_file.warmup")
  curl --silent --noproxy '*' --max-time 10 -H "Authorization: Basic $OIDC_BASIC" -H "$form" \
    -d grant_type=refresh_token --data-urlencode "refresh_token=$one" "$BASE/token" | jq -e '.refresh_token' >/dev/null ||
    die "the refresh_token grant gave no new refresh token"
  sed -i 1d "$refresh_file.warmup"

  scale_row guarded_read "guarded read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $USER_TOKEN"
  scale_row signin "sign-in" 200 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signin \
    -H "Authorization: Basic $BASIC"
  BENCH_MODE=refresh BENCH_REFRESH_FILE=$refresh_file BENCH_CLIENT_AUTH="Basic $OIDC_BASIC" \
    scale_row refresh "refresh_token grant, rotating" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" POST /token
  BENCH_MODE=code BENCH_AUTHORIZE_QUERY=$(oidc_authorize_query "openid profile") BENCH_COOKIE="auth=$OIDC_SESSION" \
  BENCH_CLIENT_AUTH="Basic $OIDC_BASIC" ROW_ALSO_EXPECTED=302 \
  BENCH_TOKEN_BODY="grant_type=authorization_code&redirect_uri=$(jq -rn --arg u "$OIDC_REDIRECT" '$u | @uri')&code_verifier=$OIDC_VERIFIER" \
    scale_row code_exchange "code exchange: GET /authorize → 302 → POST /token" 200 "$BENCH_CONNECTIONS" \
    "$BENCH_DURATION" GET /authorize
  BENCH_BODY="token=$access" BENCH_EXPECT_BODY='"active":true' \
    scale_row introspection "introspection of a valid access token" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" \
    POST /introspect -H "Authorization: Basic $OIDC_BASIC" -H "$form"
  stop_front
  stop_fcgi

  # ---- 1, 2, 4 nodes on the one PostgreSQL ----
  local n
  for n in $BENCH_SCALE_NODES; do
    scale_start_nodes "$n"
    scale_nodes_row "$n" guarded_read "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
      -H "Authorization: Bearer $USER_TOKEN"
    scale_nodes_row "$n" signin "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signin \
      -H "Authorization: Basic $BASIC"
    scale_stop_nodes
  done
  unset AUTHD_STORE AUTHD_DATABASE_URL
  pg_cluster_remove "$PG_DIR"
  PG_DIR=
}
