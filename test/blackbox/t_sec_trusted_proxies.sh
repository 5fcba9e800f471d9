#!/usr/bin/env bash
# Attack: forged forwarding headers. A client talks to the web server
# directly and sends X-Original-URI / X-Forwarded-Uri to get a decision about
# another path, omits X-Original-Method hoping for "assume GET", or sends
# X-Forwarded-For / Forwarded with a new address per guess to escape the
# per-address sign-in limit. Only addresses in trusted_proxies are believed
# (here 127.0.0.1; the attacker is 127.0.0.2), and a missing original method
# refuses the check.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_AUTHORIZE_RULE='/ * method; /public/ * public'
export AUTHD_TRUSTED_PROXIES='127.0.0.1/32'
export AUTHD_SIGNIN_ADDRESS_THRESHOLD=3 AUTHD_SIGNIN_USER_THRESHOLD=1000 AUTHD_SIGNIN_ACCOUNT_BUDGET=1000 AUTHD_SIGNIN_FIRST_DELAY=60

stack_start
ATTACKER=(--interface 127.0.0.2)
PROXY=(--interface 127.0.0.1)

step "/auth/check believes the forwarded request only from a trusted proxy"
http GET /auth/check "${ATTACKER[@]}" -H 'X-Original-Method: GET' -H 'X-Original-URI: /public/x'
expect_status 403 "X-Original-* from an untrusted address: refused"
http GET /auth/check "${ATTACKER[@]}" -H 'X-Forwarded-Method: GET' -H 'X-Forwarded-Uri: /public/x'
expect_status 403 "X-Forwarded-Method/-Uri (Traefik, Caddy) from an untrusted address: refused"
http GET /auth/check "${PROXY[@]}" -H 'X-Original-Method: GET' -H 'X-Original-URI: /public/x'
expect_status 204 "control: the trusted proxy's X-Original-* decide"
http GET /auth/check "${PROXY[@]}" -H 'X-Forwarded-Method: GET' -H 'X-Forwarded-Uri: /public/x' -H 'X-Forwarded-Host: app.example'
expect_status 204 "control: the trusted proxy's X-Forwarded-Method/-Uri decide (Traefik, Caddy)"

step "a missing original method refuses the check instead of assuming GET"
http GET /auth/check "${PROXY[@]}" -H 'X-Original-URI: /public/x'
expect_status 400 "no X-Original-Method: 400"
http GET /auth/check "${PROXY[@]}" -H 'X-Original-Method: GET'
expect_status 400 "no X-Original-URI: 400"
http GET /auth/check "${PROXY[@]}" -H 'X-Original-Method: GET' -H 'X-Forwarded-Method: DELETE' -H 'X-Original-URI: /public/x'
expect_status 400 "two different original methods: 400"

step "X-Forwarded-For from an untrusted client does not give it new addresses"
printf 'pw-victim' | authctl add victim user >/dev/null || fail "authctl add victim"
for i in 1 2 3 4 5; do
  http POST /signin "${ATTACKER[@]}" -u "victim:wrong-$i" -H "X-Forwarded-For: 198.51.100.$i" \
    -H "Forwarded: for=198.51.100.$i"
done
expect_status 429 "the 4th+ guess from 127.0.0.2 is throttled whatever X-Forwarded-For says"

if [[ $TEST_FRONTEND == apache || $TEST_FRONTEND == nginx || $TEST_FRONTEND == h2o || $TEST_FRONTEND == caddy ]]; then
  # conf/apache/authd.conf, conf/nginx/authd.conf, conf/h2o/authd.conf and
  # conf/caddy/Caddyfile (no trusted_proxies in Caddy) are the edge: they
  # replace X-Forwarded-For with the address they see, so even a trusted
  # (loopback) client cannot name another.
  step "$TEST_FRONTEND replaces a client's X-Forwarded-For with the real address"
  http POST /signin "${PROXY[@]}" -u 'victim:wrong' -H 'X-Forwarded-For: 127.0.0.2'
  expect_status 500 "127.0.0.1 naming 127.0.0.2 counts as 127.0.0.1 (not yet throttled)"
  finish
fi
step "through the trusted proxy, X-Forwarded-For names the client"
http POST /signin "${PROXY[@]}" -u 'victim:wrong' -H 'X-Forwarded-For: 127.0.0.2'
expect_status 429 "the proxy's request for 127.0.0.2 counts against 127.0.0.2"
http POST /signin "${PROXY[@]}" -u 'victim:pw-victim' -H 'X-Forwarded-For: 203.0.113.7, 198.51.100.9'
expect_status 200 "control: another client behind the proxy signs in"
http POST /signin "${PROXY[@]}" -u 'victim:pw-victim' -H 'X-Forwarded-For: 127.0.0.2, 198.51.100.9'
expect_status 200 "a client-chosen left entry is not reached (only the proxy's own hop counts)"

finish
