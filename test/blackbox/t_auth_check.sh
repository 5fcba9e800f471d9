#!/usr/bin/env bash
# GET /auth/check, the forward-auth decision (nginx auth_request, Traefik
# ForwardAuth, Caddy forward_auth...), called directly through lighttpd:
# X-Original-Method / X-Original-URI name the request to decide on;
# 204 + X-Auth-User / X-Auth-Role grants, 401/403 JSON refuses, 400 for a
# missing or unsafe original URI.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_AUTHORIZE_RULE='/ * method; /public/ * public; /api/ GET public; /api/ * delete; /reports/ * authenticated; /reports/archive/ * update; /admin/ * delete'

stack_start

role_users user writer editor admin

# check METHOD URI [curl args...]: asks /auth/check about METHOD URI.
check() {
  local method=$1 uri=$2
  shift 2
  http GET /auth/check -H "X-Original-Method: $method" -H "X-Original-URI: $uri" "$@"
}
# granted DESC USER ROLE: 204, no body, the identity headers, no-store.
granted() {
  expect_status 204 "$1"
  expect_eq "$1: empty body" "" "$BODY"
  expect_header "$1: X-Auth-User" X-Auth-User "^$2\$"
  expect_header "$1: X-Auth-Role" X-Auth-Role "^$3\$"
  expect_header "$1: not cacheable" Cache-Control 'no-store'
}
# refused DESC STATUS [CHALLENGE-REGEX]
refused() {
  expect_status "$2" "$1"
  expect_json "$1: JSON error" .error "Access Denied"
  expect_header "$1: JSON" Content-Type '^application/json'
  expect_header "$1: challenge" WWW-Authenticate "${3:-^Bearer realm=\"authd\"}"
  if header X-Auth-User >/dev/null; then fail "$1: no X-Auth-User on a refusal"; else pass "$1: no X-Auth-User"; fi
}

step "no credentials"
check GET /files/a.txt
refused "GET without a token" 401 '^Bearer realm="authd"$'
check GET /files/a.txt -H 'Authorization: Bearer garbage'
refused "a garbage token" 401 'error="invalid_token"'
check GET /files/a.txt -H 'Authorization: Bearer a b'
refused "a malformed Authorization header" 400 'error="invalid_request"'

step "default capabilities by original method"
check GET /files/a.txt -H "$(role_bearer user)"
granted "GET as user" user-1 user
check HEAD /files/a.txt -H "$(role_bearer user)"
granted "HEAD as user" user-1 user
check POST /files/ -H "$(role_bearer user)"
refused "POST as user" 403 'error="insufficient_scope"'
check POST /files/ -H "$(role_bearer writer)"
granted "POST as writer" writer-1 writer
check PUT /files/a.txt -H "$(role_bearer writer)"
refused "PUT as writer" 403
check PUT /files/a.txt -H "$(role_bearer editor)"
granted "PUT as editor" editor-1 editor
check PATCH /files/a.txt -H "$(role_bearer writer)"
refused "PATCH as writer" 403
check PATCH /files/a.txt -H "$(role_bearer editor)"
granted "PATCH as editor" editor-1 editor
check DELETE /files/a.txt -H "$(role_bearer editor)"
refused "DELETE as editor" 403
check DELETE /files/a.txt -H "$(role_bearer admin)"
granted "DELETE as admin" admin-1 admin
check PROPFIND /files/ -H "$(role_bearer editor)"
refused "an unusual method needs delete" 403
http GET /auth/check -H 'X-Original-URI: /files/a.txt' -H "$(role_bearer user)"
expect_status 400 "no X-Original-Method: refused, never \"assume GET\" (t_sec_trusted_proxies.sh)"
http POST /auth/check -H 'X-Original-Method: GET' -H 'X-Original-URI: /files/a.txt' -H "$(role_bearer user)"
granted "the check itself may be a POST (the original method decides)" user-1 user
check GET '/files/a.txt?x=1&y=/../' -H "$(role_bearer user)"
granted "the query string is not part of the path" user-1 user

