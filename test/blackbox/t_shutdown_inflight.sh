#!/usr/bin/env bash
# SIGTERM lets in-flight requests finish. SHUTDOWN_CLIENTS sign-ups (each
# 30-60 ms of argon2id at the default cost, twice that here) are fired at
# once; as soon as every one of them has reached authd -- answered, with a
# hashing thread or queued for one (authd's authd_lane_busy and
# authd_lane_queue_depth), or connected and waiting in the socket's backlog
# (`ss`) -- authd gets SIGTERM. Every one of them must get its normal answer
# (201), each account must exist afterwards, and authd must exit 0 (well
# within its 10 s grace period). Repeated SHUTDOWN_ROUNDS times, restarting authd in between.
# Figures: requests, 201s, errors, exit statuses, time from TERM to exit.
source "$(dirname "$0")/fault_lib.sh"
need_tools ss
# Slower hashes (2 x the default) keep the sign-ups in flight for a second or
# two: on a loaded machine, reading /metrics takes long enough that with the
# default cost they could all be answered before the TERM, proving nothing.
export AUTHD_ARGON2_ITERATIONS=${SHUTDOWN_ARGON2_ITERATIONS:-4}
stack_start

N=${SHUTDOWN_CLIENTS:-20}
# lane_password_requests: the sign-ups authd holds (a hashing thread works on
# them, or they wait for one), from its /metrics (busy first: see src/serving/metrics.cpp)
lane_password_requests() {
  curl -s --noproxy '*' --max-time 2 "$BASE_URL/metrics" |
    awk '/^authd_lane_(busy|queue_depth)\{lane="password"\} / { s += $2 } END { print s + 0 }'
}
ROUNDS=${SHUTDOWN_ROUNDS:-3}
fault_out shutdown
total=0 total_201=0 exits=() stop_ms=() at_term=()

# inflight_client I: one sign-up of round $r, its answer in $OUT/res.I
inflight_client() {
  local a
  a=$(signup_answer "r${r}u$1" "pw-$1")
  echo "r${r}u$1 $a" >"$OUT/tmp.$1" && mv "$OUT/tmp.$1" "$OUT/res.$1"
}

for ((r = 1; r <= ROUNDS; r++)); do
  step "round $r: $N sign-ups in flight, then SIGTERM"
  rm -f "$OUT"/*
  clients_start "$N" inflight_client
  clients_go 0.5
  # TERM as soon as all N requests are in authd's hands (or answered). The
  # three figures are read downstream first (answered, then authd's lanes,
  # then the backlog), so that a request moving on between two readings is
  # missed, never counted twice: counting one twice sent TERM before the last
  # sign-ups had connected, and the front server answered them 503.
  deadline=$(($(now_ms) + 10000))
  while :; do
    answered=$(find "$OUT" -name 'res.*' | wc -l)
    with_authd=$(lane_password_requests)
    queued=$(ss -xlH src "$FCGI_SOCKET" 2>/dev/null | awk '{ s += $3 } END { print s + 0 }')
    ((answered + with_authd + queued >= N)) && break
    (($(now_ms) < deadline)) || { fail "round $r: the $N requests did not all reach authd within 10 s"; break; }
    sleep 0.01
  done
  echo "at SIGTERM: $answered answered, $with_authd being served, $queued queued in the socket's backlog"
  pid=$AUTHD_PID
  t0=$(now_ms)
  kill -TERM "$pid"
  wait "$pid"
  rc=$?
  dt=$(($(now_ms) - t0))
  exits+=("$rc") stop_ms+=("$dt") at_term+=("$answered/$with_authd/$queued")
  clients_wait
  cat "$OUT"/res.* >"$OUT/all"
  n=$(wc -l <"$OUT/all")
  ok=$(count_lines "$OUT/all" ' 201 application/json$')
  total=$((total + n)) total_201=$((total_201 + ok))
  echo "round $r: authd exited with status $rc ${dt} ms after TERM; answers:"
  awk '{ print $2, $3 }' "$OUT/all" | sort | uniq -c | sed 's/^/    /'
  expect_eq "round $r: authd exits 0 after SIGTERM" 0 "$rc"
  ((dt < 10000)) && pass "round $r: it stopped within the grace period (${dt} ms)" ||
    fail "round $r: it took ${dt} ms to stop"
  expect_eq "round $r: every in-flight sign-up answered 201" "$N" "$ok"
  ((ok == N)) || fail "round $r: sign-ups without their answer" "$(grep -v ' 201 application/json$' "$OUT/all" | head)"
  grep -q 'received Terminated' "$STATE_DIR/authd.log" && pass "round $r: authd logged the TERM" ||
    fail "round $r: no TERM message in authd.log"

  AUTHD_PID=
  authd_start || fault_die "authd did not start again"
  # the sign-ins side by side (each is a hash): the accounts that fail, in $OUT/missing
  : >"$OUT/missing"
  signin_pids=()
  while read -r u s _; do
    [[ $s == 201 ]] || continue
    { [[ $(signin_status "$u" "pw-${u#r"${r}"u}") == 200 ]] || echo "$u" >>"$OUT/missing"; } &
    signin_pids+=($!)
  done <"$OUT/all"
  wait "${signin_pids[@]}"
  expect_eq "round $r: every account answered 201 signs in after the restart" "" "$(cat "$OUT/missing")"
done

print_figure requests "$total"
print_figure signups_201 "$total_201"
print_figure errors "$((total - total_201))"
print_figure exit_statuses "${exits[*]}"
print_figure term_to_exit_ms "${stop_ms[*]}"
print_figure answered_served_queued_at_term "${at_term[*]}"
finish
