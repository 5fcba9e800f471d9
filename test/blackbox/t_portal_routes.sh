#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The pages as the web server serves them, and the two small routes only they
# need (the pages themselves are driven in Chromium by test/browser/):
#   - / answers 302 to /login keeping ?rd=; /login, /account, /admin are the
#     HTML pages of www/ (query strings kept); /admin/users is the API.
#   - every page, asset and error page carries the strict
#     Content-Security-Policy, nosniff and no-referrer; the pages have no
#     inline script or style.
#   - GET /auth/providers lists configured providers ([] when none).
#   - GET /auth/return?rd= sends a browser back only to a path on this site
#     or an origin of portal_return_origins; every open-redirect trick goes
#     to portal_default_return.
#   - GET /auth/portal turns a forward-auth proxy's X-Original-URI into
#     /login?rd=<encoded URI>.
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_PORTAL_RETURN_ORIGINS='https://app.example.test, http://127.0.0.1:8081'
stack_start
www=$SOURCE_DIR/www
CSP="default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

expect_policy() {
  expect_eq "$1: Content-Security-Policy" "$CSP" "$(header Content-Security-Policy)"
  expect_eq "$1: X-Content-Type-Options" nosniff "$(header X-Content-Type-Options)"
  expect_eq "$1: Referrer-Policy" no-referrer "$(header Referrer-Policy)"
}

step "pages"
http GET /
expect_status 302 "GET / leads to the portal"
expect_eq "GET / -> /login" /login "$(header Location | sed "s|^$BASE_URL||")"
http GET '/?rd=%2Fapp%2Fx%3Fa%3D1'
expect_eq "GET /?rd= keeps its query" '/login?rd=%2Fapp%2Fx%3Fa%3D1' "$(header Location | sed "s|^$BASE_URL||")"
for page in login account admin; do
  http GET "/$page"
  expect_status 200 "GET /$page"
  expect_header "/$page is HTML" Content-Type '^text/html'
  expect_eq "/$page is www/$page.html" "$(<"$www/$page.html")" "$BODY"
  expect_policy "/$page"
  if grep -Eiq '<script>|<script[^>]*>[^<]|<style|style=|[[:space:]]on[a-z]+=|javascript:' <<<"$BODY"; then
    fail "/$page has no inline script, style or handler"
  else
    pass "/$page has no inline script, style or handler"
  fi
done
http GET '/login?rd=%2Fapp%2F&return_to=x'
expect_status 200 "GET /login with a query string"
for asset in portal.css api.js forms.js login.js account.js admin.js; do
  http GET "/assets/$asset"
  expect_status 200 "GET /assets/$asset"
  expect_policy "/assets/$asset"
done
http GET /assets/login.js
expect_header "JavaScript modules are served as text/javascript" Content-Type '^text/javascript'
http GET /assets/portal.css
expect_header "the stylesheet is text/css" Content-Type '^text/css'
http GET /no-such-page
expect_status 404 "an unknown page"
expect_eq "404 body is www/404.html" "$(<"$www/404.html")" "$BODY"
expect_policy "the 404 page"
http GET /admin/users
expect_match "/admin/users goes to authd (JSON, not the page)" '^application/json' "$(header Content-Type)"

step "GET /auth/providers"
http GET /auth/providers
expect_status 200 "GET /auth/providers"
expect_json "no provider configured: an empty list" '.providers | length' 0
http POST /auth/providers
expect_status 405 "POST /auth/providers"

step "GET /auth/return"
# returns_to DESC RAW_QUERY EXPECTED_LOCATION
returns_to() {
  http GET "/auth/return?$2"
  expect_status 303 "$1: 303"
  expect_eq "$1: Location" "$3" "$(header Location)"
  expect_eq "$1: body names it" "$3" "$(json .location)"
  expect_eq "$1: not cached" no-store "$(header Cache-Control)"
}
returns_to "a path on this site" 'rd=%2Fapp%2Freport%3Fa%3D1%26b%3D2' '/app/report?a=1&b=2'
returns_to "return_to works as rd" 'return_to=%2Fapp%2F' '/app/'
returns_to "an allowed origin" 'rd=https%3A%2F%2Fapp.example.test%2Fhome%3Fx%3D1' 'https://app.example.test/home?x=1'
returns_to "an allowed origin with its port" 'rd=http%3A%2F%2F127.0.0.1%3A8081%2Ffiles%2F' 'http://127.0.0.1:8081/files/'
returns_to "no rd: the default" '' '/account'
for trick in 'https%3A%2F%2Fevil.example%2F' '%2F%2Fevil.example' '%2F%5Cevil.example' '%5C%5Cevil.example' \
             'javascript%3Aalert(1)' 'JavaScript%3A%2F%2Fapp.example.test%2F%250aalert(1)' \
             'data%3Atext%2Fhtml%2C%3Cscript%3Ealert(1)%3C%2Fscript%3E' \
             'https%3A%2F%2Fapp.example.test%40evil.example%2F' 'https%3A%2F%2Fapp.example.test%3A443%40evil.example%2F' \
             'https%3A%2F%2Fapp.example.test.evil.example%2F' 'http%3A%2F%2Fapp.example.test%2F' \
             'http%3A%2F%2F127.0.0.1%3A8082%2F' '%252F%252Fevil.example' 'evil.example' 'https%3Aevil.example' \
             '%2F%C3%A9vil'; do
  http GET "/auth/return?rd=$trick"
  expect_status 303 "rd=$trick: 303"
  expect_eq "rd=$trick goes to the default" /account "$(header Location)"
done
# Encoded twice: decoded once it is a path on this site, and stays one.
http GET '/auth/return?rd=%2F%252F%252Fevil.example'
expect_eq "rd=/%2F%2Fevil.example stays a path on this site" '/%2F%2Fevil.example' "$(header Location)"
# Control characters (browsers drop tab and newline: /<TAB>/evil is //evil;
# CR LF would split the header): the web server itself refuses them (400), or
# authd sends the browser to the default. Never a redirect elsewhere.
for trick in '%2F%09%2Fevil.example' '%2F%0A%2Fevil.example' '%0D%0ALocation%3A%20https%3A%2F%2Fevil.example'; do
  http GET "/auth/return?rd=$trick"
  if [[ $STATUS == 400 || ($STATUS == 303 && $(header Location) == /account) ]]; then
    pass "rd=$trick: refused or the default"
  else
    fail "rd=$trick: refused or the default" "status $STATUS, Location $(header Location)"
  fi
done

step "GET /auth/portal"
http GET /auth/portal -H 'X-Original-URI: /files/report.txt?a=1&b=x+y'
expect_status 302 "GET /auth/portal"
expect_eq "the original URI travels encoded" '/login?rd=%2Ffiles%2Freport.txt%3Fa%3D1%26b%3Dx%2By' "$(header Location)"
http GET /auth/portal -H 'X-Original-URI: //evil.example/'
expect_eq "an address the portal would refuse is dropped" /login "$(header Location)"
http GET /auth/portal
expect_status 400 "GET /auth/portal without X-Original-URI"

finish
