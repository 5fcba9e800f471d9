#!/usr/bin/env bash
# Proves POST /signup: 201 with exactly {token, user:{__v,_id,acl,password,role,username}},
# the password stored as an argon2id hash, role always "user" (a "role" in the body is
# ignored), the token delivered three ways (Set-Cookie auth=..., token header, body) as an
# HS256 JWT; every missing / non-string field, malformed or non-object body -> 400 naming the
# field; an existing username -> 409 with the original account unchanged; an oversized
# body -> 413 with nothing created.
source "$(dirname "$0")/harness.sh"
export AUTHD_TOKEN_TTL=3600
stack_start

# --- success -------------------------------------------------------------------------------
PASS='Plain text password 1!'
signup alice "$PASS"
expect_eq "signup: status" 201 "$STATUS"
expect_match "signup: Content-Type" '^application/json' "$(header Content-Type)"
expect_eq "signup: body is an object with exactly token,user" '["token","user"]' "$(json 'keys|tojson')"
expect_eq "signup: user has exactly __v,_id,acl,password,role,username" \
  '["__v","_id","acl","password","role","username"]' "$(json '.user|keys|tojson')"
expect_eq "signup: __v is the number 0" 'number:0' "$(json '.user.__v|"\(type):\(.)"')"
expect_eq "signup: _id is a string" string "$(json '.user._id|type')"
expect_match "signup: _id is 24 lower-case hex" '^[0-9a-f]{24}$' "$(json '.user._id')"
expect_eq "signup: acl is an empty array" '[]' "$(json '.user.acl|tojson')"
expect_match "signup: password is an argon2id PHC string" '^\$argon2id\$' "$(json '.user.password')"
expect_eq "signup: password is not the plain text" no "$(yesno test "$(json '.user.password')" = "$PASS")"
expect_eq "signup: plain text appears nowhere in the body" no "$(yesno grep -qF "$PASS" <<<"$BODY")"
expect_eq "signup: role is user" user "$(json '.user.role')"
expect_eq "signup: username as sent" alice "$(json '.user.username')"
expect_eq "signup: no fullname/email echoed" 'false:false' "$(json '.user|"\(has("fullname")):\(has("email"))"')"
expect_eq "signup: token is a string" string "$(json '.token|type')"
TOKEN=$(json '.token')
expect_match "signup: token has three base64url parts" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$TOKEN"
expect_eq "signup: token header equals body token" "$TOKEN" "$(header token)"
expect_token_cookie "signup" "$TOKEN" 3600
JWT_HEADER=$(jwt_header "$TOKEN")
JWT_PAYLOAD=$(jwt_payload "$TOKEN")
expect_eq "signup: JWT header alg is HS256" HS256 "$(jq -r '.alg' <<<"$JWT_HEADER" 2>/dev/null)"
expect_eq "signup: JWT payload has a string sub" string "$(jq -r '.sub|type' <<<"$JWT_PAYLOAD" 2>/dev/null)"
expect_eq "signup: JWT exp - iat equals the ttl" 3600 "$(jq -r '.exp - .iat' <<<"$JWT_PAYLOAD" 2>/dev/null)"

http GET /records -H "Authorization: Bearer $TOKEN"
expect_eq "signup token is accepted by a guarded route" 200 "$STATUS"

signin alice "$PASS"
expect_eq "signed-up user can sign in with the password" 200 "$STATUS"

# --- a role in the body is ignored ------------------------------------------------------------
signup_json '{"username":"mallory","password":"p4ssword","fullname":"M","email":"m@example.com","role":"admin"}'
expect_eq "signup with role admin: still 201" 201 "$STATUS"
expect_eq "signup with role admin: role is user" user "$(json '.user.role')"
MTOKEN=$(json '.token')
http POST /records -H "Authorization: Bearer $MTOKEN" -H 'Content-Type: application/json' --data-binary '{"x":1}'
expect_eq "signup with role admin: cannot create records (403)" 403 "$STATUS"
http DELETE /records/0123456789abcdef01234567 -H "Authorization: Bearer $MTOKEN"
expect_eq "signup with role admin: cannot delete records (403)" 403 "$STATUS"

# --- field validation -----------------------------------------------------------------------
FULL='{"username":"bob","password":"bobpassword","fullname":"Bob B","email":"bob@example.com"}'
for f in username password fullname email; do
  signup_json "$(jq -c --arg f "$f" 'del(.[$f])' <<<"$FULL")"
  expect_eq "missing $f: 400" 400 "$STATUS"
  expect_eq "missing $f: error is a string" string "$(json '.error|type' 2>/dev/null)"
  expect_eq "missing $f: error names the field" yes "$(yesno grep -qF "$f" <<<"$(json '.error' 2>/dev/null)")"
  for v in 1 null '[]' '{}' true '["x"]'; do
    signup_json "$(jq -c --arg f "$f" --argjson v "$v" '.[$f]=$v' <<<"$FULL")"
    expect_eq "$f=$v: 400" 400 "$STATUS"
    expect_eq "$f=$v: error names the field" yes "$(yesno grep -qF "$f" <<<"$(json '.error' 2>/dev/null)")"
  done
done
signin bob bobpassword
expect_eq "no account was created by the rejected signups" 500 "$STATUS"

for body in '{"username":' '{username:"bob"}' "$FULL trailing" '[]' '"x"' '42' 'null' '[{"username":"bob"}]'; do
  signup_json "$body"
  expect_eq "body <$body>: 400" 400 "$STATUS"
  expect_eq "body <$body>: JSON error string" string "$(json '.error|type' 2>/dev/null)"
done
http POST /signup -H 'Content-Type: application/json'
expect_eq "empty body: 400" 400 "$STATUS"
expect_eq "empty body: JSON error string" string "$(json '.error|type' 2>/dev/null)"
http POST /signup -H 'Content-Type: application/json' --data-binary ''
expect_eq "empty body (Content-Length 0): 400" 400 "$STATUS"
signin bob bobpassword
expect_eq "no account was created by the malformed bodies" 500 "$STATUS"

# --- duplicate username ---------------------------------------------------------------------
signup alice 'another password'
expect_eq "duplicate username: 409" 409 "$STATUS"
expect_eq "duplicate username: body has only error" '["error"]' "$(json 'keys|tojson' 2>/dev/null)"
expect_eq "duplicate username: error is a string" string "$(json '.error|type' 2>/dev/null)"
expect_eq "duplicate username: no Set-Cookie" '' "$(header Set-Cookie)"
signin alice "$PASS"
expect_eq "duplicate username: original password still signs in" 200 "$STATUS"
signin alice 'another password'
expect_eq "duplicate username: new password does not sign in" 500 "$STATUS"

# --- oversized body ---------------------------------------------------------------------------
BIG=$(mktemp)
{ printf '{"username":"biggy","password":"bigpassword","email":"big@example.com","fullname":"'
  head -c 200000 /dev/zero | tr '\0' 'a'; printf '"}'; } >"$BIG"
expect_eq "setup: the big body is valid JSON of > 200000 bytes" yes \
  "$(jq -e '.fullname|length == 200000' "$BIG" >/dev/null 2>&1 && [[ $(stat -c %s "$BIG") -gt 200000 ]] && echo yes || echo no)"
http POST /signup -H 'Content-Type: application/json' --data-binary "@$BIG"
expect_eq "200 KB body: 413" 413 "$STATUS"
signin biggy bigpassword
expect_eq "200 KB body: nothing created" 500 "$STATUS"
rm -f "$BIG"

signin alice "$PASS"
expect_eq "server still serves after all of the above" 200 "$STATUS"

finish
