#!/usr/bin/env bash
# Proves token expiry: with AUTHD_TOKEN_TTL=2 a fresh token is accepted at once, carries
# exp - iat = 2 and a cookie Max-Age=2, and after sleeping past its lifetime the same token
# -> 401 {"error":"Access Denied"} with WWW-Authenticate: Bearer; signing in again gives a
# working token.
source "$(dirname "$0")/harness.sh"
export AUTHD_TOKEN_TTL=2
export AUTHD_TOKEN_LEEWAY=0   # no tolerated skew, whatever conf/authd.conf says
stack_start


signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
signin alice 'alice password'; expect_eq "signin" 200 "$STATUS"
TOK=$(json '.token')
expect_match "cookie carries Max-Age=2" '(^|;) *Max-Age=2( *;|$)' "$(header Set-Cookie)"
http GET /records -H "Authorization: Bearer $TOK"
expect_eq "fresh token accepted" 200 "$STATUS"
expect_eq "exp - iat is the ttl" 2 "$(jwt_payload "$TOK" | jq -r '.exp - .iat' 2>/dev/null)"

sleep 4
http GET /records -H "Authorization: Bearer $TOK"
expect_denied "expired token" 401

signin alice 'alice password'; expect_eq "signin again" 200 "$STATUS"
TOK2=$(json '.token')
http GET /records -H "Authorization: Bearer $TOK2"
expect_eq "new token accepted" 200 "$STATUS"

finish
