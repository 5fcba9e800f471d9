#!/usr/bin/env bash
# auth_time is the sign-in time, through every refresh (issue 41, class 11).
# The attack: a session signed in long ago and kept alive by refresh tokens
# (in the background, or by whoever stole the refresh cookie) passes a
# relying party's max_age check, or its own auth_time check, as if the user
# had just typed the password. Every token minted from a refresh must carry
# the original sign-in time, and /authorize's max_age must count from it:
#   - /token/refresh, rotated twice: the access token keeps auth_time;
#     /authorize?max_age=1 sends the refreshed session to the sign-in page;
#   - a code flow started with the refreshed cookie: the ID token's and the
#     client's access token's auth_time are the sign-in's;
#   - the refresh family that code exchange starts (offline_access): the
#     refresh_token grant's access token keeps the sign-in's auth_time, not
#     the exchange's (the family used to take the exchange time as its
#     sign-in), and so does the grant after it.
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600
stack_start

CB=http://127.0.0.1:9/cb
OUT=$(authctl client add Wiki --first-party --redirect-uri "$CB" --scope openid profile offline_access 2>/dev/null)
WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT"); WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $WIKI && -n $WIKI_SECRET ]] || fail "client registered"
query_param() { /usr/bin/python3 -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get(sys.argv[2], [""])[0])' "$1" "$2"; }
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
auth_time_of() { jwt_payload "$1" | jq -r .auth_time; }

signup alice 'alice password'
signin alice 'alice password'
expect_status 200 "alice signs in"
SIGNED_IN=$TOKEN
REFRESH=$(cookie_of refresh)  # the sign-in hands it in its cookie only
AUTH_TIME=$(auth_time_of "$SIGNED_IN")
expect_match "the sign-in's token says when" '^[0-9]+$' "$AUTH_TIME"
sleep 2

step "two rotations at /token/refresh keep the sign-in time"
for i in 1 2; do
  http POST /token/refresh -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$REFRESH\"}"
  expect_status 200 "rotation $i"
  REFRESH=$(json .refresh_token)
  SESSION=$(json .token)
  expect_eq "rotation $i: auth_time is the sign-in's" "$AUTH_TIME" "$(auth_time_of "$SESSION")"
  expect_ne "rotation $i: a new iat" "$AUTH_TIME" "$(jwt_payload "$SESSION" | jq -r .iat)"
done

step "/authorize with max_age counts from the sign-in"
VERIFIER=$(head -c 48 /dev/urandom | b64url)
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | b64url)
AUTHZ="/authorize?response_type=code&client_id=$WIKI&redirect_uri=$CB&scope=openid%20profile%20offline_access"
AUTHZ+="&state=s1&nonce=n1&code_challenge=$CHALLENGE&code_challenge_method=S256"
http GET "$AUTHZ&max_age=1" -H "Cookie: auth=$SESSION"
expect_status 302 "max_age=1"
expect_match "signed in 2 s ago, refreshed just now: to the sign-in page" '^/login\?rd=' "$(header Location)"

step "a code flow from the refreshed session: ID token and access token carry the sign-in time"
http GET "$AUTHZ&max_age=3600" -H "Cookie: auth=$SESSION"
expect_match "max_age=3600: a code" "^$CB\?code=" "$(header Location)"
CODE=$(query_param "$(header Location)" code)
http POST /token -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
expect_status 200 "the code exchange"
expect_eq "the ID token's auth_time is the sign-in's" "$AUTH_TIME" "$(auth_time_of "$(json .id_token)")"
expect_eq "the client's access token's auth_time is the sign-in's" "$AUTH_TIME" "$(auth_time_of "$(json .access_token)")"
CLIENT_REFRESH=$(json .refresh_token)
expect_ne "offline_access: a refresh token" "" "$CLIENT_REFRESH"

step "the refresh_token grant keeps the sign-in time (not the code exchange's)"
sleep 1
for i in 1 2; do
  http POST /token -u "$WIKI:$WIKI_SECRET" --data-urlencode grant_type=refresh_token \
    --data-urlencode "refresh_token=$CLIENT_REFRESH"
  expect_status 200 "refresh_token grant $i"
  CLIENT_REFRESH=$(json .refresh_token)
  expect_eq "grant $i: the access token's auth_time is the sign-in's" "$AUTH_TIME" "$(auth_time_of "$(json .access_token)")"
  if [[ $(json '.id_token // ""') != "" ]]; then
    expect_eq "grant $i: the ID token's auth_time is the sign-in's" "$AUTH_TIME" "$(auth_time_of "$(json .id_token)")"
  fi
done
finish
