#!/usr/bin/env bash
# bench/run.sh - what `make bench` runs: authd's cost per request, measured
# against the ceiling of each front server and against Node peers, in one run
# on one machine, on the same route (guarded GET /records with a valid bearer
# token, 200, a small JSON body).
#
# Builds (RelWithDebInfo, in its own build tree), installs what is missing
# (scripts/deps.sh bench, `npm ci` in bench/peers), runs the Google Benchmark
# micro-benchmarks of lib/, then, with wrk on 127.0.0.1 (authd first runs once
# to create the tokens and a record):
#
#   The ceiling of each front server is the fastest of three trivial
#   responders (no auth work; same socket, same request, same response bytes
#   as authd's guarded read), each measured behind it in the same run:
#     build-bench/bench/authd_ceiling, a libfcgi responder with authd's
#       threads and accept loop (rows ceiling, nginx_ceiling, apache_ceiling);
#     the same as a pool of single-threaded processes, as many as the front
#       opens connections (*_ceiling_pool);
#     build-bench/bench/authd_fast_ceiling, one epoll loop per core answering
#       inline, no libfcgi (*_ceiling_fast), and the same with one loop
#       (*_ceiling_fast1: with the front server and wrk on the same cores, one
#       loop wakes less often and can be the faster).
#
#   lighttpd (conf/lighttpd.conf, one FastCGI connection per request)
#     ceiling, ceiling_pool (BENCH_CONNECTIONS processes), ceiling_fast
#     guarded read, capability read (GET /records/{id}), capability denied
#     (DELETE, 403), invalid token (401), sign-in, sign-up, the client_credentials
#     grant (POST /token, a service client with client_secret_basic): authd
#   nginx (FastCGI keep-alive: upstream `keepalive K` + fastcgi_keep_conn on)
#     nginx_ceiling      the libfcgi ceiling with K threads (plain libfcgi
#                        keeps one thread per kept connection); then
#                        nginx_ceiling_pool (K processes), nginx_ceiling_fast
#     nginx_authd        authd with BENCH_NGINX_AUTHD_WORKERS threads (K);
#                        nginx_authd1 the same with event_loops = 1
#     nginx_many         authd with BENCH_MANY_WORKERS threads while nginx keeps
#                        BENCH_MANY_KEEPALIVE connections (4 x more), wrk -c
#                        BENCH_MANY_CONNECTIONS: errors and stalls counted
#   the OpenID provider behind the same nginx (part oidc, bench/lib/oidc.sh;
#   authd with BENCH_NGINX_AUTHD_WORKERS threads, oidc_provider and refresh
#   tokens on; every answer checked by wrk's Lua and the access log)
#     oidc_client_credentials, oidc_refresh (rotating: each answer's refresh
#     token is the next request's), oidc_introspection (a valid access token),
#     oidc_code_exchange (GET /authorize with PKCE -> 302 -> POST /token per
#     iteration), each against its target (issue 43's "Speed")
#   Apache (conf/apache/authd.conf, mod_proxy_fcgi with enablereuse=on)
#     apache_ceiling     the libfcgi ceiling with BENCH_APACHE_THREADS threads;
#                        apache_ceiling_pool (BENCH_APACHE_POOL processes),
#                        apache_ceiling_fast
#     apache_authd       authd with BENCH_APACHE_AUTHD_WORKERS threads
#   Node peers (bench/peers: Express 5 + jsonwebtoken, Fastify 5 + fast-jwt,
#   a cluster of one worker per core, in-memory users)
#     express_direct, express_nginx, fastify_direct, fastify_nginx
#                        each directly and behind the same nginx (proxy_pass,
#                        HTTP/1.1 upstream `keepalive K`)
#   many users (bench/lib/users.sh): for each of BENCH_USER_COUNTS, a fresh
#     store built with `authctl import`, authd behind lighttpd: guarded read,
#     sign-in, sign-up; import time and data.mdb size; authd's memory
#     (RssAnon = apart from the mapped database) at the largest count
#   the capacity model (bench/lib/scale.sh, issue 45): on one PostgreSQL with
#     pg_stat_statements, per request kind (guarded read, sign-in, refresh,
#     code exchange, introspection) one node's CPU and the database's CPU,
#     statements and writes per operation; then 1, 2 and 4 nodes pinned to
#     the cores (taskset), guarded read and sign-in, against the prediction
#
# For each: requests/s, p50/p99, ratio to the ceiling of its front server and
# to the Fastify cluster behind nginx, CPU time per request of the backend
# (every thread of its process group, /proc/PID/task/TID/schedstat, before and after
# the measured run, / requests), the front and wrk, statuses from the
# front's access log, wrk's errors; the RSS of the processes. Prints a Markdown
# report and writes it to $BENCH_RESULTS/latest.md, with everything as JSON in
# $BENCH_RESULTS/latest.json.
#
# Everything runs as the current user (Apache, when that is root, as www-data
# with CAP_DAC_OVERRIDE only, like the test suite) on 127.0.0.1 and unix
# sockets under a temporary directory, and is stopped at the end, on error
# and on Ctrl-C; the directory is removed (BENCH_KEEP_STATE=1 keeps it).
set -euo pipefail

# ---- parameters (each overridable from the environment) --------------------
# BENCH_QUICK=1: a smoke run (every part, a few seconds per row, small stores,
# no micro-benchmarks): checks that the benchmark works end to end; its
# figures mean little.
if [[ ${BENCH_QUICK:-0} == 1 ]]; then
  : "${BENCH_DURATION:=2}" "${BENCH_WARMUP:=1}" "${BENCH_HASH_DURATION:=2}" "${BENCH_MICRO:=0}"
  : "${BENCH_USER_COUNTS:=1000 10000}" "${BENCH_APACHE_THREADS:=64}" "${BENCH_PAIRS:=2}"
