#!/usr/bin/env bash
# Attack: path confusion. A client without a token asks for an admin-only
# path written so that a naive prefix check reads it as a public one:
# /app/public/../admin/x, /app/public/%2e%2e/admin/x, /app//admin/x,
# /app/admin;x/..., /app/public%2f..%2fadmin, %252e%252e (double encoding),
# %00, invalid UTF-8 — and the plain directory /app/admin without its slash.
# authd decides on one canonical path (the server's own decoded path in
# authorizer mode), refuses ambiguous input with 400 and denies unmatched
# paths. Through GET /auth/check (every front end) and, on lighttpd, the
# shipped FastCGI authorizer snippet; t_forward_auth_nginx.sh repeats the
# probes through nginx auth_request and t_apache_authorizer.sh through
# mod_authnz_fcgi.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

APP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/authd-paths.XXXXXX") || exit 1
at_exit rm -rf "$APP_TMP"
APP_DIR=$APP_TMP/app
mkdir -p "$APP_DIR/public" "$APP_DIR/admin"
printf 'admins only\n' >"$APP_DIR/admin/x"
printf 'hello\n' >"$APP_DIR/public/hello.txt"
chmod -R a+rX "$APP_TMP"
if [[ $TEST_FRONTEND == lighttpd ]]; then
  lighttpd_authorizer_conf >"$APP_TMP/lighttpd.conf"
  export LIGHTTPD_CONF=$APP_TMP/lighttpd.conf APP_DIR
fi
# /app/public/ is public, /app/admin/ is for admins; nothing else is mentioned.
export AUTHD_AUTHORIZE_RULE='/app/public/ * public; /app/admin/ * delete'

stack_start

# The attacks: each must never be granted to an anonymous client.
ATTACKS=(
  /app/admin /app/admin/ /app/admin/x /app//admin/x /app/./admin/x /app/public/../admin/x
  /app/public/%2e%2e/admin/x /app/public/%2E%2E/admin/x /app/admin%3bx/x '/app/admin;x=1/x'
  '/app/public/..;/admin/x' /app/public%2f..%2fadmin/x /app/public%5c..%5cadmin/x
  /app/%252e%252e/admin/x /app/admin%00/x /app/%C0%AE%C0%AE/admin/x /app/%ff/x /app/../app/admin/x
)

step "GET /auth/check: every spelling of /app/admin/ is refused (401/403) or ambiguous (400)"
for uri in "${ATTACKS[@]}"; do
  http GET /auth/check -H 'X-Original-Method: GET' -H "X-Original-URI: $uri"
  expect_match "/auth/check $uri is not granted" '^(400|401|403)$' "$STATUS"
done
for uri in /app/public%2f..%2fadmin/x /app/%252e%252e/admin/x /app/admin%00/x /app/%ff/x /app/public%5cx; do
  http GET /auth/check -H 'X-Original-Method: GET' -H "X-Original-URI: $uri"
  expect_status 400 "/auth/check $uri is ambiguous"
done
http GET /auth/check -H 'X-Original-Method: GET' -H 'X-Original-URI: /app/admin'
expect_status 401 "/app/admin (no slash) falls under the /app/admin/ rule"
http GET /auth/check -H 'X-Original-Method: GET' -H 'X-Original-URI: /app/public/hello.txt'
expect_status 204 "control: /app/public/ is public"
# At /auth/check a path no rule matches needs its method's capability
# (check_unmatched = method: the proxy asks only for what it protects); in
# authorizer mode it is denied (below, and security_request_path_test.cpp).
http GET /auth/check -H 'X-Original-Method: GET' -H 'X-Original-URI: /elsewhere'
expect_status 401 "/auth/check: a path no rule matches needs a token (read)"

if [[ $TEST_FRONTEND == lighttpd ]]; then
  step "FastCGI authorizer (lighttpd): nothing under /app/admin/ is served to an anonymous client"
  for uri in "${ATTACKS[@]}"; do
    http GET "$uri" --path-as-is
    expect_ne "authorizer: $uri is not served" 200 "$STATUS"
    expect_ne "authorizer: $uri leaks nothing" "admins only" "$BODY"
  done
  http GET /app/public/hello.txt
  expect_status 200 "control: a public file is served"
  expect_eq "control: its body" "hello" "$BODY"
  http GET /app/other.txt
  expect_status 403 "authorizer: a path no rule matches is denied (authorize_unmatched = deny)"
fi

finish
