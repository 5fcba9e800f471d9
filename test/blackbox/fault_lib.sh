# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034  # GAP_MS etc. are for the tests
# test/blackbox/fault_lib.sh - helpers for the concurrency, crash, load, fault
# and shutdown tests (t_race_*, t_crash_*, t_load_*, t_fault_*, t_shutdown_*).
# Source it instead of harness.sh (it sources harness.sh):
#
#   source "$(dirname "${BASH_SOURCE[0]}")/fault_lib.sh"
#   stack_start_supervised        # or stack_start, as with harness.sh
#   kill_authd_and_measure_gap    # sets GAP_MS
#   finish
#
# Functions (besides everything in harness.sh and assert.sh)
#   stack_start_supervised
#                  stack_start, with authd run by scripts/supervise-authd.sh
#                  (the supervisor `make run` uses) instead of plain
#                  spawn-fcgi: a killed authd comes back by itself. Then
#                  AUTHD_PID (and SUPERVISOR_PID) is the supervisor's pid;
#                  authd_child_pid prints the FastCGI process's pid.
#                  authd_start / authd_stop then start and stop the
#                  supervisor (stop: SIGTERM, which it forwards to authd,
#                  then waits; KILL after 15 s). SUPERVISE_* settings
#                  (back-off) pass through from the environment.
#   authd_child_pid [TIMEOUT_S]
#                  prints the pid of the live authd process (supervised:
#                  the supervisor's current child; otherwise AUTHD_PID),
#                  waiting up to TIMEOUT_S (default 15) for one; returns 1
#                  when there is none.
#   now_ms         milliseconds since the epoch.
#   probe PATH     status of GET PATH through lighttpd, 000 when no answer
#                  (1 s timeout).
#   wait_status PATH CODE [TIMEOUT_S]
#                  polls GET PATH every 50 ms until it answers CODE; sets
#                  WAITED_MS; returns 1 on timeout (default 20 s).
#   kill_authd_and_measure_gap [SIGNAL]
#                  (supervised stack) sends SIGNAL (default KILL) to the
#                  current authd process and polls GET /records until it
#                  answers 401 again from a new process. Sets GAP_MS (time
#                  from the kill to the first 401), OLD_PID and NEW_PID;
#                  returns 1 when service did not come back within 30 s.
#   rss_kib PID    resident set size (VmRSS) of PID in KiB.
#   rss_anon_kib PID
#                  anonymous resident memory (RssAnon: heap, stacks) in KiB;
#                  unlike VmRSS it leaves out the pages of the LMDB map.
#   status_of METHOD PATH [CURL ARGS...]
#                  prints only the HTTP status of one request ("000" when no
#                  answer); light enough for many background jobs.
#   signup_status USER PASSWORD
#                  POST /signup for USER; prints the status.
#   signup_answer USER PASSWORD
#                  POST /signup for USER; prints "STATUS MEDIA-TYPE", e.g.
#                  "201 application/json", "500 text/html" (lighttpd's own
#                  error page), "000 -" (no answer).
#   signin_status USER PASSWORD
#                  POST /signin with Basic credentials; prints the status.
#   signin_token USER PASSWORD
#                  prints the token of a successful sign-in (empty otherwise).
#   count_lines FILE REGEX
#                  number of lines of FILE matching the ERE REGEX (0 if none).
#   lmdb_check DIR
#                  checks the LMDB environment in DIR with lmdb-utils:
#                  `mdb_stat -ef` (environment and free list), `mdb_stat -rr -a`
#                  (reader table, clearing stale readers, then every table)
#                  and `mdb_dump -a` (reads every page of every table). Prints
#                  the first failure's output and returns 1 on a failure.
#                  Sets LMDB_STALE_READERS (slots of dead processes cleared).
#   users_listed   number of accounts `authctl list` shows.
#   free_port      prints a free 127.0.0.1 port.
#   fault_die MSG  prints MSG and exits 1 (a setup failure, not a check).
#   print_figure NAME VALUE
#                  prints "figure: NAME = VALUE" (the figures each test
#                  reports: requests, errors, users checked, RSS...).

# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

SUPERVISOR=${SUPERVISOR:-$SOURCE_DIR/scripts/supervise-authd.sh}

fault_die() {
  printf 'fault_lib: %s\n' "$*" >&2
  exit 1
}

