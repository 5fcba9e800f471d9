#!/usr/bin/env bash
# Stops credential confusion on guarded routes (RFC 6750 §3): every Authorization variant gets
# exactly one well-defined answer — no header: 401 with `WWW-Authenticate: Bearer realm="authd"`
# and no error; a bad token: 401 error="invalid_token"; a missing capability: 403
# error="insufficient_scope"; a malformed header (`Bearer` alone, two tokens, characters outside
# b64token, `Bearer x, Basic y`, two Authorization headers, a token in ?access_token= with or
# without a header): 400 error="invalid_request" — and the body is always exactly
# {"error":"Access Denied"}, so nothing about the cause leaks to the client.
source "$(dirname "$0")/harness.sh"
stack_start

signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
TOK=$(json .token)
ID=0123456789abcdef01234567

# denied STATUS CHALLENGE DESC http-args...: status, exact challenge, exact body.
denied() {
  local status=$1 challenge=$2 desc=$3; shift 3
  http "$@"
  expect_eq "$desc: status" "$status" "$STATUS"
  expect_eq "$desc: WWW-Authenticate" "$challenge" "$(header WWW-Authenticate)"
  expect_eq "$desc: body is exactly {\"error\":\"Access Denied\"}" '{"error":"Access Denied"}' "$BODY"
  expect_eq "$desc: no token issued" '' "$(header token)$(header Set-Cookie)"
}
NO_ERROR='Bearer realm="authd"'
INVALID_TOKEN='Bearer realm="authd", error="invalid_token"'
INVALID_REQUEST='Bearer realm="authd", error="invalid_request"'
SCOPE='Bearer realm="authd", error="insufficient_scope"'

step "control: a valid token passes"
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "valid token: 200" 200 "$STATUS"

step "no credentials: 401 without an error code"
denied 401 "$NO_ERROR" "no Authorization" GET /records
denied 401 "$NO_ERROR" "empty Authorization" GET /records -H 'Authorization;'
denied 401 "$NO_ERROR" "Basic credentials" GET /records -u 'alice:alice password'
denied 401 "$NO_ERROR" "another scheme" GET /records -H 'Authorization: Digest username="alice"'
denied 401 "$NO_ERROR" "token in a cookie only" GET /records -H "Cookie: auth=$TOK"

step "a token that is not acceptable: 401 invalid_token"
denied 401 "$INVALID_TOKEN" "garbage token" GET /records -H 'Authorization: Bearer abc.def.ghi'
denied 401 "$INVALID_TOKEN" "token with one part" GET /records -H 'Authorization: Bearer notajwt'
denied 401 "$INVALID_TOKEN" "token signature cut" GET /records -H "Authorization: Bearer ${TOK%.*}.AAAA"
denied 401 "$INVALID_TOKEN" "bad token, lower-case scheme" GET /records -H 'Authorization: bearer abc.def.ghi'

step "a missing capability: 403 insufficient_scope"
denied 403 "$SCOPE" "role user, DELETE" DELETE "/records/$ID" -H "Authorization: Bearer $TOK"
denied 403 "$SCOPE" "role user, POST" POST /records -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' --data-binary '{"a":1}'
denied 403 "$SCOPE" "role user, PUT" PUT "/records/$ID" -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' --data-binary '{"a":1}'

step "a malformed Authorization header: 400 invalid_request"
denied 400 "$INVALID_REQUEST" "Bearer alone" GET /records -H 'Authorization: Bearer'
denied 400 "$INVALID_REQUEST" "Bearer and blanks" GET /records -H 'Authorization: Bearer    '
denied 400 "$INVALID_REQUEST" "two tokens" GET /records -H "Authorization: Bearer $TOK $TOK"
denied 400 "$INVALID_REQUEST" "two tokens, comma" GET /records -H "Authorization: Bearer $TOK,$TOK"
denied 400 "$INVALID_REQUEST" "bad characters" GET /records -H 'Authorization: Bearer abc$def'
denied 400 "$INVALID_REQUEST" "quoted token" GET /records -H 'Authorization: Bearer "abc"'
denied 400 "$INVALID_REQUEST" "'=' inside the token" GET /records -H 'Authorization: Bearer ab=cd'
denied 400 "$INVALID_REQUEST" "Bearer x, Basic y" GET /records -H 'Authorization: Bearer x, Basic y'
denied 400 "$INVALID_REQUEST" "valid token, Basic y" GET /records -H "Authorization: Bearer $TOK, Basic eTp5"
if [[ $TEST_FRONTEND == nginx ]]; then
  # nginx refuses a repeated Authorization header itself ("client sent
  # duplicate header line"): 400 with its own page, authd never sees it.
  http GET /records -H "Authorization: Bearer $TOK" -H "Authorization: Bearer $TOK"
  expect_eq "two Authorization headers: status (nginx)" 400 "$STATUS"
  expect_match "two Authorization headers: nginx's own 400 page" '400 Bad Request' "$BODY"
  expect_eq "two Authorization headers: no token issued" '' "$(header token)$(header Set-Cookie)"
else
  denied 400 "$INVALID_REQUEST" "two Authorization headers" GET /records -H "Authorization: Bearer $TOK" -H "Authorization: Bearer $TOK"
fi
denied 400 "$INVALID_REQUEST" "valid header plus ?access_token=" GET "/records?access_token=$TOK" -H "Authorization: Bearer $TOK"
denied 400 "$INVALID_REQUEST" "?access_token= alone" GET "/records?access_token=$TOK"
denied 400 "$INVALID_REQUEST" "?access_token= on DELETE" DELETE "/records/$ID?x=1&access_token=$TOK" -H "Authorization: Bearer $TOK"

step "a token in a form body is never read (RFC 6750 §2.2 is not supported)"
http POST /records -H 'Content-Type: application/x-www-form-urlencoded' --data-binary "access_token=$TOK"
expect_eq "form-body access_token: 401" 401 "$STATUS"
expect_eq "form-body access_token: body" '{"error":"Access Denied"}' "$BODY"

step "the control still passes"
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "valid token again: 200" 200 "$STATUS"
finish
