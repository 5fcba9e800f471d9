#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# authd as a FastCGI authorizer behind Apache 2.4 (mod_authnz_fcgi,
# conf/apache/authorizer.conf), protecting another application: a static
# directory (/app/static/) and a bash CGI script (/app/cgi-bin/whoami) that
# prints the AUTH_USER / AUTH_ROLE it receives.
#
# mod_authnz_fcgi only talks TCP (fcgi://HOST:PORT/), so a second authd
# listens on a loopback port (spawn-fcgi -a/-p) on the same state directory
# as the one mod_proxy_fcgi reaches over the unix socket.
#
# Proves: no token -> 401 JSON {"error":"Access Denied"} with a Bearer
# challenge, never a redirect or an HTML page; a user's token -> the file /
# the CGI output with AUTH_USER=<name> AUTH_ROLE=user; POST to the CGI
# (create) as user -> 403 JSON, as writer -> 200 with the request body
# intact; a `public` rule needs no token; the `auth` cookie works instead of
# the header; a deleted user's token -> 401; authd unreachable -> 500, never
# a grant.
export TEST_FRONTEND=apache
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# --- the protected application -----------------------------------------------
# The proof Apache sends on the TCP connection (front_secret, SECURITY.md class 11).
apache_authorizer_app "$(openssl rand -hex 32)"
cat >"$APP_DIR/cgi-bin/whoami" <<'EOF'
#!/usr/bin/env bash
# Prints what the web server tells the application about the caller.
body=
if [[ ${CONTENT_LENGTH:-0} =~ ^[0-9]+$ ]] && ((${CONTENT_LENGTH:-0} > 0)); then
  body=$(head -c "$CONTENT_LENGTH")
fi
printf 'Content-Type: text/plain; charset=utf-8\r\n\r\n'
printf 'AUTH_USER=%s\n' "${AUTH_USER-<unset>}"
printf 'AUTH_ROLE=%s\n' "${AUTH_ROLE-<unset>}"
printf 'REMOTE_USER=%s\n' "${REMOTE_USER-<unset>}"
printf 'METHOD=%s\n' "$REQUEST_METHOD"
printf 'BODY=%s\n' "$body"
EOF
chmod 0755 "$APP_DIR/cgi-bin/whoami"
# The same program under a path with a `public` rule.
cp -p "$APP_DIR/cgi-bin/whoami" "$APP_DIR/cgi-bin/open"

# --- authd's access rules and the Apache side -----------------------------------
export AUTHD_AUTHORIZE_RULE="/ * method; /app/static/public/ GET public; /app/static/public/ HEAD public; /app/cgi-bin/open * public"

stack_start

authd_tcp_start "$AUTHZ_PORT" "$HTTPD_AUTHD_FRONT_SECRET"

# --- accounts ------------------------------------------------------------------
signup alice alice-pass-1
expect_status 201 "alice signs up (role user)"
add_user wendy writer-pass-1 writer
expect_eq "authctl add wendy writer" 0 "$?"
signin alice alice-pass-1; expect_status 200 "alice signs in"; ALICE=$TOKEN
signin wendy writer-pass-1; expect_status 200 "wendy signs in"; WENDY=$TOKEN

refused() { # CODE DESC: authd's refusal, untouched, no redirect, no HTML
  local code=$1 desc=$2
  expect_status "$code" "$desc"
  expect_eq "$desc: body is authd's JSON" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"
  expect_header "$desc: JSON content type" Content-Type '^application/json'
  expect_header "$desc: Bearer challenge" WWW-Authenticate '^Bearer realm="authd"'
  if header Location >/dev/null; then fail "$desc: no redirect" "Location: $(header Location)"; else pass "$desc: no redirect"; fi
}

step "no token: 401 JSON for the static directory and the CGI"
http GET /app/static/report.txt
refused 401 "GET a protected file without a token"
http GET /app/cgi-bin/whoami
refused 401 "GET the CGI without a token"
http POST /app/cgi-bin/whoami -d 'x=1'
refused 401 "POST to the CGI without a token"
http GET /app/static/report.txt -H 'Authorization: Bearer not.a.token'
refused 401 "GET with a malformed token"
expect_header "malformed token: invalid_token" WWW-Authenticate 'error="invalid_token"'

step "a user's token reads: the file, and the CGI sees AUTH_USER / AUTH_ROLE"
http GET /app/static/report.txt -H "Authorization: Bearer $ALICE"
expect_status 200 "alice GETs the protected file"
expect_eq "file content" "the secret report" "$BODY"
expect_header "file served as text" Content-Type '^text/plain'
if header WWW-Authenticate >/dev/null; then
  fail "a grant leaks no authorizer header" "WWW-Authenticate: $(header WWW-Authenticate)"
else
  pass "a grant leaks no authorizer header"
fi
http HEAD /app/static/report.txt -H "Authorization: Bearer $ALICE"
expect_status 200 "alice HEADs the protected file"

