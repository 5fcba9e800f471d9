#!/usr/bin/env bash
# bench/run.sh - what `make bench` runs: authd's cost per request, measured
# against the architecture's ceiling in the same run.
#
# Builds (RelWithDebInfo, in its own build tree), installs what is missing
# (scripts/deps.sh bench), runs the Google Benchmark micro-benchmarks of lib/,
# then drives ONE lighttpd (conf/lighttpd.conf) on 127.0.0.1 with wrk. authd
# first runs once to create the tokens and a record, then:
#
#   1. ceiling           GET /records answered by build-bench/bench/authd_ceiling,
#                        a libfcgi responder with authd's threads and accept loop
#                        that does no auth work: same lighttpd, same socket, same
#                        request (bearer header included), same response body
#   2. guarded read      GET /records, valid bearer token (a one-record collection)
#   3. capability read   GET /records/{id}, role user has `read`
#      capability denied DELETE /records/{id}, role user lacks `delete` (403)
#   4. invalid token     GET /records with a tampered signature (401)
#   5. sign-in           POST /signin, Basic credentials (argon2id verify)
#      sign-up           POST /signup, a unique username per request (argon2id hash)
#
# For each: requests/s, p50/p99 latency, ratio to the ceiling, CPU time per
# request of lighttpd, the FastCGI program and wrk (and the throughput ratio
# that implies when the cores are the limit), the status breakdown (from
# lighttpd's access log); then the RSS of lighttpd and of the FastCGI
# processes (authd before and after the argon2id scenarios). Prints a Markdown report and writes it to
# $BENCH_RESULTS/latest.md, with everything as JSON in $BENCH_RESULTS/latest.json.
#
# Everything it starts (lighttpd, authd, the ceiling, wrk) is stopped at the
# end, on error and on Ctrl-C; the state directory under /tmp is removed
# (BENCH_KEEP_STATE=1 keeps it).
set -euo pipefail

# ---- parameters (each overridable from the environment) --------------------
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-32}        # wrk -c for the fast scenarios
BENCH_THREADS=${BENCH_THREADS:-2}                 # wrk -t
BENCH_DURATION=${BENCH_DURATION:-10}              # seconds measured per scenario
BENCH_WARMUP=${BENCH_WARMUP:-2}                   # seconds of unmeasured load before each
BENCH_HASH_CONNECTIONS=${BENCH_HASH_CONNECTIONS:-8}  # wrk -c for sign-in / sign-up (argon2id)
BENCH_HASH_DURATION=${BENCH_HASH_DURATION:-$BENCH_DURATION}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-5}                 # wrk --timeout, seconds
BENCH_WORKERS=${BENCH_WORKERS:-${AUTHD_WORKERS:-0}}  # FastCGI threads, both programs; 0 = 2 x cores
BENCH_MICRO=${BENCH_MICRO:-1}                     # 0: skip the micro-benchmarks
BENCH_MICRO_FILTER=${BENCH_MICRO_FILTER:-.}       # --benchmark_filter
BENCH_BUILD_DIR=${BENCH_BUILD_DIR:-build-bench}
BENCH_BUILD_TYPE=${BENCH_BUILD_TYPE:-RelWithDebInfo}   # Release or RelWithDebInfo
BENCH_RESULTS=${BENCH_RESULTS:-bench/results}
BENCH_DEPS=${BENCH_DEPS:-1}                       # 0: do not run scripts/deps.sh
BENCH_KEEP_STATE=${BENCH_KEEP_STATE:-0}
BENCH_SCENARIOS=${BENCH_SCENARIOS:-"guarded_read capability_read capability_denied invalid_token signin signup"}
                                                  # which to run after the ceiling (always run)
BENCH_PERF=${BENCH_PERF:-0}                       # 1: perf record -a (cpu-clock) during each measured run;
                                                  # CPU split per process and hot symbols in $BENCH_RESULTS/perf/
