#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# What the front end hands authd, on lighttpd and on Apache alike
# (blackbox.routing and blackbox-apache.routing): every API prefix and
# everything below it reaches authd (which builds its route from SCRIPT_NAME +
# PATH_INFO), anything else is a static path; the query string, the
# Authorization header (Bearer and Basic), cookies and request bodies arrive
# intact; authd's JSON answers are never replaced by an error page.
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export AUTHD_AUTHORIZE_RULE='/ * method'  # unmatched paths are denied by default

stack_start
www=$SOURCE_DIR/www
NOT_FOUND_PAGE=$(<"$www/404.html")

from_authd() { # DESC: the last answer is authd's JSON, not a page of the web server
  expect_header "$1: JSON from authd" Content-Type '^application/json'
  expect_ne "$1: not www/404.html" "$NOT_FOUND_PAGE" "$BODY"
}
static_404() { # DESC
  expect_status 404 "$1"
  expect_eq "$1: www/404.html" "$NOT_FOUND_PAGE" "$BODY"
}

step "every API prefix reaches authd"
http GET /signup
expect_status 405 "GET /signup"
from_authd "GET /signup"
expect_header "GET /signup: Allow" Allow 'POST'
http GET /signin
expect_status 405 "GET /signin"
from_authd "GET /signin"
http GET /oauth
expect_match "GET /oauth answered by authd (no provider: 501)" '^(501|302)$' "$STATUS"
from_authd "GET /oauth"
http GET /records
expect_status 401 "GET /records"
from_authd "GET /records"
http GET /auth/check
expect_status 400 "GET /auth/check without X-Original-URI"
from_authd "GET /auth/check"
http GET /admin/invitations
expect_status 401 "GET /admin/invitations without a token"
from_authd "GET /admin/invitations"
http GET /signup/invitation
expect_status 405 "GET /signup/invitation"
from_authd "GET /signup/invitation"

step "trailing slash, ids and deeper paths"
http GET /records/
expect_status 401 "GET /records/ (one trailing slash is the same route)"
http GET /records/6b02a0000000000000000000
expect_status 401 "GET /records/{id} without a token"
from_authd "GET /records/{id}"
http GET /records/a/b
expect_status 404 "GET /records/a/b: unknown route"
from_authd "GET /records/a/b"
expect_json "unknown route: error" .error "Not Found"
http GET /auth/no/such/route
expect_status 404 "GET /auth/no/such/route"
from_authd "GET /auth/no/such/route"
http GET /signup/extra
expect_status 404 "GET /signup/extra"
from_authd "GET /signup/extra"

step "look-alike paths are static"
http GET /recordsX
static_404 "GET /recordsX"
http GET /signups
static_404 "GET /signups"
http GET /authx/check
static_404 "GET /authx/check"
http GET /static/records
static_404 "GET /static/records"

step "headers, query string, cookies and bodies arrive"
signup rita rita-pass-123
expect_status 201 "POST /signup (body)"
http POST /signup -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' \
  --data-binary '{"username":"chuck","password":"chuck-pass-123","fullname":"Chuck","email":"chuck@example.com"}'
expect_status 201 "POST /signup with a chunked body (no Content-Length)"
http POST /signin -u 'rita:rita-pass-123'
expect_status 200 "POST /signin with Basic credentials (Authorization header)"
TOK=$(json .token)
http GET /records -H "Authorization: Bearer $TOK"
expect_status 200 "GET /records with a Bearer token (Authorization header)"
add_user ada rita-admin-123 admin
http POST /signin -u 'ada:rita-admin-123'
ADMIN=$(json .token)
http POST /records -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  --data-binary '{"title":"routed"}'
expect_status 201 "POST /records (body through the front end)"
ID=$(json ._id)
http GET "/records/$ID" -H "Authorization: Bearer $ADMIN"
expect_status 200 "GET /records/{id}: the id reached authd"
expect_json "the record" .title routed
http GET "/records/$ID/" -H "Authorization: Bearer $ADMIN"
expect_status 200 "GET /records/{id}/"
http PUT "/records/$ID" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  --data-binary '{"title":"moved"}'
expect_status 200 "PUT /records/{id}"
expect_json "PUT body arrived" .title moved
http GET "/records?access_token=$TOK"
expect_status 400 "a token in the query string is refused (QUERY_STRING arrives)"
from_authd "access_token in the query"
http GET "/auth/check" -H 'X-Original-URI: /app/x' -H 'X-Original-Method: GET' --cookie "auth=$TOK"
expect_status 204 "GET /auth/check with the auth cookie (Cookie and X- headers arrive)"
expect_header "check names the user" X-Auth-User '^rita$'
http DELETE "/records/$ID" -H "Authorization: Bearer $ADMIN"
expect_status 200 "DELETE /records/{id}"
http GET "/records/$ID" -H "Authorization: Bearer $ADMIN"
expect_status 404 "GET a deleted record"
from_authd "deleted record"

finish