http GET /app/cgi-bin/whoami -H "Authorization: Bearer $ALICE"
expect_status 200 "alice GETs the CGI"
expect_match "CGI sees AUTH_USER=alice" $'(^|\n)AUTH_USER=alice(\n|$)' "$BODY"
expect_match "CGI sees AUTH_ROLE=user" $'(^|\n)AUTH_ROLE=user(\n|$)' "$BODY"
expect_match "CGI sees REMOTE_USER=alice" $'(^|\n)REMOTE_USER=alice(\n|$)' "$BODY"

step "create (POST) needs the role's capability"
http POST /app/cgi-bin/whoami -H "Authorization: Bearer $ALICE" -d 'note=hi'
refused 403 "alice (user) POSTs to the CGI"
expect_header "403 names insufficient_scope" WWW-Authenticate 'error="insufficient_scope"'

http POST /app/cgi-bin/whoami -H "Authorization: Bearer $WENDY" -d 'note=hi'
expect_status 200 "wendy (writer) POSTs to the CGI"
expect_match "CGI sees AUTH_USER=wendy" $'(^|\n)AUTH_USER=wendy(\n|$)' "$BODY"
expect_match "CGI sees AUTH_ROLE=writer" $'(^|\n)AUTH_ROLE=writer(\n|$)' "$BODY"
expect_match "CGI sees the method" $'(^|\n)METHOD=POST(\n|$)' "$BODY"
expect_match "the request body reaches the CGI intact" $'(^|\n)BODY=note=hi(\n|$)' "$BODY"

http DELETE /app/cgi-bin/whoami -H "Authorization: Bearer $WENDY"
refused 403 "wendy (writer) cannot DELETE"

step "public rules need no token"
http GET /app/static/public/hello.txt
expect_status 200 "GET a public file without a token"
expect_eq "public file content" "hello, anyone" "$BODY"
http GET /app/cgi-bin/open
expect_status 200 "GET the public CGI without a token"
expect_match "no AUTH_USER on a public grant" $'(^|\n)AUTH_USER=<unset>(\n|$)' "$BODY"
http GET /app/cgi-bin/open -H "Authorization: Bearer $ALICE"
expect_status 200 "GET the public CGI with a token"
http GET /app/static/report.txt -H 'Auth-User: alice' -H 'Variable-AUTH_USER: alice'
refused 401 "request headers cannot pose as the authorizer's variables"

step "path confusion (t_sec_path_confusion.sh): no spelling of a protected path borrows the public rule"
for uri in /app/static/public/../report.txt /app/static/public/%2e%2e/report.txt /app/static//report.txt \
           '/app/static/public/..;/report.txt' /app/static/public%2f..%2freport.txt /app/static/%252e/report.txt \
           /app/static/report.txt%00 /app/static/%ff/../report.txt; do
  http GET "$uri" --path-as-is
  expect_match "mod_authnz_fcgi: $uri is not served anonymously" '^(400|401|403|404)$' "$STATUS"
  expect_ne "mod_authnz_fcgi: $uri leaks nothing" "$(cat "$APP_DIR/static/report.txt")" "$BODY"
done

step "the auth cookie instead of the header"
http GET /app/cgi-bin/whoami --cookie "auth=$ALICE"
expect_status 200 "alice GETs the CGI with the auth cookie"
expect_match "cookie: AUTH_USER=alice" $'(^|\n)AUTH_USER=alice(\n|$)' "$BODY"
http POST /app/cgi-bin/whoami --cookie "auth=$WENDY" -d 'c=1'
expect_status 200 "wendy POSTs with the auth cookie"
http GET /app/static/report.txt --cookie "other=1; auth=$ALICE; more=2"
expect_status 200 "the auth cookie among others"

step "a deleted user's token stops working at once"
authctl delete alice >/dev/null
expect_eq "authctl delete alice" 0 "$?"
http GET /app/static/report.txt -H "Authorization: Bearer $ALICE"
refused 401 "deleted user's token on the file"
http GET /app/cgi-bin/whoami --cookie "auth=$ALICE"
refused 401 "deleted user's cookie on the CGI"
http GET /app/cgi-bin/whoami -H "Authorization: Bearer $WENDY"
expect_status 200 "another user is unaffected"

step "authd's own routes still answer through mod_proxy_fcgi"
http GET /records -H "Authorization: Bearer $WENDY"
expect_status 200 "GET /records with wendy's token"

step "authorizer unreachable: refused with 500, never granted"
stop_group "$AUTHZ_PID" "authd (authorizer)"; AUTHZ_PID=
http GET /app/static/report.txt -H "Authorization: Bearer $WENDY"
expect_status 500 "authorizer down"
expect_eq "500 body is www/500.html" "$(<"$SOURCE_DIR/www/500.html")" "$BODY"
http GET /app/static/public/hello.txt
expect_status 500 "authorizer down: even a public path is not served"

finish