JOBS=${JOBS:-2}
# -----------------------------------------------------------------------------

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[[ $BENCH_BUILD_DIR == /* ]] || BENCH_BUILD_DIR=$ROOT/$BENCH_BUILD_DIR
[[ $BENCH_RESULTS == /* ]] || BENCH_RESULTS=$ROOT/$BENCH_RESULTS
LUA=$ROOT/bench/wrk/scenario.lua
REPORT_JQ=$ROOT/bench/report.jq

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# The start-up and shut-down of the stack, shared with `make run` and the tests.
# shellcheck disable=SC2034  # read by stack_lib.sh
STACK_SAY=bench
# shellcheck source=../scripts/stack_lib.sh
source "$ROOT/scripts/stack_lib.sh"

for v in BENCH_CONNECTIONS BENCH_THREADS BENCH_DURATION BENCH_WARMUP BENCH_HASH_CONNECTIONS \
         BENCH_HASH_DURATION BENCH_TIMEOUT BENCH_WORKERS JOBS; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v must be a whole number, not '${!v}'"
done
((BENCH_DURATION > 0 && BENCH_HASH_DURATION > 0)) || die "durations must be positive"
case $BENCH_BUILD_TYPE in Release|RelWithDebInfo) ;; *) die "BENCH_BUILD_TYPE must be Release or RelWithDebInfo" ;; esac

# ---- dependencies and build --------------------------------------------------
if ((BENCH_DEPS)); then
  "$ROOT/scripts/deps.sh" bench
fi
for tool in cmake lighttpd spawn-fcgi wrk curl jq setsid; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed (scripts/deps.sh bench installs it)"
done
if ((BENCH_PERF)) && ! perf record -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
  die "BENCH_PERF=1 needs a working perf (Debian: linux-perf) and perf_event_paranoid <= 1 or root"
fi

say "building ($BENCH_BUILD_TYPE) in ${BENCH_BUILD_DIR#"$ROOT"/}"
mkdir -p "$BENCH_BUILD_DIR"
cmake -S "$ROOT" -B "$BENCH_BUILD_DIR" -DCMAKE_BUILD_TYPE="$BENCH_BUILD_TYPE" \
  -DAUTHD_BUILD_BENCH=ON -DAUTHD_BUILD_TESTS=OFF -DAUTHD_SANITIZE=OFF >"$BENCH_BUILD_DIR/bench-configure.log" 2>&1 ||
  { cat "$BENCH_BUILD_DIR/bench-configure.log" >&2; die "cmake configure failed"; }
targets=(authd authctl authd_ceiling)
((BENCH_MICRO)) && targets+=(authd_micro)
cmake --build "$BENCH_BUILD_DIR" -j"$JOBS" --target "${targets[@]}" >&2
AUTHD_BIN=$BENCH_BUILD_DIR/authd
AUTHCTL_BIN=$BENCH_BUILD_DIR/authctl
CEILING_BIN=$BENCH_BUILD_DIR/bench/authd_ceiling
MICRO_BIN=$BENCH_BUILD_DIR/bench/authd_micro

# ---- state, processes, cleanup -------------------------------------------------
STATE=$(mktemp -d "${TMPDIR:-/tmp}/authd-bench.XXXXXX")
RAW=$STATE/raw
mkdir -p "$RAW" "$STATE/db" "$BENCH_RESULTS"
SOCKET=$STATE/fcgi.sock
ACCESS_LOG=$STATE/lighttpd-access.log
FCGI_PID=
LIGHTTPD_PID=
WRK_PID=

cleaned=0
cleanup() {
  ((cleaned)) && return 0
  cleaned=1
  trap '' INT TERM HUP
  stop_pid "$WRK_PID" wrk
  stop_group "$LIGHTTPD_PID" lighttpd
  stop_group "$FCGI_PID" "FastCGI responder"
  if [[ $BENCH_KEEP_STATE == 1 ]]; then
    say "state kept in $STATE"
  else
    rm -rf "$STATE"
  fi
}
trap 'rc=$?; cleanup; exit $rc' EXIT
trap 'say "interrupted"; exit 130' INT
trap 'exit 143' TERM HUP

# Starts a FastCGI program on $SOCKET under spawn-fcgi (own process group).
start_fcgi() {
  local bin=$1 log=$2 rc=0
  AUTHD_WORKERS=$BENCH_WORKERS AUTHD_STATE_DIR=$STATE/db fcgi_spawn "$SOCKET" "$log" "$bin" || rc=$?
  FCGI_PID=$SPAWNED_PID
  ((rc == 0)) && return 0
  cat "$log" >&2 || true
  die "$(basename "$bin") did not start on $SOCKET"
}

stop_fcgi() {
  stop_group "$FCGI_PID" "FastCGI responder"
  FCGI_PID=
  rm -f "$SOCKET"
}

start_lighttpd() {
  local attempt rc
  for ((attempt = 0; attempt < 10; attempt++)); do
    PORT=$(pick_port) || die "found no free port"
    rc=0
    lighttpd_spawn "$ROOT/conf/lighttpd.conf" "$PORT" "$ROOT/www" "$STATE" "$SOCKET" || rc=$?
    LIGHTTPD_PID=$SPAWNED_PID
    ((rc == 0)) && { BASE=http://127.0.0.1:$PORT; return 0; }
    stop_group "$LIGHTTPD_PID" lighttpd
    LIGHTTPD_PID=
    ((rc == 2)) || break
  done
  cat "$STATE/lighttpd-error.log" "$STATE/lighttpd.out" >&2 2>/dev/null || true
  die "lighttpd did not start"
}

status_of() {  # METHOD PATH [curl args...] -> HTTP status
  local method=$1 path=$2
  shift 2
  curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' -X "$method" "$@" "$BASE$path" || true
}

wait_for_status() {  # PATH STATUS: until lighttpd routes to the new backend
  wait_for_http "$BASE$1" "$2" 15 || die "GET $1 answered $WAIT_STATUS, expected $2"
}

# VmRSS etc. of PID as a JSON object (kB values).
memory_json() {
  local pid=$1 name=$2
  awk -v name="$name" -v pid="$pid" '
    /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads):/ { v[$1] = $2 }
    END {
      printf "{\"process\":\"%s\",\"pid\":%d,\"rss_kb\":%d,\"hwm_kb\":%d,\"anon_kb\":%d,\"file_kb\":%d,\"shmem_kb\":%d,\"threads\":%d}\n",
        name, pid, v["VmRSS:"], v["VmHWM:"], v["RssAnon:"], v["RssFile:"], v["RssShmem:"], v["Threads:"]
    }' "/proc/$pid/status"
}

# Where the CPU went during scenario ID (BENCH_PERF=1): share of samples per
# process, then the hottest symbols of each FastCGI program and of lighttpd.
perf_summary() {
  local id=$1 title=$2 data=$RAW/$1.perf.data report
  [[ -s $data ]] || { say "  perf recorded nothing (see $RAW/$id.perf.log)"; return 0; }
  mkdir -p "$BENCH_RESULTS/perf"
  report=$BENCH_RESULTS/perf/$id.txt
  (
    set +e +o pipefail
    echo "# $title: perf record -a -e cpu-clock, $(nproc) cores, while wrk ran"
    echo
    echo "## samples by process (command)"
    perf report -i "$data" --stdio --no-children --sort comm 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 15
    echo
    echo "## samples by process and object"
    perf report -i "$data" --stdio --no-children --sort comm,dso 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30
    local comm
    for comm in authd authd_ceiling lighttpd; do
      echo
      echo "## $comm: hottest symbols (share of all samples)"
      perf report -i "$data" --stdio --no-children --comms "$comm" --sort dso,sym 2>/dev/null |
        grep -v '^#' | grep -v '^$' | head -n 40
    done
  ) >"$report" 2>/dev/null
  rm -f "$data"
  say "  perf summary: ${report#"$ROOT"/}"
}

# CPU time (user + system, all threads) PID has used so far, in clock ticks.
cpu_ticks() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  st=${st##*) }
  awk '{ print $12 + $13 }' <<<"$st"
}
CLK_TCK=$(getconf CLK_TCK)

# Sets CHILDREN_CPU_US to the user + system CPU time of this script's
# terminated, waited-for children (bash's `times`, second line). `times` must
# run in this shell, not in a $(...) subshell, hence the file.
children_cpu() {
  times >"$RAW/times.txt"
  CHILDREN_CPU_US=$(awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
    printf "%d\n", t * 1e6 }' "$RAW/times.txt")
}

# Seconds lighttpd may keep access-log lines buffered before writing them.
LOG_FLUSH_WAIT=1.2

# run_scenario ID TITLE EXPECTED CONNECTIONS DURATION METHOD PATH [wrk args...]
# Environment for the Lua script (BENCH_BODY, BENCH_SIGNUP) passes through.
SCENARIOS=()
run_scenario() {
  local id=$1 title=$2 expected=$3 conns=$4 duration=$5 method=$6 path=$7
  shift 7
  if [[ $id != ceiling && " $BENCH_SCENARIOS " != *" $id "* ]]; then
    return 0
  fi
  local out=$RAW/$id.json
  say "$title: $method $path, $conns connections, ${BENCH_WARMUP}s warm-up + ${duration}s"
  if ((BENCH_WARMUP > 0)); then
    BENCH_METHOD=$method BENCH_SIGNUP=${BENCH_SIGNUP:+${BENCH_SIGNUP}w} \
      wrk -t"$BENCH_THREADS" -c"$conns" -d"${BENCH_WARMUP}s" --timeout "${BENCH_TIMEOUT}s" \
      -s "$LUA" "$@" "$BASE$path" >"$RAW/$id.warmup.txt" 2>&1 &
    WRK_PID=$!
    wait "$WRK_PID" || die "wrk (warm-up of $id) failed: $(cat "$RAW/$id.warmup.txt")"
    WRK_PID=
  fi
  sleep "$LOG_FLUSH_WAIT"
  local offset
  offset=$(stat -c %s "$ACCESS_LOG" 2>/dev/null || echo 0)
  local perf_pid= fcgi_cpu0 lighttpd_cpu0 wrk_cpu0
  children_cpu
  wrk_cpu0=$CHILDREN_CPU_US
  fcgi_cpu0=$(cpu_ticks "$FCGI_PID")
  lighttpd_cpu0=$(cpu_ticks "$LIGHTTPD_PID")
  if ((BENCH_PERF)); then
    perf record -a -e cpu-clock -F 499 -o "$RAW/$id.perf.data" -- sleep "$duration" >"$RAW/$id.perf.log" 2>&1 &
    perf_pid=$!
  fi
  BENCH_METHOD=$method BENCH_OUT=$out \
    wrk -t"$BENCH_THREADS" -c"$conns" -d"${duration}s" --timeout "${BENCH_TIMEOUT}s" --latency \
    -s "$LUA" "$@" "$BASE$path" >"$RAW/$id.txt" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID" || die "wrk ($id) failed: $(cat "$RAW/$id.txt")"
  WRK_PID=
  local fcgi_cpu=$(($(cpu_ticks "$FCGI_PID") - fcgi_cpu0)) lighttpd_cpu=$(($(cpu_ticks "$LIGHTTPD_PID") - lighttpd_cpu0))
  children_cpu
  local wrk_cpu=$((CHILDREN_CPU_US - wrk_cpu0))
  [[ -s $out ]] || die "wrk ($id) wrote no figures: $(cat "$RAW/$id.txt")"
  if [[ -n $perf_pid ]]; then
    wait "$perf_pid" || true
    perf_summary "$id" "$title"
  fi
  sleep "$LOG_FLUSH_WAIT"
  # Status breakdown of the measured window, from lighttpd's access log
  # (combined format: the status follows the quoted request line).
  local statuses
  statuses=$(tail -c +"$((offset + 1))" "$ACCESS_LOG" |
    awk -F'"' 'NF >= 3 { split($3, a, " "); n[a[1]]++ }
               END { s = ""; for (k in n) s = s (s == "" ? "" : ",") "\"" k "\":" n[k]; print "{" s "}" }')
  jq -c --arg id "$id" --arg title "$title" --arg method "$method" --arg path "$path" \
     --argjson expected "$expected" --argjson connections "$conns" --argjson statuses "$statuses" \
     --argjson fcgi_ticks "$fcgi_cpu" --argjson lighttpd_ticks "$lighttpd_cpu" --argjson hz "$CLK_TCK" \
     --argjson wrk_us "$wrk_cpu" \
     '{id: $id, title: $title, method: $method, path: $path, expected_status: $expected,
       connections: $connections, statuses: $statuses} + .
      | . + {cpu_us_per_request: {
          fastcgi: (if .requests > 0 then $fcgi_ticks / $hz * 1e6 / .requests else null end),
          lighttpd: (if .requests > 0 then $lighttpd_ticks / $hz * 1e6 / .requests else null end),
          wrk: (if .requests > 0 then $wrk_us / .requests else null end)}}
      | .cpu_us_per_request.total = (.cpu_us_per_request | [.fastcgi, .lighttpd, .wrk] | add)' \
     "$out" >"$RAW/$id.scenario.json"
  SCENARIOS+=("$RAW/$id.scenario.json")
  local rps
  rps=$(jq -r '(.requests / (.duration_us / 1e6)) | floor' "$out")
  say "  $rps req/s, p50 $(jq -r '.latency_us.p50' "$out") us, p99 $(jq -r '.latency_us.p99' "$out") us, statuses $statuses," \
      "CPU/request: FastCGI $(jq -r '.cpu_us_per_request.fastcgi | floor' "$RAW/$id.scenario.json") us," \
      "lighttpd $(jq -r '.cpu_us_per_request.lighttpd | floor' "$RAW/$id.scenario.json") us," \
      "wrk $(jq -r '.cpu_us_per_request.wrk | floor' "$RAW/$id.scenario.json") us"
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
# authd runs once to mint the tokens and the record (and to learn its answer
# to the guarded read), then makes way for the ceiling, then comes back on the
# same state for the measured scenarios.
export AUTHD_STATE_DIR=$STATE/db
PASSWORD='bench correct horse'
printf '%s\n' "$PASSWORD" | "$AUTHCTL_BIN" add benchuser user --fullname 'Bench User' --email bench@example.com >/dev/null
printf '%s\n' "$PASSWORD" | "$AUTHCTL_BIN" add benchadmin admin >/dev/null
start_fcgi "$AUTHD_BIN" "$STATE/authd-setup.log"
start_lighttpd
wait_for_status /records 401
say "lighttpd (pid $LIGHTTPD_PID) on $BASE; set-up with authd (pid $FCGI_PID)"

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

# Sanity: each scenario answers what it should before it is measured.
check() {
  local want=$1 got
  shift
  got=$(status_of "$@")
  [[ $got == "$want" ]] || die "$* answered $got, expected $want"
}
check 200 GET /records -H "Authorization: Bearer $USER_TOKEN"
check 200 GET "/records/$RECORD_ID" -H "Authorization: Bearer $USER_TOKEN"
check 403 DELETE "/records/$RECORD_ID" -H "Authorization: Bearer $USER_TOKEN"
check 401 GET /records -H "Authorization: Bearer $BAD_TOKEN"
check 200 POST /signin -H "Authorization: Basic $BASIC" -d ''
# authd's argon2id parameters, from the hash a sign-up stores (and shows).
SIGNUP_PHC=$(curl --silent --noproxy '*' --max-time 10 -H 'Content-Type: application/json' \
  -d '{"username":"benchprobe","password":"probe password","fullname":"Probe","email":"probe@example.com"}' \
  "$BASE/signup" | jq -r '.user.password // empty')
[[ $SIGNUP_PHC == '$argon2id$'* ]] || die "sign-up did not answer an argon2id hash"
# What authd answers to the guarded read: the ceiling answers the same bytes.
GUARDED_BODY=$(curl --silent --noproxy '*' --max-time 10 -H "Authorization: Bearer $USER_TOKEN" "$BASE/records")
stop_fcgi

# ---- 1. the ceiling --------------------------------------------------------------
# The same request as the guarded read (bearer header included), the same
# response body, through the same lighttpd and socket; no auth work.
AUTHD_CEILING_BODY=$GUARDED_BODY start_fcgi "$CEILING_BIN" "$STATE/ceiling.log"
wait_for_status /records 200
say "ceiling (pid $FCGI_PID) on $SOCKET"
run_scenario ceiling "ceiling (trivial FastCGI responder)" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
  -H "Authorization: Bearer $USER_TOKEN"
MEMORY=("$(memory_json "$FCGI_PID" authd_ceiling)")
stop_fcgi

# ---- authd again, fresh process, same state ---------------------------------------
start_fcgi "$AUTHD_BIN" "$STATE/authd.log"
wait_for_status /records 401
say "authd (pid $FCGI_PID) on $SOCKET"

# ---- 2-5. authd ------------------------------------------------------------------
run_scenario guarded_read "guarded read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
  -H "Authorization: Bearer $USER_TOKEN"
run_scenario capability_read "capability read" 200 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET "/records/$RECORD_ID" \
  -H "Authorization: Bearer $USER_TOKEN"
run_scenario capability_denied "capability denied" 403 "$BENCH_CONNECTIONS" "$BENCH_DURATION" DELETE "/records/$RECORD_ID" \
  -H "Authorization: Bearer $USER_TOKEN"
run_scenario invalid_token "invalid token" 401 "$BENCH_CONNECTIONS" "$BENCH_DURATION" GET /records \
  -H "Authorization: Bearer $BAD_TOKEN"
if [[ " $BENCH_SCENARIOS " == *" signin "* || " $BENCH_SCENARIOS " == *" signup "* ]]; then
  MEMORY+=("$(memory_json "$FCGI_PID" "authd before sign-in")")
fi
run_scenario signin "sign-in" 200 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signin \
  -H "Authorization: Basic $BASIC"
BENCH_SIGNUP=b$$x$RANDOM run_scenario signup "sign-up" 201 "$BENCH_HASH_CONNECTIONS" "$BENCH_HASH_DURATION" POST /signup

MEMORY+=("$(memory_json "$FCGI_PID" authd)" "$(memory_json "$LIGHTTPD_PID" lighttpd)")

# ---- report -------------------------------------------------------------------------
cores=$(nproc)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
lighttpd_version=$( (lighttpd -v 2>/dev/null || true) | awk 'NR == 1 { print $1 }')
wrk_version=$( (wrk -v 2>&1 || true) | awk 'NR == 1 { print $2 }')
workers=$BENCH_WORKERS
((workers > 0)) || workers=$((2 * cores))
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
changes=$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null || true)
[[ -n $changes ]] && dirty=true || dirty=false

jq -n \
  --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$commit" --argjson dirty "$dirty" \
  --argjson cores "$cores" --arg cpu "$cpu" --arg kernel "$(uname -r)" \
  --arg loadavg_start "$LOADAVG_START" --arg loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)" \
  --arg lighttpd "$lighttpd_version" --arg wrk "$wrk_version" --arg build_type "$BENCH_BUILD_TYPE" \
  --argjson workers "$workers" --argjson connections "$BENCH_CONNECTIONS" \
  --argjson hash_connections "$BENCH_HASH_CONNECTIONS" --argjson threads "$BENCH_THREADS" \
  --argjson duration "$BENCH_DURATION" --argjson hash_duration "$BENCH_HASH_DURATION" \
  --argjson warmup "$BENCH_WARMUP" --arg authd_phc "$SIGNUP_PHC" \
  --slurpfile scenarios <(cat "${SCENARIOS[@]}") \
  --slurpfile memory <(printf '%s\n' "${MEMORY[@]}") \
  --slurpfile micro "$MICRO_JSON" \
  -f "$ROOT/bench/results.jq" >"$BENCH_RESULTS/latest.json"
jq -r -f "$REPORT_JQ" "$BENCH_RESULTS/latest.json" >"$BENCH_RESULTS/latest.md"
cat "$BENCH_RESULTS/latest.md"
say "wrote ${BENCH_RESULTS#"$ROOT"/}/latest.md and latest.json"
