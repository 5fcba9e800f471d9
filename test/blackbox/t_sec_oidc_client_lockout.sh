#!/usr/bin/env bash
# Attack: nobody may lock an OpenID client out of POST /token. Failed client
# authentications were counted per client id alone and nothing cleared them,
# so anyone who knew a (public) client id could send wrong secrets from
# anywhere and make every real exchange of that client answer 429, for all its
# users. Now only a presented secret is a guess and it is counted per client
# AND caller address: the attacker's failures from 127.0.0.2 delay 127.0.0.2
# alone (429 with Retry-After, bounded by signin_user_max_delay), the
# client's own exchanges from 127.0.0.3 go on; a public client's PKCE exchange
# (no secret) is never counted or delayed, nor are wrong secrets sent with a
# public client's id; and a caller's success clears its count.
# Clients are told apart by source address (127.0.0.x), as in t_sec_throttle.sh.
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true
export AUTHD_SIGNIN_USER_THRESHOLD=3 AUTHD_SIGNIN_FIRST_DELAY=6 AUTHD_SIGNIN_USER_MAX_DELAY=6
export AUTHD_ARGON2_ITERATIONS=1 AUTHD_ARGON2_MEMORY_KIB=1024
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

ATTACKER=(--interface 127.0.0.2) WIKI_SERVER=(--interface 127.0.0.3) APP_DEVICE=(--interface 127.0.0.4)
CB=http://127.0.0.1:9/cb
OUT=$(authctl client add Wiki --first-party --redirect-uri "$CB" 2>/dev/null)
WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT"); WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
OUT=$(authctl client add App --public --first-party --redirect-uri "$CB" 2>/dev/null)
APP=$(sed -n 's/^client_id: //p' <<<"$OUT")
[[ -n $WIKI && -n $WIKI_SECRET && -n $APP ]] || fail "two clients registered"
signup alice 'alice password'
expect_eq "setup: alice" 201 "$STATUS"
COOKIE=$TOKEN

# A code for CLIENT through alice's browser, with PKCE: sets CODE and VERIFIER.
code_for() {
  VERIFIER=$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
  local challenge
  challenge=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
  http GET "/authorize?response_type=code&scope=openid&client_id=$1&redirect_uri=$CB&code_challenge=$challenge&code_challenge_method=S256" \
    -H "Cookie: auth=$COOKIE"
  CODE=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  [[ -n $CODE ]] || fail "a code for $1 (status $STATUS)"
}
exchange() {  # exchange CLIENT_ARGS... : the code for tokens
  http POST /token "$@" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
    --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
}
wrong_secret() { http POST /token "${ATTACKER[@]}" -u "$1:wrong-$RANDOM" --data-urlencode grant_type=authorization_code --data-urlencode code=x; }

step "an attacker's wrong secrets for Wiki delay the attacker"
for i in 1 2 3 4; do
  wrong_secret "$WIKI"
  expect_eq "wrong secret $i: 401" 401 "$STATUS"
done
wrong_secret "$WIKI"
expect_eq "past the threshold, from the attacker's address: 429" 429 "$STATUS"
expect_json "still invalid_client" .error invalid_client
expect_match "with Retry-After" '^[1-6]$' "$(header Retry-After)"
http POST /token "${ATTACKER[@]}" -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode code=x
expect_eq "even the right secret from the attacker's address waits" 429 "$STATUS"

step "Wiki's own server, another address, is not delayed"
code_for "$WIKI"
exchange "${WIKI_SERVER[@]}" -u "$WIKI:$WIKI_SECRET"
expect_eq "Wiki's exchange from 127.0.0.3: 200" 200 "$STATUS"
expect_match "an access token" '^ey' "$(json .access_token)"

step "the public App: wrong secrets are refused, never counted"
for i in 1 2 3 4 5 6; do
  wrong_secret "$APP"
  expect_eq "a client_secret for the public App ($i): 401, never 429" 401 "$STATUS"
done
code_for "$APP"
exchange "${ATTACKER[@]}" --data-urlencode "client_id=$APP"
expect_eq "App's PKCE exchange (no secret) from the attacker's own address: 200" 200 "$STATUS"
code_for "$APP"
exchange "${APP_DEVICE[@]}" --data-urlencode "client_id=$APP"
expect_eq "App's PKCE exchange from another address: 200" 200 "$STATUS"

step "the delay is bounded, and a success clears the caller's count"
sleep 7   # signin_user_max_delay=6
code_for "$WIKI"
exchange "${ATTACKER[@]}" -u "$WIKI:$WIKI_SECRET"
expect_eq "after the delay, the right secret from 127.0.0.2: 200" 200 "$STATUS"
for i in 1 2 3; do
  wrong_secret "$WIKI"
  expect_eq "counted afresh after the success: failure $i is 401" 401 "$STATUS"
done
expect_eq "the failures are audited" yes "$(yesno grep -q oidc_client_auth_failed "$AUTHD_AUDIT_LOG")"
expect_eq "a secret sent for the public App is audited as such" yes \
  "$(yesno grep -q 'a client_secret for a public client' "$AUTHD_AUDIT_LOG")"
finish
