#!/usr/bin/env bash
# Stops token theft through the `auth` cookie (OWASP Session Management, RFC 6265bis): the cookie
# is HttpOnly (no script can read it), SameSite=Lax (not sent on cross-site POSTs), Path=/,
# Max-Age equal to the token lifetime (it never outlives the token), Secure only when configured
# (AUTHD_COOKIE_SECURE=always) or the request came over HTTPS — never because a client claims so
# in a header — and responses carrying a token are Cache-Control: no-store.
source "$(dirname "$0")/harness.sh"
export AUTHD_TOKEN_TTL=1234
stack_start

has() { if grep -qx -- "$1" <<<"$2"; then echo yes; else echo no; fi; }

check_cookie() { # DESC SECURE(yes|no)
  local desc=$1 secure=$2 attrs tok
  attrs=$(cookie_attributes "$(auth_cookie)")
  tok=$(json .token)
  expect_eq "$desc: cookie value is the token" "auth=$tok" "$(trim "$(auth_cookie | cut -d';' -f1)")"
  expect_eq "$desc: HttpOnly" yes "$(has HttpOnly "$attrs")"
  expect_eq "$desc: SameSite=Lax" yes "$(has SameSite=Lax "$attrs")"
  expect_eq "$desc: Path=/" yes "$(has Path=/ "$attrs")"
  expect_eq "$desc: Max-Age=1234 (the token TTL)" yes "$(has Max-Age=1234 "$attrs")"
  expect_eq "$desc: no Expires/Domain (host-only, lifetime by Max-Age)" no "$(grep -qiE '^(expires|domain)=' <<<"$attrs" && echo yes || echo no)"
  expect_eq "$desc: Secure" "$secure" "$(has Secure "$attrs")"
  expect_eq "$desc: Cache-Control: no-store" no-store "$(header Cache-Control)"
  local claims; claims=$(jwt_payload "$tok")
  expect_eq "$desc: token lifetime exp - iat = Max-Age" 1234 "$(jq '.exp - .iat' <<<"$claims")"
}

step "plain HTTP, cookie_secure=auto (the default)"
signup alice 'alice password'
expect_eq "signup: 201" 201 "$STATUS"
check_cookie "signup" no
http POST /signin -u 'alice:alice password'
expect_eq "signin: 200" 200 "$STATUS"
check_cookie "signin" no
http POST /signin -u 'alice:alice password' -H 'X-Forwarded-Proto: https' -H 'HTTPS: on' -H 'Forwarded: proto=https'
check_cookie "signin claiming https in headers" no
http POST /signin -u 'alice:wrong'
expect_eq "failed sign-in: no cookie" '' "$(header Set-Cookie)"

step "cookie_secure=always"
authd_stop
export AUTHD_COOKIE_SECURE=always
authd_start || fail "authd restarts with cookie_secure=always"
http POST /signin -u 'alice:alice password'
check_cookie "signin, always" yes
signup bob 'bob password'
check_cookie "signup, always" yes

step "cookie_secure=never"
authd_stop
export AUTHD_COOKIE_SECURE=never
authd_start || fail "authd restarts with cookie_secure=never"
http POST /signin -u 'alice:alice password'
check_cookie "signin, never" no
finish
