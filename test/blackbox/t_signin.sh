#!/usr/bin/env bash
# Proves POST /signin with Basic credentials: 200 with exactly {token, user:{acl:[],username}},
# the token delivered three ways (Set-Cookie auth=...; Path=/; HttpOnly; SameSite=Lax;
# Max-Age, token header, body) as an HS256 JWT accepted by a guarded route; a fresh token per
# sign-in (both valid); passwords containing ':' work; every failure (wrong password, unknown
# user, missing/malformed header, Bearer instead of Basic) -> 500 {"error":"Invalid Login"};
# GET /signin -> 405/404 JSON.
source "$(dirname "$0")/harness.sh"
export AUTHD_TOKEN_TTL=3600
stack_start

signup alice 'alice password'
expect_eq "setup: signup alice" 201 "$STATUS"

# --- success -------------------------------------------------------------------------------
signin alice 'alice password'
expect_eq "signin: status" 200 "$STATUS"
expect_match "signin: Content-Type" '^application/json' "$(header Content-Type)"
expect_eq "signin: body has exactly token,user" '["token","user"]' "$(json 'keys|tojson')"
expect_eq "signin: user has exactly acl,username" '["acl","username"]' "$(json '.user|keys|tojson')"
expect_eq "signin: acl is an empty array" '[]' "$(json '.user.acl|tojson')"
expect_eq "signin: username" alice "$(json '.user.username')"
expect_eq "signin: token is a string" string "$(json '.token|type')"
T1=$(json '.token')
expect_match "signin: token has three base64url parts" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$T1"
expect_eq "signin: token header equals body token" "$T1" "$(header token)"
expect_token_cookie "signin" "$T1" 3600
expect_eq "signin: JWT header alg is HS256" HS256 "$(jwt_header "$T1" | jq -r '.alg' 2>/dev/null)"

http GET /records -H "Authorization: Bearer $T1"
expect_eq "signin token accepted by a guarded route" 200 "$STATUS"

# curl's own -u produces the same header
http POST /signin -u 'alice:alice password'
expect_eq "signin via curl -u" 200 "$STATUS"

# --- a fresh token each time ---------------------------------------------------------------
signin alice 'alice password'
expect_eq "second signin: status" 200 "$STATUS"
T2=$(json '.token')
expect_eq "second signin: a different token" yes "$(yesno test -n "$T2" -a "$T1" != "$T2")"
http GET /records -H "Authorization: Bearer $T1"
expect_eq "first token still valid" 200 "$STATUS"
http GET /records -H "Authorization: Bearer $T2"
expect_eq "second token valid" 200 "$STATUS"

# --- password containing ':' -----------------------------------------------------------------
signup carol 'pa:ss:word'
expect_eq "setup: signup carol with ':' in password" 201 "$STATUS"
signin carol 'pa:ss:word'
expect_eq "password with ':' signs in" 200 "$STATUS"
expect_eq "password with ':': username" carol "$(json '.user.username')"
signin carol 'pa'
expect_eq "password prefix before ':' does not sign in" 500 "$STATUS"

# --- failures: all exactly {"error":"Invalid Login"} with 500 -------------------------------
fail_case() { # DESC CURL-ARGS...
  local desc="$1"; shift
  http POST /signin "$@"
  expect_eq "$desc: 500" 500 "$STATUS"
  expect_eq "$desc: body" '{"error":"Invalid Login"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
  expect_eq "$desc: no Set-Cookie" '' "$(header Set-Cookie)"
}
fail_case "wrong password" -H "$(basic 'alice:wrong password')"
fail_case "unknown user" -H "$(basic 'nobody:alice password')"
fail_case "missing Authorization header"
fail_case "Basic with bad base64" -H 'Authorization: Basic %%%not-base64***'
fail_case "Basic without colon" -H "Authorization: Basic $(printf '%s' 'alicealice password' | base64 -w0)"
fail_case "Basic with empty credentials" -H 'Authorization: Basic '
fail_case "Basic with empty password" -H "$(basic 'alice:')"
fail_case "Bearer instead of Basic" -H 'Authorization: Bearer x'
fail_case "Bearer with a valid token instead of Basic" -H "Authorization: Bearer $T1"
fail_case "Basic with the username only" -H "$(basic 'alice')"

# --- wrong method --------------------------------------------------------------------------
http GET /signin -H "$(basic 'alice:alice password')"
expect_match "GET /signin: 405 or 404" '^(405|404)$' "$STATUS"
expect_eq "GET /signin: JSON error string" string "$(json '.error|type' 2>/dev/null)"
expect_eq "GET /signin: no token issued" '' "$(header token)"

signin alice 'alice password'
expect_eq "server still serves after all of the above" 200 "$STATUS"

finish
