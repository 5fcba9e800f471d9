#!/usr/bin/env bash
# Proves token expiry: with AUTHD_TOKEN_TTL=2 a fresh token is accepted at once, carries
# exp - iat = 2 and a cookie Max-Age=2, and after sleeping past its lifetime the same token
# -> 401 {"error":"Access Denied"} with WWW-Authenticate: Bearer; signing in again gives a
# working token.
source "$(dirname "$0")/harness.sh"
export AUTHD_TOKEN_TTL=2
export AUTHD_TOKEN_LEEWAY=0   # no tolerated skew, whatever conf/authd.conf says
stack_start

b64url_decode() { local s; s=$(printf '%s' "$1" | tr '_-' '/+'); case $(( ${#s} % 4 )) in 2) s+='==' ;; 3) s+='=' ;; esac; printf '%s' "$s" | base64 -d 2>/dev/null; }
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signup() { http POST /signup -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg u "$1" --arg p "$2" '{username:$u,password:$p,fullname:"Test Person",email:"test@example.com"}')"; }
signin() { http POST /signin -H "$(basic "$1:$2")"; }

signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
signin alice 'alice password'; expect_eq "signin" 200 "$STATUS"
TOK=$(json '.token')
expect_match "cookie carries Max-Age=2" '(^|;) *Max-Age=2( *;|$)' "$(header Set-Cookie)"
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "fresh token accepted" 200 "$STATUS"
expect_eq "exp - iat is the ttl" 2 "$(b64url_decode "$(cut -d. -f2 <<<"$TOK")" | jq -r '.exp - .iat' 2>/dev/null)"

sleep 4
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "expired token: 401" 401 "$STATUS"
expect_eq "expired token: body" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
expect_match "expired token: WWW-Authenticate starts with Bearer" '^Bearer' "$(header WWW-Authenticate)"

signin alice 'alice password'; expect_eq "signin again" 200 "$STATUS"
TOK2=$(json '.token')
http GET /records -H "Authorization: Bearer $TOK2"
expect_eq "new token accepted" 200 "$STATUS"

finish
