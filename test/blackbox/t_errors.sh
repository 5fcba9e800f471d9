#!/usr/bin/env bash
# Proves the program's error handling: unknown routes it receives -> 404 with a JSON error;
# an unsupported method on a known path -> 405 (or 404) JSON, never 5xx; and robustness:
# 20+ garbage requests (malformed JSON, binary bodies, deep nesting, NUL bytes, ~6 KB headers,
# junk credentials) get 4xx answers (500 Invalid Login only on /signin) and the server still
# answers a valid signin and a guarded request afterwards, with the same process.
source "$(dirname "$0")/harness.sh"
stack_start

CT='Content-Type: application/json'

signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
AUTH="Authorization: Bearer $(json .token)"

# --- unknown routes (paths routed to the program) ------------------------------------------
for req in "GET /records/a/b" "POST /signup/x" "POST /signin/x" "GET /records/a/b/c" "DELETE /records/a/b"; do
  read -r m p <<<"$req"
  if [[ $m == GET ]]; then body=(); else body=(-H "$CT" --data-binary '{}'); fi  # lighttpd refuses a GET with a body
  http "$m" "$p" -H "$AUTH" "${body[@]}"
  expect_eq "$req: 404" 404 "$STATUS"
  expect_match "$req: Content-Type JSON" '^application/json' "$(header Content-Type)"
  expect_eq "$req: JSON error string" string "$(json '.error|type' 2>/dev/null)"
done

# --- unsupported methods on known paths ----------------------------------------------------
for req in "PATCH /signup" "GET /signup" "PUT /signup" "DELETE /signup" "PATCH /signin" "PUT /signin" \
           "DELETE /records" "PUT /records" "PATCH /records" "PATCH /records/0123456789abcdef01234567" \
           "POST /records/0123456789abcdef01234567"; do
  read -r m p <<<"$req"
  if [[ $m == GET ]]; then body=(); else body=(-H "$CT" --data-binary '{}'); fi  # lighttpd refuses a GET with a body
  http "$m" "$p" -H "$AUTH" "${body[@]}"
  expect_match "$req: 405 or 404" '^(405|404)$' "$STATUS"
  expect_eq "$req: JSON error string" string "$(json '.error|type' 2>/dev/null)"
done

# --- garbage ------------------------------------------------------------------------------
make_temp_dir TMPD errors
head -c 4096 /dev/urandom >"$TMPD/bin"
printf '{"username":"a\0b","password":"x","fullname":"f","email":"e"}' >"$TMPD/nul"
printf '{"username":"\xff\xfe","password":"x","fullname":"f","email":"e"}' >"$TMPD/badutf8"
{ printf '%0.s[' $(seq 1 5000); printf '%0.s]' $(seq 1 5000); } >"$TMPD/deep"
{ printf '{"username":'; printf '%0.s{"a":' $(seq 1 500); printf '1'; printf '%0.s}' $(seq 1 500); printf ',"password":"x","fullname":"f","email":"e"}'; } >"$TMPD/deepfield"
BIGH=$(head -c 6000 /dev/zero | tr '\0' 'x')

garbage() { # DESC WANT-REGEX METHOD PATH ARGS...
  local desc="$1" want="$2"; shift 2
  http "$@"
  expect_match "garbage $desc: status" "$want" "$STATUS"
}
garbage "signup truncated JSON"      '^400$' POST /signup -H "$CT" --data-binary '{"username":"x","pass'
garbage "signup bare word"            '^400$' POST /signup -H "$CT" --data-binary 'hello'
garbage "signup duplicate keys"       '^400$' POST /signup -H "$CT" --data-binary '{"username":"dup","username":"dup2","password":"p","fullname":"f","email":"e"}'
garbage "signup binary body"          '^400$' POST /signup -H "$CT" --data-binary "@$TMPD/bin"
garbage "signup binary, octet-stream" '^4[0-9][0-9]$' POST /signup -H 'Content-Type: application/octet-stream' --data-binary "@$TMPD/bin"
garbage "signup NUL inside a string"  '^400$' POST /signup -H "$CT" --data-binary "@$TMPD/nul"
garbage "signup invalid UTF-8"        '^400$' POST /signup -H "$CT" --data-binary "@$TMPD/badutf8"
garbage "signup 5000-deep array"      '^400$' POST /signup -H "$CT" --data-binary "@$TMPD/deep"
garbage "signup 500-deep field"       '^400$' POST /signup -H "$CT" --data-binary "@$TMPD/deepfield"
garbage "signup huge number"          '^400$' POST /signup -H "$CT" --data-binary '{"username":1e999999,"password":"p","fullname":"f","email":"e"}'
garbage "signup ~6KB header"          '^201$' POST /signup -H "$CT" -H "X-Junk: $BIGH" --data-binary '{"username":"hdr","password":"hdr password","fullname":"f","email":"e@example.com"}'
garbage "records binary body"         '^4[0-9][0-9]$' POST /records -H "$AUTH" -H "$CT" --data-binary "@$TMPD/bin"
garbage "records 5000-deep array"     '^4[0-9][0-9]$' POST /records -H "$AUTH" -H "$CT" --data-binary "@$TMPD/deep"
garbage "records ~6KB header, no auth" '^401$' GET /records -H "X-Junk: $BIGH"
garbage "records ~6KB bearer"         '^(400|401)$' GET /records -H "Authorization: Bearer $BIGH"
garbage "records bearer of dots"      '^(400|401)$' GET /records -H 'Authorization: Bearer ....'
garbage "records bearer binary-ish"   '^(400|401)$' GET /records -H "Authorization: Bearer $(head -c 300 /dev/urandom | base64 -w0)"
garbage "signin ~6KB basic"           '^500$' POST /signin -H "Authorization: Basic $(head -c 4400 /dev/urandom | base64 -w0)"
garbage "signin basic of binary"      '^500$' POST /signin -H "Authorization: Basic $(head -c 60 /dev/urandom | base64 -w0)"
garbage "signin with a body"          '^500$' POST /signin -H "$CT" --data-binary "@$TMPD/bin"
garbage "records id of 300 chars"     '^(400|404)$' GET "/records/$(head -c 300 /dev/zero | tr '\0' 'a')" -H "$AUTH"
garbage "records id with encoded NUL" '^(400|404)$' GET "/records/abc%00def" -H "$AUTH"

# --- still serving, same process ---------------------------------------------------------
expect_eq "authd process still alive" yes "$(yesno kill -0 "$AUTHD_PID")"
signin alice 'alice password'
expect_eq "valid signin after the garbage" 200 "$STATUS"
expect_eq "valid signin after the garbage: username" alice "$(json .user.username)"
http GET /records -H "Authorization: Bearer $(json .token)"
expect_eq "guarded GET after the garbage" 200 "$STATUS"
signin hdr 'hdr password'
expect_eq "the account created with a ~6KB header signs in" 200 "$STATUS"
signin dup 'p'
expect_eq "duplicate-key body created nothing" 500 "$STATUS"

finish
