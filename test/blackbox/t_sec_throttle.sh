#!/usr/bin/env bash
# Stops online password guessing through POST /signin (OWASP ASVS 2.2.1, RFC 6585): past a
# threshold of failures per username or per client address, each further failure imposes a
# growing delay, during which every attempt — even with the right password — is refused with
# 429 and Retry-After; the delay ends; a success resets the username's count; unknown usernames
# are throttled exactly like real ones; the browser where the user signed in before (its device
# cookie; a loopback address never counts as a known address) is not locked out by an attacker
# elsewhere; and the state lives in LMDB, so a new authd process on the
# same state directory enforces it. Clients are told apart by source address (127.0.0.x).
source "$(dirname "$0")/harness.sh"
export AUTHD_SIGNIN_USER_THRESHOLD=3
export AUTHD_SIGNIN_ADDRESS_THRESHOLD=8
export AUTHD_SIGNIN_FIRST_DELAY=2        # 2 s, 4 s, 8 s: slack for a loaded machine
export AUTHD_SIGNIN_USER_MAX_DELAY=8
export AUTHD_SIGNIN_ADDRESS_MAX_DELAY=8
export AUTHD_ARGON2_ITERATIONS=1 AUTHD_ARGON2_MEMORY_KIB=1024
stack_start

ATTACKER=127.0.0.2 ALICE_HOME=127.0.0.3 SPRAYER=127.0.0.4 BYSTANDER=127.0.0.5 OTHER=127.0.0.6 GUESSER=127.0.0.7
signin_from() { http POST /signin --interface "$1" -u "$2"; }   # signin_from ADDRESS USER:PASS
retry_after() { header Retry-After; }
wait_out() { sleep "$(( $1 + 1 ))"; }   # whole seconds are rounded: one more to be sure

signin_from "$BYSTANDER" 'x:y'
expect_eq "setup: requests from another loopback address work" 500 "$STATUS"

signup alice 'alice password'
expect_eq "setup: signup alice" 201 "$STATUS"
ALICE_JAR=$STATE_DIR/alice.cookies
# alice's own browser: keeps the device cookie it is given
signin_home() { http POST /signin --interface "$ALICE_HOME" -u "$1" --cookie-jar "$ALICE_JAR" --cookie "$ALICE_JAR"; }
signin_home 'alice:alice password'
expect_eq "setup: alice signs in from her usual browser" 200 "$STATUS"

step "per username: the threshold, then 429 with a growing delay"
for i in 1 2 3; do
  signin_from "$ATTACKER" "alice:guess $i"
  expect_eq "failure $i (under the threshold): 500" 500 "$STATUS"
  expect_eq "failure $i: no Retry-After" '' "$(retry_after)"
done
signin_from "$ATTACKER" 'alice:guess 4'
expect_eq "failure 4 (past the threshold) is still checked: 500" 500 "$STATUS"
signin_from "$ATTACKER" 'alice:guess 5'
expect_eq "attempt during the delay: 429" 429 "$STATUS"
expect_match "429 carries Retry-After (seconds)" '^[1-9][0-9]*$' "$(retry_after)"
expect_eq "429 body" 'Too Many Requests' "$(json .error)"
FIRST_DELAY=$(retry_after)
signin_from "$ATTACKER" 'alice:alice password'
expect_eq "the RIGHT password during the delay: 429 too" 429 "$STATUS"
expect_eq "no token during the delay" '' "$(header token)"
wait_out "$FIRST_DELAY"
signin_from "$ATTACKER" 'alice:guess 6'
expect_eq "the delay ends: the next attempt is checked again (500)" 500 "$STATUS"
signin_from "$ATTACKER" 'alice:guess 7'
expect_eq "the next delay: 429" 429 "$STATUS"
SECOND_DELAY=$(retry_after)
# Retry-After is the time LEFT, in whole seconds, read a moment after the delay
# was imposed: on a loaded machine a 2 s delay may already read 1. So each step
# may read equal, and the growth is judged over two steps (1 s -> 4 s).
if (( SECOND_DELAY >= FIRST_DELAY )); then pass "the delay does not shrink (${FIRST_DELAY} s, then ${SECOND_DELAY} s)"
else fail "the delay shrinks (${FIRST_DELAY} s, then ${SECOND_DELAY} s)"; fi
wait_out "$SECOND_DELAY"
signin_from "$ATTACKER" 'alice:guess 8'
expect_eq "after the second delay: checked (500)" 500 "$STATUS"
signin_from "$ATTACKER" 'alice:alice password'
expect_eq "the third delay: 429" 429 "$STATUS"
THIRD_DELAY=$(retry_after)
if (( THIRD_DELAY > FIRST_DELAY && THIRD_DELAY >= SECOND_DELAY )); then
  pass "the delay grows (${FIRST_DELAY} s, ${SECOND_DELAY} s, then ${THIRD_DELAY} s)"
