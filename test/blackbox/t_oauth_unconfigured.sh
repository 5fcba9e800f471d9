#!/usr/bin/env bash
# Proves GET /oauth without any identity provider configured (the default conf/authd.conf):
# 501 with a JSON error, both for a start and for a completion, no cookie, no account; and that
# an incomplete provider configuration stops authctl (and authd) at start with a one-line reason
# naming the setting, rather than failing at request time.
source "$(dirname "$0")/harness.sh"
for v in $(compgen -e | grep '^AUTHD_OAUTH_'); do unset "$v"; done
stack_start

for q in '' '?provider=default' '?code=abc&state=def' '?error=access_denied'; do
  http GET "/oauth$q"
  expect_status 501 "GET /oauth$q without a provider"
  expect_match "GET /oauth$q: JSON" '^application/json' "$(header Content-Type)"
  expect_eq "GET /oauth$q: error string" string "$(json '.error|type' 2>&1)"
  expect_eq "GET /oauth$q: no Location" "" "$(header Location)"
  expect_eq "GET /oauth$q: no cookie" "" "$(header Set-Cookie)"
done
expect_eq "no account created" "" "$(authctl list | tail -n +2)"

# Incomplete settings are refused at start (authctl reads the same configuration as authd).
check_refused() { # DESC REGEX VAR=VALUE...
  local desc=$1 regex=$2 out rc=0
  shift 2
  out=$(env "$@" "$AUTHCTL_BIN" list 2>&1) || rc=$?
  expect_eq "$desc: authctl exits 1" 1 "$rc"
  expect_match "$desc: the reason names it" "$regex" "$out"
}
check_refused "issuer without client_id" 'client_id' \
  AUTHD_OAUTH_ISSUER=http://127.0.0.1:9/ AUTHD_OAUTH_REDIRECT_URI=http://127.0.0.1/oauth
check_refused "issuer without redirect_uri" 'redirect_uri' \
  AUTHD_OAUTH_ISSUER=http://127.0.0.1:9/ AUTHD_OAUTH_CLIENT_ID=x
check_refused "plain OAuth 2.0 without userinfo_url" 'userinfo_url' \
  AUTHD_OAUTH_AUTHORIZATION_URL=http://127.0.0.1:9/a AUTHD_OAUTH_TOKEN_URL=http://127.0.0.1:9/t \
  AUTHD_OAUTH_CLIENT_ID=x AUTHD_OAUTH_REDIRECT_URI=http://127.0.0.1/oauth
check_refused "a non-http issuer" 'http' \
  AUTHD_OAUTH_ISSUER=ftp://idp.example AUTHD_OAUTH_CLIENT_ID=x AUTHD_OAUTH_REDIRECT_URI=http://127.0.0.1/oauth
check_refused "a listed provider without settings" 'github' AUTHD_OAUTH_PROVIDERS=github
check_refused "a bad provider name" 'provider name' AUTHD_OAUTH_PROVIDERS=Git-Hub

# authd itself refuses to start with such a setting.
authd_stop
export AUTHD_OAUTH_ISSUER=http://127.0.0.1:9/
authd_start >/dev/null 2>&1
expect_eq "authd does not start with an incomplete provider" no "$(authd_alive && echo yes || echo no)"
expect_match "authd's log names the missing setting" 'client_id' "$(cat "$STATE_DIR/authd.log")"

finish
