#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Smoke test of the lighttpd side: static pages, error pages, authd's JSON
# errors passing through untouched, backend down and back up.
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

stack_start
www=$SOURCE_DIR/www

step "static files"
http GET /
expect_status 302 "GET / leads to the sign-in portal"
expect_match "GET / -> /login" '/login$' "$(header Location)"

http GET /login
expect_status 200 "GET /login"
expect_header "the portal is HTML" Content-Type '^text/html'
expect_eq "GET /login serves www/login.html" "$(<"$www/login.html")" "$BODY"

# The mail pages (docs/pages.md): each path serves its page of www/.
for page in forgot:reset reset:reset verify.html:verify invite:invite; do
  http GET "/${page%%:*}"
  expect_status 200 "GET /${page%%:*}"
  expect_eq "GET /${page%%:*} serves www/${page##*:}.html" "$(<"$www/${page##*:}.html")" "$BODY"
done

http GET /index.html
expect_status 200 "GET /index.html"

http GET /no-such-page.html
expect_status 404 "unknown static path"
expect_header "404 page is HTML" Content-Type '^text/html'
expect_eq "404 body is www/404.html" "$(<"$www/404.html")" "$BODY"

step "authd's JSON errors pass through lighttpd untouched"
http GET /records
expect_status 401 "GET /records without a token"
expect_header "401 is JSON" Content-Type '^application/json'
expect_json "401 error text" .error "Access Denied"
expect_header "401 carries a Bearer challenge" WWW-Authenticate '^Bearer'

http POST /signin -u nobody:wrong
expect_status 500 "sign-in of an unknown user"
expect_header "500 is JSON" Content-Type '^application/json'
expect_json "500 error text" .error "Invalid Login"

http GET /auth/no-such-route
expect_status 404 "unknown route below an API prefix"
expect_header "backend 404 is JSON, not 404.html" Content-Type '^application/json'
expect_ne "backend 404 body is not www/404.html" "$(<"$www/404.html")" "$BODY"

step "request size limit"
big=$(head -c 70000 /dev/zero | tr '\0' x)
http POST /signup -H 'Content-Type: application/json' --data-binary "{\"username\":\"$big\"}"
expect_status 413 "a 70 KB request body is refused by lighttpd"

step "backend down"
authd_stop
http POST /signin -u nobody:wrong
expect_match "API path with authd down answers 5xx" '^5[0-9][0-9]$' "$STATUS"
expect_header "5xx page is HTML" Content-Type '^text/html'
expect_eq "5xx body is www/500.html" "$(<"$www/500.html")" "$BODY"

http GET /login
expect_status 200 "static files still served with authd down"

step "backend back"
authd_start || fail "authd restarts"
http GET /records
expect_status 401 "GET /records after the restart"
expect_json "error text after the restart" .error "Access Denied"

finish
