#!/usr/bin/env bash
# Stops slow and stalled clients from freezing the service (slowloris / slow
# POST, OWASP "Application Denial of Service"). The attack: 64 uploads that
# trickle their body one byte every half second or stop half-way, sent at
# once through the front server (Apache streams request bodies to FastCGI as
# they come; lighttpd buffers them), plus 64 requests that stall straight on
# authd's FastCGI socket -- half inside their parameters, half inside their
# body -- which is exactly what a streaming front server hands over. authd
# runs with 2 request threads, so a server that read requests on its worker
# threads would be frozen many times over.
# It must hold: guarded GET /records from other clients keep answering 200
# with p99 < 200 ms while the attack holds every connection open (latency
# measured end to end, a new connection per request, 4 clients in parallel),
# and every stalled request is answered 408 (or dropped) once
# AUTHD_REQUEST_READ_TIMEOUT_MS has passed since its first byte, not before.
# Figures: probe requests, p50/p99/max, stalled requests and their answers.
source "$(dirname "$0")/fault_lib.sh"
CLIENT=$(dirname "$0")/slow_http.py
FCGI=$(dirname "$0")/fcgi_client.py
PY=/usr/bin/python3
[[ -x $PY ]] || fault_die "python3 is not installed (scripts/deps.sh test installs it)"

TIMEOUT_MS=${SLOW_TIMEOUT_MS:-6000}
export AUTHD_WORKERS=2 AUTHD_REQUEST_READ_TIMEOUT_MS=$TIMEOUT_MS
stack_start
OUT=$STATE_DIR/slow
mkdir -p "$OUT"
expect_eq "setup: signup alice" 201 "$(signup_status alice 'alice password')"
TOKEN=$(signin_token alice 'alice password')
expect_ne "setup: alice's token" '' "$TOKEN"

step "the attack: 64 slow uploads through $TEST_FRONTEND, 64 stalled requests on authd's socket"
attack_s=$((TIMEOUT_MS / 1000 + 5))
# Apache blocks reading a stalled client's body until its own
# RequestReadTimeout (body=20 s in conf/apache/authd.conf) answers it.
stall_s=$attack_s
[[ $TEST_FRONTEND == apache ]] && stall_s=30
"$PY" "$CLIENT" upload "$PORT" 32 trickle "$attack_s" >"$OUT/trickle" 2>"$OUT/trickle.err" &
p1=$!
"$PY" "$CLIENT" upload "$PORT" 32 stall "$stall_s" >"$OUT/stall" 2>"$OUT/stall.err" &
p2=$!
"$PY" "$FCGI" stall "$FCGI_SOCKET" 32 head "$attack_s" >"$OUT/fcgi-head" 2>"$OUT/fcgi-head.err" &
p3=$!
"$PY" "$FCGI" stall "$FCGI_SOCKET" 32 body "$attack_s" >"$OUT/fcgi-body" 2>"$OUT/fcgi-body.err" &
p4=$!
t_attack=$(now_ms)
# Wait until authd holds the attack's connections (the 64 on its socket at
# least; through Apache the streamed uploads add theirs).
held=0
for ((i = 0; i < 50; i++)); do
  held=$(ss -xH state established src "$FCGI_SOCKET" 2>/dev/null | grep -c .)
  ((held >= 64)) && break
  sleep 0.1
done
echo "authd holds $held connections"
((held >= 64)) && pass "the attack holds $held connections to authd open" ||
  fail "the attack's connections did not reach authd (only $held)"

step "guarded reads from other clients while the attack holds"
probe_s=$(((TIMEOUT_MS - ($(now_ms) - t_attack)) / 1000 - 1))
((probe_s >= 2)) || probe_s=2
"$PY" "$CLIENT" probe "$PORT" "$TOKEN" 4 "$probe_s" >"$OUT/probe"
cat "$OUT/probe"
t_probe_end=$(now_ms)
probe_field() { jq -r ".$1" "$OUT/probe"; }
requests=$(probe_field requests) ok=$(probe_field ok) p50=$(probe_field p50_ms) p99=$(probe_field p99_ms)
max=$(probe_field max_ms)
((requests >= 20)) && pass "the probe made $requests requests in ${probe_s} s" ||
  fail "the probe made only $requests requests in ${probe_s} s"
expect_eq "every guarded read answered 200" "$requests" "$ok"
awk -v p="$p99" 'BEGIN { exit !(p < 200) }' && pass "guarded reads p99 ${p99} ms < 200 ms (p50 ${p50}, max ${max})" ||
  fail "guarded reads p99 ${p99} ms >= 200 ms (p50 ${p50}, max ${max})"
