#!/usr/bin/env bash
# Attack: login CSRF and cross-site state changes. A page on another site
# auto-submits a plain HTML form (urlencoded, multipart, text/plain: no CORS
# preflight) or a fetch to POST /signup or /signin, signing the visitor's
# browser into an account the attacker controls, or creates accounts in bulk
# from one address. authd takes sign-up only as application/json, refuses
# requests whose Sec-Fetch-Site or Origin names another site, keeps Basic
# sign-in (curl -u, fetch with Authorization) working, and limits sign-ups
# per address (signup_address_limit).
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

export AUTHD_SIGNUP_ADDRESS_LIMIT=3
stack_start

SIGNUP_JSON='{"username":"mallory","password":"mallory password","fullname":"M","email":"m@example.com"}'
no_cookie() { if header Set-Cookie >/dev/null; then fail "$1: no cookie set" "$(header Set-Cookie)"; else pass "$1: no cookie set"; fi; }

step "a cross-site form cannot sign up (any content type but JSON is refused before parsing)"
for type in 'application/x-www-form-urlencoded' 'multipart/form-data; boundary=x' 'text/plain' 'text/plain; charset=utf-8'; do
  http POST /signup -H "Content-Type: $type" --data-binary "$SIGNUP_JSON"
  expect_status 415 "sign-up as $type"
  no_cookie "sign-up as $type"
done
http POST /signup --data-binary "$SIGNUP_JSON" -H 'Content-Type:'
expect_status 415 "sign-up without a Content-Type"

step "JSON from another site is refused too (Sec-Fetch-Site, else Origin)"
for site in cross-site same-site; do
  http POST /signup -H 'Content-Type: application/json' -H "Sec-Fetch-Site: $site" -H 'Origin: http://evil.example' --data-binary "$SIGNUP_JSON"
  expect_status 403 "sign-up with Sec-Fetch-Site: $site"
  no_cookie "sign-up with Sec-Fetch-Site: $site"
done
for origin in http://evil.example null "http://127.0.0.1:$PORT.evil.example" "https://127.0.0.1:$PORT"; do
  http POST /signup -H 'Content-Type: application/json' -H "Origin: $origin" --data-binary "$SIGNUP_JSON"
  expect_status 403 "sign-up with Origin: $origin"
done

step "sign-in: Basic credentials only, never from another site"
printf 'pw-alice' | authctl add alice user >/dev/null || fail "authctl add alice"
http POST /signin -u alice:pw-alice -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "sign-in with Sec-Fetch-Site: cross-site"
no_cookie "cross-site sign-in"
http POST /signin -u alice:pw-alice -H 'Origin: http://evil.example'
expect_status 403 "sign-in with a foreign Origin"
http POST /signin -H 'Content-Type: application/x-www-form-urlencoded' --data 'username=alice&password=pw-alice'
expect_status 500 "a form's credentials are not credentials (Invalid Login)"
no_cookie "form sign-in"
http POST /signin -u alice:pw-alice
expect_status 200 "control: curl -u (no Origin, no Sec-Fetch-Site) signs in"
http POST /signin -u alice:pw-alice -H 'Sec-Fetch-Site: same-origin' -H "Origin: http://127.0.0.1:$PORT"
expect_status 200 "control: the site's own page signs in"

step "sign-ups per address are limited"
for i in 1 2 3; do
  http POST /signup -H 'Content-Type: application/json' -H 'Sec-Fetch-Site: same-origin' -H "Origin: http://127.0.0.1:$PORT" \
    --data-binary "{\"username\":\"user$i\",\"password\":\"password $i\",\"fullname\":\"U\",\"email\":\"u$i@example.com\"}"
  expect_status 201 "control: sign-up $i from this address (JSON, same origin)"
done
http POST /signup -H 'Content-Type: application/json' \
  --data-binary '{"username":"user4","password":"password 4","fullname":"U","email":"u4@example.com"}'
expect_status 429 "the 4th sign-up within the hour from one address"
expect_header "429 says when" Retry-After '^[0-9]+$'

finish