else fail "the delay does not grow (${FIRST_DELAY} s, ${SECOND_DELAY} s, then ${THIRD_DELAY} s)"; fi

step "the state is in LMDB: a new authd process enforces it"
authd_stop
authd_start || fail "authd restarts"
signin_from "$ATTACKER" 'alice:alice password'
expect_eq "after a restart, still 429" 429 "$STATUS"
expect_match "after a restart, Retry-After continues the same delay" '^[1-9][0-9]*$' "$(retry_after)"

step "no lock-out: alice, from the browser she signed in with before, passes during the attacker's delay"
signin_home 'alice:alice password'
expect_eq "alice from her usual browser: 200" 200 "$STATUS"

step "a success resets the username's count"
for i in 1 2 3; do
  signin_from "$OTHER" "alice:again $i"
  expect_eq "after a success, failure $i: 500 (count reset)" 500 "$STATUS"
done
signin_from "$OTHER" 'alice:again 4'
expect_eq "after a success, failure 4: checked (500)" 500 "$STATUS"
signin_from "$OTHER" 'alice:again 5'
expect_eq "after a success, the threshold applies afresh: 429" 429 "$STATUS"

step "unknown usernames are throttled the same way"
for i in 1 2 3 4; do signin_from "$GUESSER" "nobody:guess $i"; done
expect_eq "unknown user, failure 4: 500" 500 "$STATUS"
signin_from "$GUESSER" 'nobody:guess 5'
expect_eq "unknown user during the delay: 429" 429 "$STATUS"
expect_eq "unknown user: same 429 body as a real one" 'Too Many Requests' "$(json .error)"
expect_match "unknown user: Retry-After" '^[1-9][0-9]*$' "$(retry_after)"

step "per address: spraying many usernames from one address"
for i in 1 2 3 4 5 6 7 8; do
  signin_from "$SPRAYER" "user$i:pw"
  expect_eq "spray failure $i (one per username): 500" 500 "$STATUS"
done
signin_from "$SPRAYER" 'user9:pw'
expect_eq "spray failure 9 (address past its threshold): 500" 500 "$STATUS"
# The first delay is 1 s: on a loaded machine the next request may come after
# it. The delays double with each failure, so within a few rounds a wrong
# guess and then the right password both meet the same delay.
RIGHT=''
for i in 10 11 12 13 14; do
  signin_from "$SPRAYER" "user$i:pw"
  [[ $STATUS == 429 ]] || continue
  ANY=429
  signin_from "$SPRAYER" 'alice:alice password'
  RIGHT=$STATUS
  [[ $RIGHT == 429 ]] && break
done
expect_eq "that address, any username: 429" 429 "${ANY:-$STATUS}"
expect_eq "that address, even a right password: 429" 429 "$RIGHT"
signin_from "$BYSTANDER" 'user10:pw'
expect_eq "another address is not affected: 500" 500 "$STATUS"
finish