# The probe must have run while the stalled requests were still held.
((t_probe_end - t_attack < TIMEOUT_MS)) && pass "the probe ran while the attack held (its end $((t_probe_end - t_attack)) ms in)" ||
  fail "the probe ended $((t_probe_end - t_attack)) ms after the attack began: past the ${TIMEOUT_MS} ms timeout"

step "stalled requests are answered 408 or dropped after ${TIMEOUT_MS} ms"
wait "$p1" "$p2" "$p3" "$p4"
# Straight on the socket: 408 for both (authd has the request id once
# BEGIN_REQUEST came), neither before the timeout nor long after it.
for mode in head body; do
  n=$(grep -c . "$OUT/fcgi-$mode")
  answered=$(jq -s '[.[] | select(.status == 408 and .ended)] | length' "$OUT/fcgi-$mode")
  early=$(jq -s --argjson t "$TIMEOUT_MS" '[.[] | select(.after_s != null and .after_s * 1000 < $t - 100)] | length' "$OUT/fcgi-$mode")
  late=$(jq -s --argjson t "$TIMEOUT_MS" '[.[] | select(.after_s == null or .after_s * 1000 > $t + 3000)] | length' "$OUT/fcgi-$mode")
  expect_eq "socket, stalled in the $mode: 32 connections" 32 "$n"
  expect_eq "socket, stalled in the $mode: all answered 408 (STDOUT + END_REQUEST)" 32 "$answered"
  expect_eq "socket, stalled in the $mode: none answered before the timeout" 0 "$early"
  expect_eq "socket, stalled in the $mode: none answered later than 3 s after it" 0 "$late"
  jq -s -c 'group_by(.status) | map({status: .[0].status, n: length, first_s: (map(.after_s) | min), last_s: (map(.after_s) | max)})' "$OUT/fcgi-$mode"
done
# Through the front server. lighttpd buffers bodies itself (its own limits
# apply, authd never sees them): the uploads are still waiting when the attack
# ends. Apache streams them: authd's 408 for a trickling upload comes back
# through Apache after the timeout; a stalled upload leaves Apache blocked
# reading its client until Apache's own RequestReadTimeout answers 408 (authd
# has dropped its side by then).
for mode in trickle stall; do
  summary=$(jq -s -c 'group_by(.status) | map({status: .[0].status, n: length, first_s: (map(.after_s) | min), last_s: (map(.after_s) | max)})' "$OUT/$mode")
  echo "    $TEST_FRONTEND, $mode uploads: $summary"
  n=$(grep -c . "$OUT/$mode")
  expect_eq "$TEST_FRONTEND, $mode uploads: 32 connections" 32 "$n"
  if [[ $TEST_FRONTEND == apache && $mode == trickle ]]; then
    timed_out=$(jq -s --argjson t "$TIMEOUT_MS" '[.[] | select(.status == 408 and .after_s * 1000 >= $t - 100 and .after_s * 1000 <= $t + 3000)] | length' "$OUT/$mode")
    expect_eq "apache, trickling uploads: all answered 408 (authd's) after the timeout" 32 "$timed_out"
  elif [[ $TEST_FRONTEND == apache ]]; then
    timed_out=$(jq -s --argjson t "$TIMEOUT_MS" '[.[] | select(.status == 408 and .after_s * 1000 >= $t - 100)] | length' "$OUT/$mode")
    expect_eq "apache, stalled uploads: all answered 408 (Apache's RequestReadTimeout)" 32 "$timed_out"
  else
    early=$(jq -s '[.[] | select(.status != null)] | length' "$OUT/$mode")
    expect_eq "lighttpd, $mode uploads: none answered while the body is incomplete" 0 "$early"
  fi
done
grep -q 'request not received within' "$STATE_DIR/authd.log" && pass "authd logged the timed-out requests" ||
  fail "no timeout message in authd.log"

step "afterwards the service answers as before"
expect_eq "GET /records with the token: 200" 200 "$(status_of GET /records -H "Authorization: Bearer $TOKEN")"
expect_eq "a normal sign-up: 201" 201 "$(signup_status bob 'bob password')"

print_figure probe_requests "$requests"
print_figure probe_p50_ms "$p50"
print_figure probe_p99_ms "$p99"
print_figure probe_max_ms "$max"
print_figure connections_held "$held"
finish
