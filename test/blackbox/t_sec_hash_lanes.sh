#!/usr/bin/env bash
# Stops a sign-in flood from starving everything else (OWASP ASVS 2.2, CWE-400): password hashes
# run on a bounded lane (AUTHD_HASH_WORKERS), so while ~40 concurrent sign-ins queue up for one
# hashing thread, guarded GET /records requests sent at the same time are still answered
# quickly; and when the queue is full (AUTHD_QUEUE_LIMIT), further sign-ins get 503 with
# Retry-After at once instead of piling up.
source "$(dirname "$0")/harness.sh"
export AUTHD_HASH_WORKERS=1
export AUTHD_WORKERS=4
export AUTHD_ARGON2_ITERATIONS=20         # one hash: roughly 150 ms here
export AUTHD_SIGNIN_THROTTLE=false        # every sign-in must cost a hash
stack_start

signup alice 'alice password'
expect_eq "setup: signup alice" 201 "$STATUS"
TOK=$(json .token)
make_temp_dir OUT lanes

# flood N: N concurrent sign-ins with wrong passwords (unknown users: a dummy hash each).
# (waits for its own curls only: a bare `wait` would wait for lighttpd too)
flood() {
  local i pids=()
  for ((i = 1; i <= $1; i++)); do
    curl -s -o /dev/null --noproxy '*' --max-time 60 -w '%{http_code} %{time_total}\n' \
      -u "flood$i:wrong" -X POST -H 'Content-Length: 0' "$BASE_URL/signin" >>"$OUT/flood" &
    pids+=($!)
  done
  wait "${pids[@]}"
}

step "a flood of 40 sign-ins against one hashing thread"
t0=$(now_ms)
flood 40 &
FLOOD_PID=$!
sleep 0.3   # the flood is queued now
for i in $(seq 10); do
  curl -s -o /dev/null --noproxy '*' --max-time 60 -w '%{http_code} %{time_total}\n' \
    -H "Authorization: Bearer $TOK" "$BASE_URL/records" >>"$OUT/guarded"
  sleep 0.1
done
GUARDED_DONE=$(( $(now_ms) - t0 ))
wait "$FLOOD_PID"
FLOOD_MS=$(( $(now_ms) - t0 ))

expect_eq "every guarded request answered 200" "10" "$(grep -c '^200 ' "$OUT/guarded")"
expect_eq "every sign-in answered (500 Invalid Login or 503 busy)" "40" "$(grep -cE '^(500|503) ' "$OUT/flood")"
MAX_GUARDED_MS=$(awk '{ ms = $2 * 1000; if (ms > m) m = ms } END { printf "%d", m }' "$OUT/guarded")
echo "   flood: ${FLOOD_MS} ms for 40 sign-ins; guarded requests done after ${GUARDED_DONE} ms, slowest ${MAX_GUARDED_MS} ms"
if (( FLOOD_MS > 1500 )); then pass "the flood really queued (${FLOOD_MS} ms with one hashing thread)"
else fail "the flood took only ${FLOOD_MS} ms: hashes too cheap for this test to mean anything"; fi
if (( MAX_GUARDED_MS * 5 < FLOOD_MS && MAX_GUARDED_MS < 1000 )); then
  pass "guarded requests did not wait for the flood (slowest ${MAX_GUARDED_MS} ms vs ${FLOOD_MS} ms)"
else
  fail "a guarded request took ${MAX_GUARDED_MS} ms during a ${FLOOD_MS} ms flood"
fi
if (( GUARDED_DONE * 2 < FLOOD_MS )); then pass "all guarded requests finished while the flood was still queued"
else fail "the guarded requests finished after ${GUARDED_DONE} ms, the flood after ${FLOOD_MS} ms"; fi

step "a full queue answers 503 with Retry-After at once"
authd_stop
export AUTHD_QUEUE_LIMIT=4
authd_start || fail "authd restarts with queue_limit=4"
: >"$OUT/flood"
flood 30
BUSY=$(grep -c '^503 ' "$OUT/flood")
if (( BUSY > 0 )); then pass "$BUSY of 30 sign-ins refused with 503 when the queue was full"
else fail "no 503 with 30 sign-ins against queue_limit=4"; fi
FAST_503=$(awk '$1 == 503 && $2 < 1.0' "$OUT/flood" | wc -l)
expect_eq "every 503 came at once (< 1 s)" "$BUSY" "$FAST_503"
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "guarded requests still served after the flood" 200 "$STATUS"
# The shape of a 503: one more flood, catching one answer in full.
flood 12 &
FLOOD_PID=$!
sleep 0.2
http POST /signin -u 'probe:x'
wait "$FLOOD_PID"
if [[ $STATUS == 503 ]]; then
  expect_eq "503 carries Retry-After" 1 "$(header Retry-After)"
  expect_eq "503 body" 'Service Unavailable' "$(json .error)"
else
  pass "(the probe was not refused this time: $STATUS; the 503 count above covers the limit)"
fi
finish