# A free 127.0.0.1 port (for stacks the test starts itself, e.g. serve.sh).
free_port() {
  local p i
  for ((i = 0; i < 50; i++)); do
    # below Linux's ephemeral range (32768-60999), where outgoing connections
    # (wrk, curl) would take ports between this check and the bind
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}
SUPERVISOR_PID=
SUPERVISED=0
export SUPERVISOR

now_ms() {
  local t=${EPOCHREALTIME/[.,]/}
  echo $((t / 1000))
}

print_figure() {
  printf 'figure: %s = %s\n' "$1" "$2"
}

_fault_alive() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [[ ${st:0:1} != Z ]]
}

probe() {
  curl --silent --noproxy '*' --max-time 1 --output /dev/null \
       --write-out '%{http_code}' "http://127.0.0.1:$PORT$1" 2>/dev/null || true
}

wait_status() {
  local path=$1 want=$2 timeout=${3:-20} start code
  start=$(now_ms)
  WAITED_MS=0
  while :; do
    code=$(probe "$path")
    WAITED_MS=$(($(now_ms) - start))
    [[ $code == "$want" ]] && return 0
    ((WAITED_MS < timeout * 1000)) || return 1
    sleep 0.05
  done
}

status_of() {
  local method=$1 path=$2 code
  shift 2
  local -a extra=()
  if [[ $method == POST || $method == PUT ]]; then
    local a has_body=0
    for a in "$@"; do
      case $a in -d* | --data*) has_body=1 ;; esac
    done
    ((has_body)) || extra=(--header 'Content-Length: 0')
  fi
  code=$(curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" --output /dev/null \
              --write-out '%{http_code}' --request "$method" "${extra[@]}" "$@" \
              "$BASE_URL$path" 2>/dev/null) || true
  echo "${code:-000}"
}

signup_status() {
  status_of POST /signup -H 'Content-Type: application/json' \
    --data-binary "{\"username\":\"$1\",\"password\":\"$2\",\"fullname\":\"Load Test\",\"email\":\"$1@example.com\"}"
}