step "rules: public, authenticated, method-specific, longest prefix"
check GET /public/index.html
expect_status 204 "public rule without a token"
if header X-Auth-User >/dev/null; then fail "public: no X-Auth-User"; else pass "public: no X-Auth-User"; fi
if header X-Auth-Role >/dev/null; then fail "public: no X-Auth-Role"; else pass "public: no X-Auth-Role"; fi
check DELETE /public/index.html
expect_status 204 "public rule for any method"
check GET /public/x -H 'Authorization: Bearer garbage'
expect_status 204 "public rule ignores credentials"
check GET /api/items
expect_status 204 "'/api/ GET public'"
check POST /api/items -H "$(role_bearer editor)"
refused "'/api/ * delete': POST as editor" 403
check POST /api/items -H "$(role_bearer admin)"
granted "'/api/ * delete': POST as admin" admin-1 admin
check GET /reports/q1 -H "$(role_bearer user)"
granted "authenticated rule: GET as user" user-1 user
check DELETE /reports/q1 -H "$(role_bearer user)"
granted "authenticated rule: any method with any valid token" user-1 user
check DELETE /reports/q1
refused "authenticated rule without a token" 401
check GET /reports/archive/2023 -H "$(role_bearer writer)"
refused "longest prefix wins (/reports/archive/ needs update)" 403
check GET /reports/archive/2023 -H "$(role_bearer editor)"
granted "longest prefix: editor has update" editor-1 editor

step "the original URI must be a safe path"
http GET /auth/check -H 'X-Original-Method: GET' -H "$(role_bearer admin)"
expect_status 400 "missing X-Original-URI"
expect_json "missing X-Original-URI: says which" .error "the original URI is required"
for uri in '/public%2F..%2Ffiles' '/files/%zz' '/files/%0' '/files/a%00b' 'files/a.txt' 'http://example.com/files/a.txt' \
           '/public/../../x'; do
  check GET "$uri" -H "$(role_bearer admin)"
  expect_status 400 "unsafe original URI '$uri'"
  expect_match "unsafe original URI '$uri': JSON" '^the path ' "$(json .error)"
done
# Dot segments are resolved once (t_sec_path_confusion.sh): the rules see the real path.
check GET '/public/../files/a.txt'
refused "'/public/../files/a.txt' is /files/a.txt, not public" 401
check GET '/public/%2e%2e/files/a.txt'
refused "an encoded dot segment is resolved the same way" 401
check GET '/public/%41bc' -H "$(role_bearer admin)"
expect_status 204 "percent-escapes are decoded before the rules apply"
check GET '/%61dmin/keys' -H "$(role_bearer user)"
refused "an escaped prefix still meets its rule" 403
# Web servers merge repeated slashes (lighttpd, nginx merge_slashes, Apache
# MergeSlashes): /admin//keys is served as /admin/keys, so it must meet the
# /admin/ rule too, not the default.
for uri in '/admin//keys' '//admin/keys' '///admin///keys'; do
  check GET "$uri" -H "$(role_bearer user)"
  refused "'$uri' meets the /admin/ rule (repeated slashes)" 403
done
check GET '/admin%2f/keys' -H "$(role_bearer user)"
expect_status 400 "an encoded slash is ambiguous: refused"
check GET '/admin//keys' -H "$(role_bearer admin)"
granted "'/admin//keys' as admin" admin-1 admin
check GET '/public//x'
expect_status 204 "'/public//x' is still public"

step "the auth cookie"
check GET /files/a.txt -H "Cookie: a=b; auth=${ROLE_TOKEN[writer]}; c=d"
granted "GET with the auth cookie" writer-1 writer
check POST /files/ -H "Cookie: auth=${ROLE_TOKEN[user]}"
refused "POST with a user's cookie" 403
check DELETE /files/a.txt -H "$(role_bearer user)" -H "Cookie: auth=${ROLE_TOKEN[admin]}"
refused "the Authorization header wins over the cookie" 403
check GET /files/a.txt -H "Cookie: other=${ROLE_TOKEN[admin]}"
refused "a token in another cookie does not count" 401

step "authctl changes take effect on the next check"
authctl role user-1 admin >/dev/null || fail "authctl role user-1 admin"
check DELETE /files/a.txt -H "$(role_bearer user)"
granted "promoted with the same token" user-1 admin
authctl delete user-1 >/dev/null || fail "authctl delete user-1"
check GET /files/a.txt -H "$(role_bearer user)"
refused "token of a deleted user" 401 'error="invalid_token"'

finish