fi
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-32}        # wrk -c for the fast scenarios
BENCH_THREADS=${BENCH_THREADS:-2}                 # wrk -t
BENCH_DURATION=${BENCH_DURATION:-10}              # seconds measured per scenario
BENCH_WARMUP=${BENCH_WARMUP:-2}                   # seconds of unmeasured load before each
BENCH_PAIRS=${BENCH_PAIRS:-5}                     # paired rounds (ceiling, authd back to back) per front; 0: none
BENCH_PAIR_DURATION=${BENCH_PAIR_DURATION:-$(( (BENCH_DURATION + 1) / 2 ))}  # seconds measured per paired row
BENCH_HASH_CONNECTIONS=${BENCH_HASH_CONNECTIONS:-8}  # wrk -c for sign-in / sign-up (argon2id)
BENCH_HASH_DURATION=${BENCH_HASH_DURATION:-$BENCH_DURATION}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-5}                 # wrk --timeout, seconds
BENCH_WORKERS=${BENCH_WORKERS:-${AUTHD_WORKERS:-0}}  # FastCGI threads behind lighttpd; 0 = 2 x cores
BENCH_PARTS=${BENCH_PARTS:-"lighttpd eddsa postgresql nginx oidc apache peers users scale"}  # which parts to run
BENCH_SCENARIOS=${BENCH_SCENARIOS:-"guarded_read capability_read capability_denied invalid_token signin signup client_credentials"}
                                                  # authd's scenarios behind lighttpd (the ceiling always runs)
BENCH_NGINX_WORKERS=${BENCH_NGINX_WORKERS:-1}     # nginx worker_processes
BENCH_NGINX_KEEPALIVE=${BENCH_NGINX_KEEPALIVE:-$BENCH_CONNECTIONS}  # nginx upstream keepalive; threads of the
                                                  # ceiling behind it (authd: BENCH_NGINX_AUTHD_WORKERS)
BENCH_MANY_WORKERS=${BENCH_MANY_WORKERS:-4}       # authd threads in the many-connections row
BENCH_MANY_KEEPALIVE=${BENCH_MANY_KEEPALIVE:-$((4 * BENCH_MANY_WORKERS))}  # connections nginx keeps then
BENCH_MANY_CONNECTIONS=${BENCH_MANY_CONNECTIONS:-64}  # wrk -c then
BENCH_NGINX_AUTHD_WORKERS=${BENCH_NGINX_AUTHD_WORKERS:-$BENCH_WORKERS}  # authd's threads behind nginx
BENCH_APACHE_THREADS=${BENCH_APACHE_THREADS:-128} # threads of the ceiling behind Apache: at least as many
                                                  # connections as Apache's processes may keep together
BENCH_APACHE_AUTHD_WORKERS=${BENCH_APACHE_AUTHD_WORKERS:-$BENCH_WORKERS}  # authd's threads behind Apache
BENCH_APACHE_POOL=${BENCH_APACHE_POOL:-$BENCH_APACHE_THREADS}  # processes of the libfcgi pool behind Apache
BENCH_FAST_LOOPS=${BENCH_FAST_LOOPS:-0}           # epoll loops of authd_fast_ceiling; 0 = one per core
BENCH_APACHE_MODULES=${BENCH_APACHE_MODULES:-/usr/lib/apache2/modules}
BENCH_PEER_WORKERS=${BENCH_PEER_WORKERS:-0}       # Node cluster workers; 0 = one per core
BENCH_PEER_USERS=${BENCH_PEER_USERS:-1000}        # users the peers hold in memory
BENCH_USER_COUNTS=${BENCH_USER_COUNTS:-"1000 100000 1000000"}  # store sizes of the many-users part
BENCH_USERS_DURATION=${BENCH_USERS_DURATION:-$BENCH_DURATION}
BENCH_USERS_HASH_DURATION=${BENCH_USERS_HASH_DURATION:-$BENCH_HASH_DURATION}
BENCH_MICRO=${BENCH_MICRO:-1}                     # 0: skip the micro-benchmarks
BENCH_MICRO_FILTER=${BENCH_MICRO_FILTER:-.}       # --benchmark_filter
BENCH_BUILD_DIR=${BENCH_BUILD_DIR:-build-bench}
BENCH_BUILD_TYPE=${BENCH_BUILD_TYPE:-RelWithDebInfo}   # Release or RelWithDebInfo
BENCH_RESULTS=${BENCH_RESULTS:-bench/results}
BENCH_DEPS=${BENCH_DEPS:-1}                       # 0: do not run scripts/deps.sh
BENCH_KEEP_STATE=${BENCH_KEEP_STATE:-0}
BENCH_PERF=${BENCH_PERF:-0}                       # 1: perf record -a (cpu-clock) during each measured run;
                                                  # (BENCH_KEEP_PERF=1 keeps each perf.data in the state directory)
                                                  # CPU split per process and hot symbols in $BENCH_RESULTS/perf/
                                                  # (BENCH_PERF_FREQ: samples per second and core, default 499)
