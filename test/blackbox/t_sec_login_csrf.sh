#!/usr/bin/env bash
# Attack: login CSRF on every route that sets the `auth` cookie or changes
# state (issue 23 class 1). A page on another site auto-submits a form or a
# text/plain fetch (no CORS preflight) carrying the ATTACKER's refresh token
# to POST /token/refresh, or the attacker's mfa_token and code to
# POST /signin/mfa, or a passkey ceremony to /signin/passkey/*: the
# visitor's browser would come back signed in as the attacker. Or it rides
# the visitor's own cookie into /me/mfa/*, /me/password, /signout.
# authd refuses every state-changing route from another site (Sec-Fetch-Site,
# else Origin; one rule of the route table, src/api/access_policy.cpp admit()) and takes
# JSON bodies only as application/json (415 before parsing).
export AUTHD_REFRESH_TOKEN_TTL=600
export AUTHD_WEBAUTHN_RP_ID=localhost
export AUTHD_WEBAUTHN_ORIGINS='http://localhost:@PORT@'
export AUTHD_PASSKEY_SIGNIN=true
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
stack_start

command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }
CT='Content-Type: application/json'
SELF="http://127.0.0.1:$PORT"
no_cookie() {
  if header Set-Cookie >/dev/null; then fail "$1: no cookie set" "$(header Set-Cookie)"; else pass "$1: no cookie set"; fi
}
# refused_cross_site DESC METHOD PATH BODY [CURL ARGS...]: from another site -> 403, no cookie.
refused_cross_site() {
  local desc=$1 method=$2 path=$3 body=$4; shift 4
  http "$method" "$path" -H 'Content-Type: text/plain' -H 'Sec-Fetch-Site: cross-site' -H 'Origin: http://evil.example' \
    --data-binary "$body" "$@"
  expect_status 403 "$desc from another site (Sec-Fetch-Site)"
  no_cookie "$desc from another site"
  http "$method" "$path" -H "$CT" -H 'Origin: http://evil.example' --data-binary "$body" "$@"
  expect_status 403 "$desc as JSON with a foreign Origin (no Sec-Fetch-Site)"
}
# A same-site text/plain body: 415 with a JSON error, nothing parsed.
refused_as_text() {
  local desc=$1 method=$2 path=$3 body=$4; shift 4
  http "$method" "$path" -H 'Content-Type: text/plain' -H 'Sec-Fetch-Site: same-origin' -H "Origin: $SELF" \
    --data-binary "$body" "$@"
  expect_status 415 "$desc as text/plain"
  expect_eq "$desc as text/plain: a JSON error" "Unsupported Media Type" "$(json .error 2>/dev/null)"
  no_cookie "$desc as text/plain"
}

step "the attacker's refresh token cannot be planted (POST /token/refresh)"
signup mallory 'mallory password'
MALLORY_REFRESH=$(cookie_of refresh)
expect_ne "setup: mallory has a refresh token" "" "$MALLORY_REFRESH"
BODY_REFRESH="{\"refresh_token\":\"$MALLORY_REFRESH\"}"
refused_cross_site "refresh with a body token" POST /token/refresh "$BODY_REFRESH"
refused_as_text "refresh with a body token" POST /token/refresh "$BODY_REFRESH"
http POST /token/refresh -H 'Content-Type: application/x-www-form-urlencoded' --data-binary "$BODY_REFRESH"
expect_status 415 "refresh as a form"
http POST /token/refresh -H "$CT" -H 'Sec-Fetch-Site: same-origin' -H "Origin: $SELF" --data-binary "$BODY_REFRESH"
expect_status 200 "control: the same token as JSON from the site itself is refreshed"
expect_ne "control: with an auth cookie" "" "$(cookie_of auth)"

step "the attacker's second step cannot be planted (POST /signin/mfa)"
signin mallory 'mallory password'
expect_status 200 "setup: mallory signs in"
totp_enrol "setup: mallory enrols TOTP"
signin mallory 'mallory password'
MFA=$(json '.mfa_token // empty')
expect_ne "setup: an mfa_token" "" "$MFA"
STEP="{\"mfa_token\":\"$MFA\",\"code\":\"$(oathtool --totp -b --now="@$(( $(date +%s) + 30 ))" "$SECRET")\"}"
refused_cross_site "the second step" POST /signin/mfa "$STEP"
refused_as_text "the second step" POST /signin/mfa "$STEP"
refused_cross_site "passkey options of a second step" POST /signin/mfa/webauthn/begin "{\"mfa_token\":\"$MFA\"}"
refused_as_text "passkey options of a second step" POST /signin/mfa/webauthn/begin "{\"mfa_token\":\"$MFA\"}"
http POST /signin/mfa -H "$CT" --data-binary "$STEP"
expect_status 200 "control: the same step as JSON (no browser headers) signs in"

step "password-less passkey sign-in (POST /signin/passkey/begin, /finish)"
refused_cross_site "passkey options" POST /signin/passkey/begin '{}'
refused_as_text "passkey options" POST /signin/passkey/begin '{}'
refused_cross_site "a passkey assertion" POST /signin/passkey/finish '{"id":"x","response":{}}'
refused_as_text "a passkey assertion" POST /signin/passkey/finish '{"id":"x","response":{}}'
http POST /signin/passkey/begin -H 'Sec-Fetch-Site: same-origin' -H "Origin: $SELF"
expect_status 200 "control: the site's own page gets options (bodiless POST)"

step "routes that ride the victim's cookie"
signup victim 'victim password'
VICTIM=$TOKEN
for route in "POST /me/mfa/totp" "POST /me/mfa/totp/confirm" "DELETE /me/mfa/totp" \
             "POST /me/mfa/webauthn/register/begin" "POST /me/mfa/webauthn/register/finish" "DELETE /me/mfa/webauthn/x" \
             "PUT /me/password" "POST /signout" "POST /signout/all"; do
  read -r method path <<<"$route"
  refused_cross_site "$route with the auth cookie" "$method" "$path" '{"code":"123456"}' -H "Cookie: auth=$VICTIM"
done
for route in "POST /me/mfa/totp/confirm" "PUT /me/password" "POST /me/mfa/webauthn/register/finish"; do
  read -r method path <<<"$route"
  refused_as_text "$route with the auth cookie" "$method" "$path" '{"code":"123456"}' -H "Cookie: auth=$VICTIM"
done
TOKEN=$VICTIM auth_get /me
expect_status 200 "control: the victim's session is still alive"

step "the spec's routes keep their shapes"
http POST /signup -H 'Content-Type: text/plain' --data-binary '{"username":"t1","password":"t1 password","fullname":"T","email":"t@example.com"}'
expect_status 415 "sign-up as text/plain"
http POST /signup -H "$CT" --data-binary '{"username":"t1","password":"t1 password","fullname":"T","email":"t@example.com"}'
expect_status 201 "control: sign-up as JSON"
expect_eq "sign-up keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
http POST /signin -u t1:'t1 password' -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "sign-in from another site"
http POST /signin -u t1:'t1 password'
expect_status 200 "control: curl -u signs in"
expect_eq "sign-in keeps the spec's shape" '{"acl":[],"username":"t1"}' "$(json -c .user)"

finish
