# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034  # GAP_MS etc. are for the tests
# test/blackbox/fault_lib.sh - measurements for the concurrency, crash, load,
# fault and shutdown tests (t_race_*, t_crash_*, t_load_*, t_fault_*,
# t_shutdown_*). Source it instead of harness.sh (it sources harness.sh):
#
#   source "$(dirname "${BASH_SOURCE[0]}")/fault_lib.sh"
#   stack_start_supervised        # or stack_start (both in harness.sh)
#   kill_authd_and_measure_gap    # sets GAP_MS
#   finish
#
# The supervised stack (stack_start_supervised, authd_child_pid), probe,
# wait_status and now_ms are in harness.sh / scripts/stack_lib.sh; the
# status-only requests (status_of, signup_status, signup_answer,
# signin_status, signin_token, users_listed) in api.sh.
#
# Functions (besides everything in harness.sh)
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
#   count_lines FILE REGEX
#                  number of lines of FILE matching the ERE REGEX (0 if none).
#   expect_signins USERS OUT COUNT DESC
#                  signs in every user named in the file USERS (one a line,
#                  password pw-USER), 4 at a time, "USER STATUS" lines in OUT;
#                  checks that COUNT users were checked and (DESC) that every
#                  one answered 200, listing those that did not. Sets CHECKED
#                  and SIGNED_IN (the 200s).
#   accounts_missing USERS
#                  prints how many of the users named in the file USERS
#                  `authctl list` does not show.
#   lmdb_check DIR
#                  checks the LMDB environment in DIR with lmdb-utils:
#                  `mdb_stat -ef` (environment and free list), `mdb_stat -rr -a`
#                  (reader table, clearing stale readers, then every table)
#                  and `mdb_dump -a` (reads every page of every table). Prints
#                  the first failure's output and returns 1 on a failure.
#                  Sets LMDB_STALE_READERS (slots of dead processes cleared).
#   fault_out NAME sets OUT to a new directory $STATE_DIR/NAME for the test's
#                  files (removed with the state directory).
#   setup_user USER PASSWORD
#                  signs USER up (a failed check "setup: signup USER" unless
#                  201), then signs in: TOKEN is the token (empty on failure).
#   signup_stream OUT_FILE PREFIX MAX ANSWER
#                  one client's sign-ups, one after the other, of new users
#                  PREFIX1, PREFIX2... (password pw-USER); each answer
#                  (ANSWER: signup_status or signup_answer) as a line
#                  "USER ANSWER" in OUT_FILE; stops after MAX sign-ups (0: no
#                  limit) or once $OUT/stop exists.
#   clients_start N FUNC [ARGS...]
#                  starts N clients, each a background subshell running
#                  `FUNC ARGS... I` (I = 1..N) once clients_go fired, so that
#                  they all begin at the same moment. Their pids: CLIENT_PIDS.
#   clients_go [SETTLE_S]
#                  gives the clients SETTLE_S (default 0.3) to get ready, then
#                  lets them all go at once.
#   clients_wait   waits for the clients started last (unlike a bare `wait`,
#                  not for the stack's processes, which are children too).
#   wrk_status_lua FILE
#                  writes a wrk script to FILE: every request carries
#                  "Authorization: Bearer $TOKEN"; at the end it prints
#                  "wrk: status CODE N" per status, "wrk: errors N" (connect,
#                  read, write, timeout, status) and "wrk: requests N".
#   fault_die MSG  prints MSG and exits 1 (a setup failure, not a check).
#   print_figure NAME VALUE
#                  prints "figure: NAME = VALUE" (the figures each test
#                  reports: requests, errors, users checked, RSS...).

# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

wrk_status_lua() {
  cat >"$1" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
local threads = {}
function setup(t) threads[#threads + 1] = t end
counts = {}
function response(status, headers, body) counts[status] = (counts[status] or 0) + 1 end
function done(summary)
  local total = {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("counts")) do total[k] = (total[k] or 0) + v end
  end
  for k, v in pairs(total) do io.write(string.format("wrk: status %d %d\\n", k, v)) end
  local e = summary.errors
  io.write(string.format("wrk: errors %d\\n", e.connect + e.read + e.write + e.timeout + e.status))
  io.write(string.format("wrk: requests %d\\n", summary.requests))
end
LUA
}

fault_die() {
  printf 'fault_lib: %s\n' "$*" >&2
  exit 1
}

print_figure() {
  printf 'figure: %s = %s\n' "$1" "$2"
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

fault_out() {
  OUT=$STATE_DIR/$1
  mkdir -p "$OUT"
}

setup_user() {
  expect_eq "setup: signup $1" 201 "$(signup_status "$1" "$2")"
  TOKEN=$(signin_token "$1" "$2")
}

signup_stream() {
  local file=$1 names=$2 max=$3 answer=$4 i=0 u
  while ((max == 0 || i < max)) && [[ ! -e $OUT/stop ]]; do
    i=$((i + 1))
    u=$names$i
    echo "$u $("$answer" "$u" "pw-$u")"
  done >"$file"
}

CLIENT_PIDS=()
clients_start() {
  local n=$1 i
  shift
  rm -f "$STATE_DIR/clients.go"
  CLIENT_PIDS=()
  for ((i = 1; i <= n; i++)); do
    (
      while [[ ! -e $STATE_DIR/clients.go ]]; do sleep 0.01; done
      "$@" "$i"
    ) &
    CLIENT_PIDS+=($!)
  done
}

clients_go() {
  sleep "${1:-0.3}"
  : >"$STATE_DIR/clients.go"
}

clients_wait() {
  wait "${CLIENT_PIDS[@]}"
}

expect_signins() {
  local users=$1 out=$2 count=$3 desc=$4
  export -f status_of signin_status
  export BASE_URL
  xargs -P 4 -I{} bash -c 'echo "{} $(signin_status {} pw-{})"' <"$users" >"$out"
  CHECKED=$(wc -l <"$out")
  SIGNED_IN=$(count_lines "$out" ' 200$')
  expect_eq "users checked" "$count" "$CHECKED"
  expect_eq "$desc" "$CHECKED" "$SIGNED_IN"
  ((CHECKED == SIGNED_IN)) || fail "$desc: users that could not sign in" "$(grep -v ' 200$' "$out" | head)"
}

accounts_missing() {
  comm -23 <(sort "$1") <(account_names) | wc -l
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
