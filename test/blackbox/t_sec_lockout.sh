#!/usr/bin/env bash
# Attack: lock-out abuse and distributed guessing. An attacker sends wrong
# passwords for alice from other addresses so that alice herself is refused
# (429) — or guesses from many addresses to dodge per-address limits. The
# device cookie alice's browser got at her last successful sign-in keeps her
# out of the lock-out (her correct password always works from it), while all
# untrusted clients together get at most signin_account_budget guesses.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_SIGNIN_USER_THRESHOLD=3 AUTHD_SIGNIN_FIRST_DELAY=60 AUTHD_SIGNIN_ACCOUNT_BUDGET=8
stack_start
JAR=$STATE_DIR/alice.cookies

printf 'pw-alice' | authctl add alice user >/dev/null || fail "authctl add alice"

step "alice signs in from her browser and gets a device cookie"
http POST /signin --interface 127.0.0.4 -u alice:pw-alice --cookie-jar "$JAR"
expect_status 200 "alice signs in"
expect_match "device cookie: HttpOnly, SameSite=Strict" '^authd_device=[^;]+; Path=/; Max-Age=[0-9]+; HttpOnly; SameSite=Strict$' \
  "$(header Set-Cookie | grep '^authd_device=')"

step "an attacker locks the name from another address"
for i in 1 2 3 4 5; do http POST /signin --interface 127.0.0.3 -u "alice:guess-$i"; done
expect_status 429 "the attacker is throttled"
http POST /signin --interface 127.0.0.5 -u alice:pw-alice
expect_status 429 "without the device cookie, the right password waits too (the name is locked)"
http POST /signin --interface 127.0.0.5 -u alice:pw-alice --cookie 'authd_device=eyJhbGciOiJub25lIn0.eyJuYW1lIjoiYWxpY2UifQ.'
expect_status 429 "a forged device cookie is no exemption"

step "alice's browser (device cookie) is not locked out, from any address"
http POST /signin --interface 127.0.0.5 -u alice:pw-alice --cookie "$JAR"
expect_status 200 "the device cookie gets alice in"
http POST /signin --interface 127.0.0.4 -u alice:pw-alice --cookie "$JAR"
expect_status 200 "and again from her usual address"
http POST /signin --interface 127.0.0.5 -u mallory:x --cookie "$JAR"
expect_status 500 "the cookie is alice's: for another name it is no exemption (counted as usual)"


step "distributed guessing: every address together gets at most the account budget"
printf 'pw-bob' | authctl add bob user >/dev/null || fail "authctl add bob"
export AUTHD_SIGNIN_USER_THRESHOLD=1000
authd_stop && authd_start || fail "restart authd with a lenient per-name delay"
accepted=0
for i in $(seq 10 30); do
  http POST /signin --interface "127.0.0.$i" -u "bob:guess-$i"
  [[ $STATUS == 500 ]] && accepted=$((accepted + 1))
done
expect_eq "wrong guesses checked, from 21 addresses together" 8 "$accepted"
http POST /signin --interface 127.0.0.77 -u bob:pw-bob
expect_status 429 "bob's right password from a new, untrusted client waits for the budget window"

finish
