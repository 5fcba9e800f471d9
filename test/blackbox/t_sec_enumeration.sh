#!/usr/bin/env bash
# Stops username enumeration through POST /signin (OWASP ASVS 2.2, 3.x): an unknown username and
# a wrong password for a real one give the same status, body and headers (only the Date and the random X-Request-Id differ)
# and take the same time — the unknown-user path verifies against a dummy argon2 hash. Timing:
# 15 interleaved tries of each with a deliberately slow hash; the medians must be within 3x or
# 30 ms of each other (without the dummy hash they differ by the whole hash time).
source "$(dirname "$0")/harness.sh"
export AUTHD_ARGON2_ITERATIONS=10        # one hash: ~100-300 ms, far above the noise
export AUTHD_SIGNIN_USER_THRESHOLD=1000  # throttling is proved in t_sec_throttle.sh
export AUTHD_SIGNIN_ADDRESS_THRESHOLD=1000
stack_start

signup alice 'alice password'
expect_eq "setup: signup alice" 201 "$STATUS"

# Headers without Date and X-Request-Id (and sorted), for comparing two answers.
shape() { printf '%s\n%s\n' "$STATUS $BODY" "$(sed 1d <<<"$HEADERS" | grep -viE '^(date|x-request-id):' | sort)"; }

step "identical answers"
http POST /signin -u 'alice:wrong password'; WRONG=$(shape)
http POST /signin -u 'nobody:wrong password'; UNKNOWN=$(shape)
expect_eq "wrong password is 500 Invalid Login" '500 {"error":"Invalid Login"}' "$(head -1 <<<"$WRONG")"
expect_eq "unknown user and wrong password: same status, body and headers" "$WRONG" "$UNKNOWN"
# Names match in any case (t_sec_canonical_usernames.sh): ALICE is alice.
http POST /signin -u 'ALICE:wrong password'; expect_eq "another case of a real name, wrong password: same answer" "$WRONG" "$(shape)"
http POST /signin -u 'alice:'; expect_eq "empty password for a real user: same answer" "$WRONG" "$(shape)"
http POST /signin -u 'nobody:'; expect_eq "empty password for an unknown user: same answer" "$WRONG" "$(shape)"

step "same time"
known=() unknown=()
for i in $(seq 15); do
  t0=$(now_ms); http POST /signin -u "alice:wrong $i"; known+=($(( $(now_ms) - t0 )))
  [[ $STATUS == 500 ]] || fail "try $i, wrong password: status $STATUS"
  t0=$(now_ms); http POST /signin -u "nobody$i:wrong $i"; unknown+=($(( $(now_ms) - t0 )))
  [[ $STATUS == 500 ]] || fail "try $i, unknown user: status $STATUS"
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
MK=$(median "${known[@]}") MU=$(median "${unknown[@]}")
echo "   wrong password: median ${MK} ms (${known[*]})"
echo "   unknown user:   median ${MU} ms (${unknown[*]})"
t0=$(now_ms); http POST /signin -u 'alice:alice password'; MS=$(( $(now_ms) - t0 ))
expect_eq "control: the right password signs in" 200 "$STATUS"
echo "   right password: ${MS} ms"
lo=$(( MK < MU ? MK : MU )) hi=$(( MK < MU ? MU : MK ))
if (( hi <= 3 * lo || hi - lo <= 30 )); then
  pass "medians within 3x or 30 ms (${MK} vs ${MU} ms)"
else
  fail "medians differ: wrong password ${MK} ms, unknown user ${MU} ms"
fi
if (( MU * 2 >= MS )); then pass "an unknown user costs a hash too (${MU} ms vs ${MS} ms for a real sign-in)"
else fail "an unknown user answers in ${MU} ms, a real sign-in (one hash) takes ${MS} ms"; fi
finish
