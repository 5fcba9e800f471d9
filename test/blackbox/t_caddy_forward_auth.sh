#!/usr/bin/env bash
# The attack: reaching an application behind Caddy without the capability its
# access rule asks for - no token, a bad token, a role too weak, a forged
# X-Auth-User / X-Auth-Role or X-Original-* header, a path that borrows a
# public rule, authd down; and a browser without credentials sent to the
# sign-in portal with rd=<its URI>, and back once signed in. conf/caddy/Caddyfile guards /app/ with
# forward_auth to authd's GET /auth/check over FastCGI (transport fastcgi on
# authd's socket); caddy.sh runs the shipped file, with the application of
# /app/ a second Caddy site that echoes what it was told:
#   app user=[X-Auth-User] role=[X-Auth-Role] method=METHOD uri=URI
# Runs in the caddy suite only (TEST_FRONTEND=caddy).
export TEST_FRONTEND=caddy
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_AUTHORIZE_RULE='/app/public/ * public; /app/admin/ * delete'
stack_start

app() {  # app DESC USER ROLE METHOD URI: the application answered, told USER and ROLE
  expect_eq "$1" "200 app user=[$2] role=[$3] method=$4 uri=$5" "$STATUS $BODY"
}

step "users, signed in through Caddy"
role_users user writer admin

step "no credentials, bad credentials"
http GET /app/items
expect_front_refusal "no token: 401" 401 '^Bearer realm="authd"$'
http GET /app/items -H 'Authorization: Bearer not.a.token'
expect_front_refusal "a bad token: 401" 401 'error="invalid_token"'
http GET /app/items -H 'X-Auth-User: admin-1' -H 'X-Auth-Role: admin'
expect_front_refusal "forged X-Auth-* headers alone: 401" 401 '^Bearer'

step "a browser without credentials: to the sign-in portal and back"
BROWSER_ACCEPT='Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
http GET '/app/report?x=1&y=a+b' -H "$BROWSER_ACCEPT"
expect_status 302 "a page load without credentials goes to the portal"
expect_eq "with the original URI, percent-encoded, as rd" \
  '/login?rd=%2Fapp%2Freport%3Fx%3D1%26y%3Da%2Bb' "$(header Location)"
http POST /app/items -H "$BROWSER_ACCEPT" -d 'x=1'
expect_status 302 "a form post without credentials goes to the portal"
http GET /app/admin/keys -H "$BROWSER_ACCEPT" -H "$(role_bearer user)"
expect_front_refusal "a page load with too weak a role stays 403" 403 'error="insufficient_scope"'
JAR=$STATE_DIR/jar
http POST /signin -u writer-1:pw-writer -c "$JAR"
expect_status 200 "sign in at the portal"
http GET '/auth/return?rd=%2Fapp%2Freport%3Fx%3D1' -b "$JAR"
expect_status 303 "the portal's way back"
expect_eq "back to the original URI" '/app/report?x=1' "$(header Location)"
http GET '/app/report?x=1' -b "$JAR" -H "$BROWSER_ACCEPT"
app "the application, with the cookie the portal set" writer-1 writer GET '/app/report?x=1'

step "the capability each method needs (check_unmatched = method)"
http GET '/app/items?page=2' -H "$(role_bearer user)"
app "GET as user: the application, told who" user-1 user GET '/app/items?page=2'
http GET /app/items -H "Cookie: auth=${ROLE_TOKEN[user]}"
app "GET with the auth cookie" user-1 user GET /app/items
http POST /app/items -H "$(role_bearer user)" -d '{"x":1}'
expect_front_refusal "POST as user (no create): 403" 403 'error="insufficient_scope"'
http POST /app/items -H "$(role_bearer writer)" -d '{"x":1}'
app "POST as writer" writer-1 writer POST /app/items
http DELETE /app/items/1 -H "$(role_bearer writer)"
expect_front_refusal "DELETE as writer (no delete): 403" 403 'error="insufficient_scope"'
http DELETE /app/items/1 -H "$(role_bearer admin)"
app "DELETE as admin" admin-1 admin DELETE /app/items/1

step "a rule asking for delete: /app/admin/"
http GET /app/admin/keys -H "$(role_bearer user)"
expect_front_refusal "user: 403" 403 'error="insufficient_scope"'
http GET /app/admin/keys -H "$(role_bearer writer)"
expect_front_refusal "writer: 403" 403 'error="insufficient_scope"'
http GET /app/admin/keys -H "$(role_bearer admin)"
app "admin gets the protected application" admin-1 admin GET /app/admin/keys
# Caddy's path matchers clean the path; /auth/check judges the URI as sent.
for uri in /app//admin/keys /app/./admin/keys /app/x/../admin/keys /app/admin%2fkeys /app/%61dmin/keys; do
  http GET "$uri" --path-as-is -H "$(role_bearer user)"
  expect_match "$uri as user is refused" '^(400|403)$' "$STATUS"
done

step "forged headers"
http GET /app/items -H "$(role_bearer user)" -H 'X-Auth-User: admin-1' -H 'X-Auth-Role: admin'
app "a forged X-Auth-User / X-Auth-Role is replaced" user-1 user GET /app/items
http GET /app/public/info -H 'X-Auth-User: admin-1' -H 'X-Auth-Role: admin'
app "a public rule needs no token; the forged identity is dropped" '' '' GET /app/public/info
http GET /app/admin/keys -H "$(role_bearer user)" -H 'X-Original-URI: /app/public/x' -H 'X-Original-Method: GET'
expect_front_refusal "a client's X-Original-* headers are ignored" 403 'error="insufficient_scope"'
http GET /app/admin/keys -H "$(role_bearer user)" -H 'X-Forwarded-Uri: /app/public/x' -H 'X-Forwarded-Method: GET'
expect_front_refusal "a client's X-Forwarded-Uri / -Method are replaced" 403 'error="insufficient_scope"'
http GET /app/public/../admin/keys --path-as-is
expect_match "a dot segment cannot borrow the public rule" '^(400|401)$' "$STATUS"

step "authctl changes take effect on the next request"
authctl role user-1 admin >/dev/null || fail "authctl role user-1 admin"
http GET /app/admin/keys -H "$(role_bearer user)"
app "promoted: the same token now reaches /app/admin/" user-1 admin GET /app/admin/keys
authctl delete user-1 >/dev/null || fail "authctl delete user-1"
http GET /app/items -H "$(role_bearer user)"
expect_front_refusal "deleted user: 401" 401 'error="invalid_token"'

step "authd down: refused with 503 JSON, never served"
authd_stop
http GET /app/items -H "$(role_bearer admin)"
expect_status 503 "authd down: 503"
expect_json "authd down: JSON" .error "Service Unavailable"
expect_header "authd down: JSON type" Content-Type '^application/json'

finish