signup_answer() {
  local out
  out=$(curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" --output /dev/null \
             --write-out '%{http_code} %{content_type}' -H 'Content-Type: application/json' \
             --data-binary "{\"username\":\"$1\",\"password\":\"$2\",\"fullname\":\"Load Test\",\"email\":\"$1@example.com\"}" \
             "$BASE_URL/signup" 2>/dev/null) || true
  local code=${out%% *} type=${out#* }
  type=${type%%;*}
  echo "${code:-000} ${type:--}"
}

signin_status() {
  status_of POST /signin -u "$1:$2"
}

signin_token() {
  curl --silent --noproxy '*' --max-time "${HTTP_TIMEOUT:-10}" -u "$1:$2" \
       -H 'Content-Length: 0' -X POST "$BASE_URL/signin" 2>/dev/null | jq -r '.token // empty' 2>/dev/null
}

count_lines() {
  local n
  n=$(grep -cE -- "$2" "$1" 2>/dev/null) || true
  echo "${n:-0}"
}

rss_kib() {
  awk '/^VmRSS:/ { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$1/status" 2>/dev/null || echo 0
}

rss_anon_kib() {
  awk '/^RssAnon:/ { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$1/status" 2>/dev/null || echo 0
}

lmdb_check() {
  local dir=$1 err cmd rc tmp
  tmp=$(mktemp "${TMPDIR:-/tmp}/lmdb-check.XXXXXX")
  LMDB_STALE_READERS=
  for cmd in "mdb_stat -ef" "mdb_stat -rr -a" "mdb_dump -a"; do
    # shellcheck disable=SC2086  # cmd is a command and its options
    $cmd "$dir" >"$tmp" 2>"$tmp.err"
    rc=$?
    err=$(head -n 20 "$tmp.err")
    if ((rc != 0)) || [[ -n $err ]]; then
      printf '%s %s: status %s: %s\n' "$cmd" "$dir" "$rc" "$err"
      rm -f "$tmp" "$tmp.err"
      return 1
    fi
    if [[ $cmd == "mdb_stat -rr -a" ]]; then
      LMDB_STALE_READERS=$(awk '/stale readers cleared/ { print $1 }' "$tmp")
    fi
  done
  rm -f "$tmp" "$tmp.err"
  return 0
}

users_listed() {
  authctl list 2>/dev/null | grep -cvE '^[[:space:]]*$|^(USERNAME|username)\b' || true
}

authd_child_pid() {
  local timeout=${1:-15} deadline pid
  if ((!SUPERVISED)); then
    [[ -n $AUTHD_PID ]] && _fault_alive "$AUTHD_PID" && { echo "$AUTHD_PID"; return 0; }
    return 1
  fi
  deadline=$(($(now_ms) + timeout * 1000))
  while :; do
    pid=$(cat "$STATE_DIR/authd.pid" 2>/dev/null) || pid=
    if [[ -n $pid ]] && _fault_alive "$pid" &&
       [[ $(cat "/proc/$pid/comm" 2>/dev/null) == authd* ]]; then
      echo "$pid"
      return 0
    fi
    (($(now_ms) < deadline)) || return 1
    sleep 0.05
  done
}

# --- supervised stack ----------------------------------------------------------

_supervised_authd_start() {
  [[ -n $STATE_DIR ]] || fault_die "authd_start: call stack_start_supervised first"
  if [[ -n $SUPERVISOR_PID ]] && _fault_alive "$SUPERVISOR_PID"; then
    echo "fault_lib: authd_start: the supervisor already runs (pid $SUPERVISOR_PID)" >&2
    return 0
  fi
  rm -f "$STATE_DIR/authd.pid"
  SUPERVISE_PID_FILE=$STATE_DIR/authd.pid AUTHD_BIN=$AUTHD_BIN \
    setsid "$SUPERVISOR" "$FCGI_SOCKET" </dev/null >>"$STATE_DIR/authd.log" 2>&1 &
  SUPERVISOR_PID=$!
  AUTHD_PID=$SUPERVISOR_PID
  export SUPERVISOR_PID AUTHD_PID

  local i
  for ((i = 0; i < 200; i++)); do
    [[ -S $FCGI_SOCKET && -s $STATE_DIR/authd.pid ]] && break
    if ! _fault_alive "$SUPERVISOR_PID"; then
      echo "fault_lib: the supervisor exited during start-up" >&2
      dump_logs >&2
      return 1
    fi
    sleep 0.05
  done
  if [[ ! -S $FCGI_SOCKET ]]; then
    echo "fault_lib: the supervisor did not create $FCGI_SOCKET" >&2
    dump_logs >&2
    return 1
  fi
  if [[ -n $LIGHTTPD_PID ]]; then
    if ! wait_status /records 401 "${STACK_START_TIMEOUT:-15}"; then
      echo "fault_lib: GET /records did not answer 401 after the supervisor started" >&2
      dump_logs >&2
      return 1
    fi
  fi
  return 0
}

_supervised_authd_stop() {
  [[ -n $SUPERVISOR_PID ]] || return 0
  local i
  kill -TERM "$SUPERVISOR_PID" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    _fault_alive "$SUPERVISOR_PID" || break
    sleep 0.1
  done
  if _fault_alive "$SUPERVISOR_PID"; then
    echo "fault_lib: the supervisor (pid $SUPERVISOR_PID) did not stop within 15 s: killing its group" >&2
    kill -KILL -- "-$SUPERVISOR_PID" 2>/dev/null || true
  fi
  wait "$SUPERVISOR_PID" 2>/dev/null || true
  SUPERVISOR_PID=
  AUTHD_PID=
  rm -f "$FCGI_SOCKET"
}

stack_start_supervised() {
  SUPERVISED=1
  [[ -x $SUPERVISOR ]] || fault_die "SUPERVISOR=$SUPERVISOR is not an executable"
  authd_start() { _supervised_authd_start; }
  authd_stop() { _supervised_authd_stop; }
  stack_start
}

kill_authd_and_measure_gap() {
  local sig=${1:-KILL} t0 deadline code
  GAP_MS=
  NEW_PID=
  OLD_PID=$(authd_child_pid 15) || { echo "fault_lib: no authd process to kill" >&2; return 1; }
  t0=$(now_ms)
  kill "-$sig" "$OLD_PID" 2>/dev/null || true
  deadline=$((t0 + 30000))
  while (($(now_ms) < deadline)); do
    NEW_PID=$(cat "$STATE_DIR/authd.pid" 2>/dev/null) || NEW_PID=
    if [[ -n $NEW_PID && $NEW_PID != "$OLD_PID" ]]; then
      code=$(probe /records)
      if [[ $code == 401 ]]; then
        GAP_MS=$(($(now_ms) - t0))
        return 0
      fi
    fi
    sleep 0.02
  done
  echo "fault_lib: no answer 401 from a new authd within 30 s of the kill" >&2
  return 1
}