JOBS=${JOBS:-2}
# -----------------------------------------------------------------------------

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[[ $BENCH_BUILD_DIR == /* ]] || BENCH_BUILD_DIR=$ROOT/$BENCH_BUILD_DIR
[[ $BENCH_RESULTS == /* ]] || BENCH_RESULTS=$ROOT/$BENCH_RESULTS
LUA=$ROOT/bench/wrk/scenario.lua

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
part() { [[ " $BENCH_PARTS " == *" $1 "* ]]; }
# The start-up and shut-down of the stack, shared with `make run` and the tests.
# shellcheck disable=SC2034  # read by stack_lib.sh
STACK_SAY=bench
# shellcheck source=../scripts/stack_lib.sh
source "$ROOT/scripts/stack_lib.sh"
# shellcheck source=lib/measure.sh
source "$ROOT/bench/lib/measure.sh"
# shellcheck source=lib/fronts.sh
source "$ROOT/bench/lib/fronts.sh"
# shellcheck source=lib/users.sh
source "$ROOT/bench/lib/users.sh"
# shellcheck source=lib/pairs.sh
source "$ROOT/bench/lib/pairs.sh"
# shellcheck source=lib/oidc.sh
source "$ROOT/bench/lib/oidc.sh"
# shellcheck source=lib/scale.sh
source "$ROOT/bench/lib/scale.sh"

for v in BENCH_CONNECTIONS BENCH_THREADS BENCH_DURATION BENCH_WARMUP BENCH_HASH_CONNECTIONS \
         BENCH_HASH_DURATION BENCH_TIMEOUT BENCH_WORKERS BENCH_NGINX_WORKERS BENCH_NGINX_KEEPALIVE \
         BENCH_MANY_WORKERS BENCH_MANY_KEEPALIVE BENCH_MANY_CONNECTIONS BENCH_APACHE_THREADS \
         BENCH_NGINX_AUTHD_WORKERS BENCH_APACHE_AUTHD_WORKERS BENCH_APACHE_POOL BENCH_FAST_LOOPS \
         BENCH_PEER_WORKERS BENCH_PEER_USERS BENCH_USERS_DURATION BENCH_USERS_HASH_DURATION JOBS; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, not '${!v}'"
done
for n in $BENCH_USER_COUNTS; do [[ $n =~ ^[1-9][0-9]*$ ]] || die "BENCH_USER_COUNTS: '$n' is not a count"; done
((BENCH_DURATION > 0 && BENCH_HASH_DURATION > 0)) || die "durations must be positive"
((BENCH_NGINX_KEEPALIVE > 0 && BENCH_MANY_WORKERS > 0 && BENCH_MANY_KEEPALIVE > 0)) || die "keepalive and thread counts must be positive"
case $BENCH_BUILD_TYPE in Release|RelWithDebInfo) ;; *) die "BENCH_BUILD_TYPE must be Release or RelWithDebInfo" ;; esac
CORES=$(nproc)
WORKERS=$BENCH_WORKERS
((WORKERS > 0)) || WORKERS=$((2 * CORES))
# authd's threads behind nginx and Apache: the same as behind lighttpd unless set.
((BENCH_NGINX_AUTHD_WORKERS > 0)) || BENCH_NGINX_AUTHD_WORKERS=$WORKERS
((BENCH_APACHE_AUTHD_WORKERS > 0)) || BENCH_APACHE_AUTHD_WORKERS=$WORKERS
FAST_LOOPS=$BENCH_FAST_LOOPS
((FAST_LOOPS > 0)) || FAST_LOOPS=$CORES
PEER_WORKERS=$BENCH_PEER_WORKERS
((PEER_WORKERS > 0)) || PEER_WORKERS=$CORES

# ---- dependencies and build --------------------------------------------------
if ((BENCH_DEPS)); then
  "$ROOT/scripts/deps.sh" bench
fi
APACHE_BIN=$(command -v apache2 2>/dev/null || echo /usr/sbin/apache2)
for tool in cmake lighttpd spawn-fcgi wrk curl jq setsid mdb_stat nginx node npm "$APACHE_BIN"; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed (scripts/deps.sh bench installs it)"
done
((EUID != 0)) || command -v setpriv >/dev/null 2>&1 || die "running as root needs setpriv (util-linux) to run Apache unprivileged"
if ((BENCH_PERF)) && ! perf record -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
  die "BENCH_PERF=1 needs a working perf (Debian: linux-perf) and perf_event_paranoid <= 1 or root"
fi
# Fastify 5 and fast-jwt 6 need Node 20 or later (Debian 12's nodejs is 18;
# NodeSource's nodejs 20 works): with an older node the peers are skipped.
NOTES=()
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if part peers && ((node_major < 20)); then
  NOTES+=("Node peers skipped: node $(node --version 2>/dev/null) is older than 20, which Fastify 5 and fast-jwt 6 need")
  say "${NOTES[-1]}"
  BENCH_PARTS=${BENCH_PARTS//peers/}
fi
if part peers; then
  peer_modules=(express jsonwebtoken fastify fast-jwt)
  for m in "${peer_modules[@]}"; do
    [[ -f $ROOT/bench/peers/node_modules/$m/package.json ]] && continue
    say "installing bench/peers' npm packages (npm ci)"
    (cd "$ROOT/bench/peers" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci in bench/peers failed"
    break
  done
fi

say "building ($BENCH_BUILD_TYPE) in ${BENCH_BUILD_DIR#"$ROOT"/}"
mkdir -p "$BENCH_BUILD_DIR"
# The PostgreSQL store is built only when its part runs.
WITH_PG=OFF
{ part postgresql || part scale; } && WITH_PG=ON
cmake -S "$ROOT" -B "$BENCH_BUILD_DIR" -DCMAKE_BUILD_TYPE="$BENCH_BUILD_TYPE" -DAUTHD_WITH_POSTGRESQL=$WITH_PG \
  -DAUTHD_BUILD_BENCH=ON -DAUTHD_BUILD_TESTS=OFF -DAUTHD_SANITIZE=OFF >"$BENCH_BUILD_DIR/bench-configure.log" 2>&1 ||
  { cat "$BENCH_BUILD_DIR/bench-configure.log" >&2; die "cmake configure failed"; }
targets=(authd authctl authd_ceiling authd_fast_ceiling)
((BENCH_MICRO)) && targets+=(authd_micro)
cmake --build "$BENCH_BUILD_DIR" -j"$JOBS" --target "${targets[@]}" >&2
AUTHD_BIN=$BENCH_BUILD_DIR/authd
AUTHCTL_BIN=$BENCH_BUILD_DIR/authctl
CEILING_BIN=$BENCH_BUILD_DIR/bench/authd_ceiling
FAST_CEILING_BIN=$BENCH_BUILD_DIR/bench/authd_fast_ceiling
MICRO_BIN=$BENCH_BUILD_DIR/bench/authd_micro

# ---- state, processes, cleanup -------------------------------------------------
STATE=$(mktemp -d "${TMPDIR:-/tmp}/authd-bench.XXXXXX")
RAW=$STATE/raw
mkdir -p "$RAW" "$STATE/db" "$BENCH_RESULTS"
SOCKET=$STATE/fcgi.sock
WRK_PID=
MEMORY=()

cleaned=0
cleanup() {
  ((cleaned)) && return 0
  cleaned=1
  trap '' INT TERM HUP
  stop_pid "$WRK_PID" wrk
  stop_group "$FRONT_PID" "${FRONT_NAME:-front server}"
  stop_group "$PEER_PID" "Node peer"
  stop_group "$FCGI_PID" "FastCGI program"
  scale_stop_nodes
  [[ -n ${PG_DIR:-} ]] && pg_cluster_remove "$PG_DIR"
  if [[ $BENCH_KEEP_STATE == 1 ]]; then
    say "state kept in $STATE"
  else
    rm -rf "$STATE"
  fi
}
trap 'rc=$?; cleanup; exit $rc' EXIT
trap 'say "interrupted"; exit 130' INT
trap 'exit 143' TERM HUP

status_of() {  # METHOD PATH [curl args...] -> HTTP status
  local method=$1 path=$2
  shift 2
  curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' -X "$method" "$@" "$BASE$path" || true
}

wait_for_status() {  # PATH STATUS: until the front routes to the new backend
  wait_for_http "$BASE$1" "$2" 15 || die "GET $1 answered $WAIT_STATUS, expected $2"
}

# Sanity: a scenario answers what it should before it is measured.
check() {
  local want=$1 got
  shift
  got=$(status_of "$@")
  [[ $got == "$want" ]] || die "$* answered $got through $BASE, expected $want"
}

# guarded ID TITLE FRONT BACKEND CEILING_ID THREADS KEEP [CONNECTIONS]: the
# guarded read with $TOKEN against whatever runs now.
guarded() {
  local front_pgid=$FRONT_PID
  [[ $3 == direct ]] && front_pgid=
  BACKEND_PGID=${BACKEND_OVERRIDE:-$FCGI_PID} FRONT_PGID=$front_pgid ROW_FRONT=$3 ROW_BACKEND=$4 \
  ROW_CEILING=$5 ROW_THREADS=$6 ROW_KEEP=$7 ROW_USERS='' ROW_CANDIDATE=${ROW_CANDIDATE:-} \
    run_scenario "$1" "$2" 200 "${8:-$BENCH_CONNECTIONS}" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $TOKEN"
}

LOADAVG_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- micro-benchmarks (first, on a quiet machine) ------------------------------
MICRO_JSON=$RAW/micro.json
if ((BENCH_MICRO)); then
  say "micro-benchmarks (${MICRO_BIN#"$ROOT"/})"
  "$MICRO_BIN" --benchmark_filter="$BENCH_MICRO_FILTER" --benchmark_format=json \
    --benchmark_out="$MICRO_JSON" --benchmark_out_format=json >/dev/null 2>"$RAW/micro.err" ||
    { cat "$RAW/micro.err" >&2; die "micro-benchmarks failed"; }
else
  echo '{"benchmarks":[]}' >"$MICRO_JSON"
fi

# ---- set-up: authd, its users, a record, tokens -----------------------------------
# authd runs once behind lighttpd to mint the tokens and the record (and to
# learn its answer to the guarded read, which every ceiling and peer answers
# too), then makes way for the ceiling.
export AUTHD_STATE_DIR=$STATE/db
# wrk's connections all come from 127.0.0.1: the per-address sign-up limit
# (signup_address_limit, an abuse guard) would turn the sign-up rows into 429s.
export AUTHD_SIGNUP_ADDRESS_LIMIT=0
PASSWORD='bench correct horse'
printf '%s\n' "$PASSWORD" | "$AUTHCTL_BIN" add benchuser user --fullname 'Bench User' --email bench@example.com >/dev/null
printf '%s\n' "$PASSWORD" | "$AUTHCTL_BIN" add benchadmin admin >/dev/null
# The client_credentials grant (issue 43): a service client of authd as
# OpenID provider, authenticated with client_secret_basic (the keyed hash:
# no argon2id), its token signed per request.
# The oidc part (bench/lib/oidc.sh) uses it too, and a first-party client.
CC_BASIC=
if [[ " $BENCH_SCENARIOS " == *" client_credentials "* ]] || part oidc; then
  export AUTHD_OIDC_PROVIDER=true
  cc_out=$("$AUTHCTL_BIN" client add "Bench service" --grant client_credentials --role user 2>/dev/null)
  CC_BASIC=$(printf '%s:%s' "$(sed -n 's/^client_id: //p' <<<"$cc_out")" "$(sed -n 's/^client_secret: //p' <<<"$cc_out")" |
    base64 -w0)
fi
part oidc && oidc_clients
start_fcgi "$AUTHD_BIN" "$STATE/authd-setup.log" "$WORKERS"
start_front lighttpd
wait_for_status /records 401
say "lighttpd (pid $FRONT_PID) on $BASE; set-up with authd (pid $FCGI_PID)"

signin_token() {
  curl --silent --noproxy '*' --max-time 10 -u "$1:$PASSWORD" -d '' "$BASE/signin" | jq -r '.token // empty'
}
USER_TOKEN=$(signin_token benchuser)
ADMIN_TOKEN=$(signin_token benchadmin)
[[ -n $USER_TOKEN && -n $ADMIN_TOKEN ]] || die "sign-in of the bench users failed"
RECORD_ID=$(curl --silent --noproxy '*' --max-time 10 -H "Authorization: Bearer $ADMIN_TOKEN" \
  -H 'Content-Type: application/json' -d '{"title":"benchmark record","body":"a small record"}' \
  "$BASE/records" | jq -r '._id // empty')
[[ -n $RECORD_ID ]] || die "creating the benchmark record failed"
# A tampered token: one character in the middle of the signature changed.
sig=${USER_TOKEN##*.}
mid=$((${#USER_TOKEN} - ${#sig} + ${#sig} / 2))
[[ ${USER_TOKEN:mid:1} == A ]] && repl=B || repl=A
BAD_TOKEN=${USER_TOKEN:0:mid}$repl${USER_TOKEN:mid+1}
BASIC=$(printf '%s' "benchuser:$PASSWORD" | base64 -w0)

check 200 GET /records -H "Authorization: Bearer $USER_TOKEN"
check 200 GET "/records/$RECORD_ID" -H "Authorization: Bearer $USER_TOKEN"
check 403 DELETE "/records/$RECORD_ID" -H "Authorization: Bearer $USER_TOKEN"
check 401 GET /records -H "Authorization: Bearer $BAD_TOKEN"
check 200 POST /signin -H "Authorization: Basic $BASIC" -d ''
[[ -z $CC_BASIC ]] || check 200 POST /token -H "Authorization: Basic $CC_BASIC" -d grant_type=client_credentials
# authd's argon2id parameters, from the hash a sign-up stores (and shows).
SIGNUP_PHC=$(curl --silent --noproxy '*' --max-time 10 -H 'Content-Type: application/json' \
  -d '{"username":"benchprobe","password":"probe password","fullname":"Probe","email":"probe@example.com"}' \
  "$BASE/signup" | jq -r '.user.password // empty')
[[ $SIGNUP_PHC == '$argon2id$'* ]] || die "sign-up did not answer an argon2id hash"
# What authd answers to the guarded read: the ceilings and peers answer the same bytes.
GUARDED_BODY=$(curl --silent --noproxy '*' --max-time 10 -H "Authorization: Bearer $USER_TOKEN" "$BASE/records")
stop_fcgi
# The users and the record, for the many-users part (benchuser's hash).
"$AUTHCTL_BIN" export >"$STATE/export.jsonl"
TOKEN=$USER_TOKEN

# ---- lighttpd: the ceiling, then authd -------------------------------------------
if part lighttpd; then
  AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$CEILING_BIN" "$STATE/ceiling.log" "$WORKERS"
  wait_for_status /records 200
  say "ceiling (pid $FCGI_PID) on $SOCKET"
  guarded ceiling "ceiling (trivial libfcgi responder, threads)" lighttpd "ceiling (libfcgi threads)" ceiling "$WORKERS" ""
  MEMORY+=("$(memory_json "$FCGI_PID" "authd_ceiling ($WORKERS threads)")")
  stop_fcgi
  # The other two candidates for the lighttpd ceiling: a pool of one process
  # per connection lighttpd opens (one per request: wrk's connections), and
  # the epoll responder.
  AUTHD_CEILING_PROCESSES=$BENCH_CONNECTIONS AUTHD_CEILING_BODY=$GUARDED_BODY \
    start_fcgi "$CEILING_BIN" "$STATE/ceiling-pool.log" 1
  wait_for_status /records 200
  ROW_CANDIDATE=ceiling guarded ceiling_pool "ceiling (libfcgi process pool)" lighttpd "ceiling (libfcgi pool)" ceiling \
    "$BENCH_CONNECTIONS" ""
  MEMORY+=("$(group_memory_json "$FCGI_PID" "authd_ceiling pool ($BENCH_CONNECTIONS processes)")")
  stop_fcgi
  AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$FAST_CEILING_BIN" "$STATE/ceiling-fast.log" "$FAST_LOOPS"
  wait_for_status /records 200
  ROW_CANDIDATE=ceiling guarded ceiling_fast "ceiling (epoll responder)" lighttpd "ceiling (epoll)" ceiling \
    "$FAST_LOOPS" ""
  MEMORY+=("$(memory_json "$FCGI_PID" "authd_fast_ceiling")")
  stop_fcgi
  if ((FAST_LOOPS > 1)); then
    # One loop can beat one per core when the front server and wrk share the
    # cores (fewer wake-ups, fuller batches): the ceiling is the faster.
    AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$FAST_CEILING_BIN" "$STATE/ceiling-fast1.log" 1
    wait_for_status /records 200
    ROW_CANDIDATE=ceiling guarded ceiling_fast1 "ceiling (epoll responder, one loop)" lighttpd "ceiling (epoll, one loop)" \
      ceiling 1 ""
    stop_fcgi
  fi

  start_fcgi "$AUTHD_BIN" "$STATE/authd.log" "$WORKERS"
  wait_for_status /records 401
  say "authd (pid $FCGI_PID) on $SOCKET"
  authd_row() {  # ID TITLE EXPECTED CONNECTIONS DURATION METHOD PATH [wrk args]
    [[ " $BENCH_SCENARIOS " == *" $1 "* ]] || return 0
    BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND=authd ROW_CEILING=ceiling \
    ROW_THREADS=$WORKERS ROW_KEEP='' ROW_USERS='' ROW_DB=lmdb:$AUTHD_STATE_DIR run_scenario "$@"
  }
  authd_row guarded_read "guarded read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $USER_TOKEN"
  authd_row capability_read "capability read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET "/records/$RECORD_ID" \
    -H "Authorization: Bearer $USER_TOKEN"
  authd_row capability_denied "capability denied" 403 "$BENCH_CONNECTIONS" "$BENCH_DURATION" DELETE "/records/$RECORD_ID" \
    -H "Authorization: Bearer $USER_TOKEN"
  authd_row invalid_token "invalid token" 401 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $BAD_TOKEN"
  MEMORY+=("$(memory_json "$FCGI_PID" "authd before sign-in")")
  authd_row signin "sign-in" 200 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signin \
    -H "Authorization: Basic $BASIC"
  BENCH_SIGNUP=b$$x$RANDOM authd_row signup "sign-up" 201 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signup
  [[ -z $CC_BASIC ]] || BENCH_BODY=grant_type=client_credentials authd_row client_credentials "client_credentials grant" 200 \
    "$BENCH_CONNECTIONS" "$BENCH_DURATION" POST /token -H "Authorization: Basic $CC_BASIC" \
    -H 'Content-Type: application/x-www-form-urlencoded'
  MEMORY+=("$(memory_json "$FCGI_PID" "authd after sign-up")" "$(group_memory_json "$FRONT_PID" lighttpd)")
  stop_fcgi
fi
stop_front

# fcgi_row ID TITLE FRONT CEILING_ID PROGRAM THREADS KEEP CONNECTIONS [FRONT ARGS]:
# PROGRAM (the ceiling or authd) with THREADS threads, a fresh front server
# in front of it (start_front FRONT ARGS), the guarded read. A fresh front per
# row: no kept connection outlives the backend it was made to. Before
# measuring, two requests in a row must answer 200 within 10 s each (the
# second one reuses a kept connection); when they do not, a note says so
# and the row is measured anyway (its errors and timeouts then show it).
fcgi_row() {
  local id=$1 title=$2 front=$3 ceiling_id=$4 program=$5 threads=$6 keep=$7 conns=$8 backend got attempt
  shift 8
  if [[ $program == pool:* ]]; then
    # pool:N: N single-threaded processes of the libfcgi ceiling.
    backend="ceiling (libfcgi pool)"
    threads=${program#pool:}
    AUTHD_CEILING_PROCESSES=$threads AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$CEILING_BIN" "$STATE/$id.log" 1
  elif [[ $program == "$FAST_CEILING_BIN" ]]; then
    backend="ceiling (epoll)"
    ((threads == 1 && FAST_LOOPS > 1)) && backend="ceiling (epoll, one loop)"
    AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$program" "$STATE/$id.log" "$threads"
  elif [[ $program == "$CEILING_BIN" ]]; then
    backend="ceiling (libfcgi threads)"
    AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$program" "$STATE/$id.log" "$threads"
  else
    backend=authd
    [[ ${AUTHD_EVENT_LOOPS:-} == 1 ]] && backend="authd (one event loop)"
    start_fcgi "$program" "$STATE/$id.log" "$threads"
  fi
  start_front "$front" "$@"
  local unit=threads
  [[ $program == pool:* ]] && unit="single-threaded processes"
  say "$front (pid $FRONT_PID) on $BASE, $backend (pid $FCGI_PID) with $threads $unit${keep:+, $keep kept connections}"
  for attempt in first second; do
    got=$(status_of GET /records -H "Authorization: Bearer $TOKEN")
    [[ $got == 200 ]] && continue
    [[ $got == 000 ]] && got="no answer within 10 s" || got="answered $got"
    NOTES+=("$title: the $attempt request before measuring got $got, not 200")
    say "${NOTES[-1]}"
    break
  done
  local candidate=
  [[ $backend == ceiling\ * ]] && candidate=$ceiling_id
  ROW_CANDIDATE=$candidate guarded "$id" "$title" "$front" "$backend" "$ceiling_id" "$threads" "$keep" "$conns"
  if [[ $backend == authd* && -n $ceiling_id ]]; then  # not for paired rounds (bench/lib/pairs.sh)
    MEMORY+=("$(memory_json "$FCGI_PID" "$title")" "$(group_memory_json "$FRONT_PID" "$front ($title)")")
  fi
  stop_front
  stop_fcgi
}

# The lighttpd part's paired rounds (bench/lib/pairs.sh), now that fcgi_row is defined.
if part lighttpd; then
  paired_rounds lighttpd ceiling guarded_read "$WORKERS" ""
fi

# ---- public-key tokens (token_algorithm = EdDSA), behind the same lighttpd ----------
# The same guarded read with an Ed25519-signed token (its own key ring in the
# state directory): the verified-token cache should keep it near the HS256
# rate of the lighttpd part (target: >= 0.9 x).
if part eddsa; then
  start_front lighttpd
  AUTHD_TOKEN_ALGORITHM=EdDSA start_fcgi "$AUTHD_BIN" "$STATE/authd-eddsa.log" "$WORKERS"
  wait_for_status /records 401
  EDDSA_TOKEN=$(signin_token benchuser)
  [[ $(printf '%s' "${EDDSA_TOKEN%%.*}" | tr '_-' '/+' | base64 -d 2>/dev/null) == *'"EdDSA"'* ]] ||
    die "the EdDSA part did not get an EdDSA token"
  check 200 GET /records -H "Authorization: Bearer $EDDSA_TOKEN"
  BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND="authd (EdDSA tokens)" \
  ROW_CEILING=ceiling ROW_THREADS=$WORKERS ROW_KEEP='' ROW_USERS='' \
    run_scenario eddsa_guarded_read "guarded read (EdDSA token)" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $EDDSA_TOKEN"
  stop_fcgi
  stop_front
fi

# ---- the PostgreSQL store, behind the same lighttpd ------------------------------
# A throw-away cluster (test/postgres/cluster.sh), the set-up's users and
# record imported with authctl, authd with store = postgresql and the same
# signing key: the guarded read (user and records caches kept coherent by
# LISTEN/NOTIFY), the capability read, sign-in and sign-up; then the guarded
# read through pgbouncer in transaction mode. × LMDB compares with the LMDB
# rows of the lighttpd part above.
PG_DIR=
if part postgresql; then
  # shellcheck source=../test/postgres/cluster.sh
  source "$ROOT/test/postgres/cluster.sh"
  PG_DIR=$(pg_cluster_new) || die "cannot create a PostgreSQL cluster"
  pg_cluster_start "$PG_DIR" || die "PostgreSQL did not start"
  pg_create_db "$PG_DIR" authd >/dev/null || die "cannot create the database"
  export AUTHD_STORE=postgresql AUTHD_DATABASE_URL
  AUTHD_DATABASE_URL=$(pg_url "$PG_DIR" authd)
  "$AUTHCTL_BIN" import "$STATE/export.jsonl" >/dev/null || die "authctl import into PostgreSQL failed"
  start_front lighttpd
  start_fcgi "$AUTHD_BIN" "$STATE/authd-pg.log" "$WORKERS"
  wait_for_status /records 401
  check 200 GET /records -H "Authorization: Bearer $USER_TOKEN"
  say "authd on PostgreSQL $(pg_as_server_user "$(pg_bindir)/postgres" --version 2>/dev/null | awk '{print $NF}') (pid $FCGI_PID)"
  pg_row() {  # ID TITLE EXPECTED CONNECTIONS DURATION METHOD PATH [wrk args]
    [[ " $BENCH_SCENARIOS " == *" $1 "* ]] || return 0
    local id=$1 title=$2
    shift 2
    BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND="authd (PostgreSQL)" \
    ROW_CEILING=ceiling ROW_THREADS=$WORKERS ROW_KEEP='' ROW_USERS='' ROW_DB=postgresql:$PG_DIR \
      run_scenario "pg_$id" "$title (PostgreSQL)" "$@"
  }
  pg_row guarded_read "guarded read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
    -H "Authorization: Bearer $USER_TOKEN"
  pg_row capability_read "capability read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET "/records/$RECORD_ID" \
    -H "Authorization: Bearer $USER_TOKEN"
  pg_row signin "sign-in" 200 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signin \
    -H "Authorization: Basic $BASIC"
  BENCH_SIGNUP=p$$x$RANDOM pg_row signup "sign-up" 201 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signup
  MEMORY+=("$(memory_json "$FCGI_PID" "authd on PostgreSQL after sign-up")")
  stop_fcgi
  # The guarded read again with pgbouncer (pool_mode = transaction, on a
  # loopback port) between authd and PostgreSQL, LISTEN going straight to
  # PostgreSQL (database_listen_url): docs/scaling-out.md's set-up.
  if command -v pgbouncer >/dev/null 2>&1 || [[ -x /usr/sbin/pgbouncer ]]; then
    PGB_DIR=$STATE/pgbouncer
    mkdir -p "$PGB_DIR"
    chmod 755 "$STATE"
    PGB_PORT=$(pick_port)
    printf '"authd" ""\n' >"$PGB_DIR/users.txt"
    pg_pgbouncer_ini "$PG_DIR" "$PGB_DIR" "$PGB_PORT" >"$PGB_DIR/pgbouncer.ini"
    ((EUID != 0)) || chown -R postgres "$PGB_DIR"  # pgbouncer refuses to run as root
    PGB_BIN=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
    if ((EUID == 0)); then
      (cd "$PGB_DIR" && exec setsid runuser -u postgres -- "$PGB_BIN" "$PGB_DIR/pgbouncer.ini") </dev/null >/dev/null 2>&1 &
    else
      (cd "$PGB_DIR" && exec setsid "$PGB_BIN" "$PGB_DIR/pgbouncer.ini") </dev/null >/dev/null 2>&1 &
    fi
    PGB_PID=$!
    wait_for_port "$PGB_PORT" "$PGB_PID" 10 || die "pgbouncer did not start"
    AUTHD_DATABASE_LISTEN_URL=$AUTHD_DATABASE_URL AUTHD_DATABASE_URL="host=127.0.0.1 port=$PGB_PORT user=authd dbname=authd" \
      start_fcgi "$AUTHD_BIN" "$STATE/authd-pgbouncer.log" "$WORKERS"
    wait_for_status /records 401
    check 200 GET /records -H "Authorization: Bearer $USER_TOKEN"
    BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND="authd (PostgreSQL through pgbouncer)" \
    ROW_CEILING=ceiling ROW_THREADS=$WORKERS ROW_KEEP='' ROW_USERS='' \
      run_scenario pg_pgbouncer_guarded_read "guarded read (PostgreSQL through pgbouncer)" 200 "$BENCH_CONNECTIONS" \
      "$BENCH_DURATION" GET /records -H "Authorization: Bearer $USER_TOKEN"
    stop_fcgi
    stop_group "$PGB_PID" pgbouncer
  else
    NOTES+=("the pgbouncer row was skipped: pgbouncer is not installed (scripts/deps.sh test installs it)")
    say "${NOTES[-1]}"
  fi
  stop_front
  unset AUTHD_STORE AUTHD_DATABASE_URL
  pg_cluster_remove "$PG_DIR"
  PG_DIR=
fi

# ---- nginx with FastCGI keep-alive -------------------------------------------------
# The ceiling with as many threads as nginx keeps connections (plain libfcgi
# holds a thread per kept connection), authd with BENCH_NGINX_AUTHD_WORKERS
# (the same by default), then authd with 4 x fewer threads than kept
# connections.
K=$BENCH_NGINX_KEEPALIVE
if part nginx; then
  fcgi_row nginx_ceiling "ceiling behind nginx, keep-alive (libfcgi, threads)" nginx nginx_ceiling "$CEILING_BIN" "$K" "$K" \
    "$BENCH_CONNECTIONS" fastcgi "$K"
  fcgi_row nginx_ceiling_pool "ceiling behind nginx, keep-alive (libfcgi process pool)" nginx nginx_ceiling "pool:$K" "$K" "$K" \
    "$BENCH_CONNECTIONS" fastcgi "$K"
  fcgi_row nginx_ceiling_fast "ceiling behind nginx, keep-alive (epoll responder)" nginx nginx_ceiling "$FAST_CEILING_BIN" \
    "$FAST_LOOPS" "$K" "$BENCH_CONNECTIONS" fastcgi "$K"
  if ((FAST_LOOPS > 1)); then
    fcgi_row nginx_ceiling_fast1 "ceiling behind nginx, keep-alive (epoll responder, one loop)" nginx nginx_ceiling \
      "$FAST_CEILING_BIN" 1 "$K" "$BENCH_CONNECTIONS" fastcgi "$K"
  fi
  fcgi_row nginx_authd "authd behind nginx, keep-alive" nginx nginx_ceiling "$AUTHD_BIN" "$BENCH_NGINX_AUTHD_WORKERS" "$K" \
    "$BENCH_CONNECTIONS" fastcgi "$K"
  if ((CORES > 1)); then
    # authd's event_loops = 1 (its default is one per core), as the one-loop ceiling.
    AUTHD_EVENT_LOOPS=1 fcgi_row nginx_authd1 "authd behind nginx, keep-alive, one event loop" nginx nginx_ceiling \
      "$AUTHD_BIN" "$BENCH_NGINX_AUTHD_WORKERS" "$K" "$BENCH_CONNECTIONS" fastcgi "$K"
  fi
  fcgi_row nginx_many "authd behind nginx, $BENCH_MANY_KEEPALIVE kept connections, $BENCH_MANY_WORKERS threads" \
    nginx nginx_ceiling "$AUTHD_BIN" "$BENCH_MANY_WORKERS" "$BENCH_MANY_KEEPALIVE" "$BENCH_MANY_CONNECTIONS" \
    fastcgi "$BENCH_MANY_KEEPALIVE"
  paired_rounds nginx nginx_ceiling nginx_authd "$BENCH_NGINX_AUTHD_WORKERS" "$K" fastcgi "$K"
fi

# ---- the OpenID provider behind the same nginx (issue 43) ----------------------------
# client_credentials, refresh (rotating), introspection and the whole code
# flow, each checked answer by answer (bench/lib/oidc.sh).
if part oidc; then
  oidc_phase
fi

# ---- Apache, mod_proxy_fcgi with enablereuse=on -------------------------------------
APACHE_REUSE=
if part apache; then
  fcgi_row apache_ceiling "ceiling behind Apache, enablereuse (libfcgi, threads)" apache apache_ceiling "$CEILING_BIN" \
    "$BENCH_APACHE_THREADS" "" "$BENCH_CONNECTIONS"
  fcgi_row apache_ceiling_pool "ceiling behind Apache, enablereuse (libfcgi process pool)" apache apache_ceiling \
    "pool:$BENCH_APACHE_POOL" "$BENCH_APACHE_POOL" "" "$BENCH_CONNECTIONS"
  fcgi_row apache_ceiling_fast "ceiling behind Apache, enablereuse (epoll responder)" apache apache_ceiling \
    "$FAST_CEILING_BIN" "$FAST_LOOPS" "" "$BENCH_CONNECTIONS"
  if ((FAST_LOOPS > 1)); then
    fcgi_row apache_ceiling_fast1 "ceiling behind Apache, enablereuse (epoll responder, one loop)" apache apache_ceiling \
      "$FAST_CEILING_BIN" 1 "" "$BENCH_CONNECTIONS"
  fi
  fcgi_row apache_authd "authd behind Apache, enablereuse" apache apache_ceiling "$AUTHD_BIN" \
    "$BENCH_APACHE_AUTHD_WORKERS" "" "$BENCH_CONNECTIONS"
  paired_rounds apache apache_ceiling apache_authd "$BENCH_APACHE_AUTHD_WORKERS" ""
fi

# ---- Node peers, directly and behind the same nginx ---------------------------------
if part peers; then
  PEER_SECRET=$(head -c 32 /dev/urandom | base64 -w0)
  TOKEN=$(PEER_SECRET=$PEER_SECRET node "$ROOT/bench/peers/mint-token.js") || die "minting the peers' token failed"
  for app in express fastify; do
    start_peer "$app-app"
    BASE=http://127.0.0.1:$PEER_PORT
    ACCESS_LOG=
    check 200 GET /records -H "Authorization: Bearer $TOKEN"
    [[ $(curl --silent --noproxy '*' -H "Authorization: Bearer $TOKEN" "$BASE/records") == "$GUARDED_BODY" ]] ||
      die "$app-app does not answer the records authd answers"
    say "$app-app (pid $PEER_PID, $PEER_WORKERS workers) on $BASE"
    BACKEND_OVERRIDE=$PEER_PID guarded "${app}_direct" "$app (Node cluster), direct" direct "$app" "" "$PEER_WORKERS" ""
    start_front nginx http "$K" "$PEER_PORT"
    check 200 GET /records -H "Authorization: Bearer $TOKEN"
    BACKEND_OVERRIDE=$PEER_PID guarded "${app}_nginx" "$app (Node cluster) behind nginx, keep-alive" nginx "$app" "" "$PEER_WORKERS" "$K"
    MEMORY+=("$(group_memory_json "$PEER_PID" "$app-app (Node cluster)")")
    stop_front
    stop_peer
  done
  TOKEN=$USER_TOKEN
fi

# ---- many users ----------------------------------------------------------------------
if part users; then
  users_phase "$STATE/export.jsonl"
fi

# ---- the capacity model (issue 45) ----------------------------------------------------
if part scale; then
  scale_phase
fi

# ---- report -------------------------------------------------------------------------
version_of() { "$@" 2>&1 | head -n 1 || true; }
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
changes=$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null || true)
[[ -n $changes ]] && dirty=true || dirty=false
((${#SCENARIOS[@]})) || die "no scenario ran (BENCH_PARTS='$BENCH_PARTS')"

jq -n \
  --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$commit" --argjson dirty "$dirty" \
  --argjson cores "$CORES" --arg cpu "$(lscpu 2>/dev/null | awk -F': *' '/^Model name/ { print $2; exit }')" \
  --arg kernel "$(uname -r)" --arg os "$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || echo unknown)" \
  --arg loadavg_start "$LOADAVG_START" --arg loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)" \
  --arg lighttpd "$(version_of lighttpd -v | awk '{ print $1 }')" \
  --arg nginx "$(version_of nginx -v | sed 's/^nginx version: //')" \
  --arg apache "$(version_of "$APACHE_BIN" -v | sed 's/^Server version: //')" \
  --arg node "$(node --version 2>/dev/null || true)" \
  --arg peers "$(cd "$ROOT/bench/peers" && node -p "['express','jsonwebtoken','fastify','fast-jwt'].map(m => m + ' ' + require(m + '/package.json').version).join(', ')" 2>/dev/null || true)" \
  --arg wrk "$(version_of wrk -v | awk '{ print $2 }')" --arg build_type "$BENCH_BUILD_TYPE" \
  --arg apache_reuse "$APACHE_REUSE" --argjson notes "$(jq -nc '$ARGS.positional' --args "${NOTES[@]}")" \
  --argjson workers "$WORKERS" --argjson connections "$BENCH_CONNECTIONS" \
  --argjson hash_connections "$BENCH_HASH_CONNECTIONS" --argjson threads "$BENCH_THREADS" \
  --argjson duration "$BENCH_DURATION" --argjson hash_duration "$BENCH_HASH_DURATION" \
  --argjson warmup "$BENCH_WARMUP" --argjson nginx_keepalive "$K" --argjson nginx_workers "$BENCH_NGINX_WORKERS" \
  --argjson many_workers "$BENCH_MANY_WORKERS" --argjson many_keepalive "$BENCH_MANY_KEEPALIVE" \
  --argjson many_connections "$BENCH_MANY_CONNECTIONS" --argjson apache_threads "$BENCH_APACHE_THREADS" \
  --argjson apache_pool "$BENCH_APACHE_POOL" --argjson fast_loops "$FAST_LOOPS" \
  --argjson pair_rounds "$BENCH_PAIRS" --argjson pair_duration "$BENCH_PAIR_DURATION" \
  --argjson peer_workers "$PEER_WORKERS" --argjson peer_users "$BENCH_PEER_USERS" \
  --arg authd_phc "$SIGNUP_PHC" \
  --slurpfile scenarios <(cat "${SCENARIOS[@]}") \
  --slurpfile memory <(printf '%s\n' "${MEMORY[@]}") \
  --slurpfile users_meta <( ((${#USERS_META[@]})) && printf '%s\n' "${USERS_META[@]}" || true) \
  --slurpfile micro "$MICRO_JSON" \
  -f "$ROOT/bench/results.jq" >"$BENCH_RESULTS/latest.json"
jq -r -f "$ROOT/bench/report.jq" "$BENCH_RESULTS/latest.json" >"$BENCH_RESULTS/latest.md"
cat "$BENCH_RESULTS/latest.md"
say "wrote ${BENCH_RESULTS#"$ROOT"/}/latest.md and latest.json"
