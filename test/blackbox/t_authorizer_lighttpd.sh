#!/usr/bin/env bash
# authd as a FastCGI Authorizer for another application behind lighttpd:
# conf/lighttpd.conf + conf/lighttpd-authorizer.conf (the shipped snippet, as
# is) protect /app/, served from APP_DIR: a static directory and a bash CGI
# script that prints the AUTH_USER / AUTH_ROLE lighttpd hands it from authd's
# Variable- headers. Tokens come from /signin through the same lighttpd.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

make_temp_dir APP_TMP authz
APP_DIR=$APP_TMP/app
mkdir -p "$APP_DIR/docs" "$APP_DIR/public" "$APP_DIR/cgi-bin" "$APP_DIR/admin"
printf 'admins only\n' >"$APP_DIR/admin/keys.txt"
printf 'the protected report\n' >"$APP_DIR/docs/report.txt"
printf 'hello, anyone\n' >"$APP_DIR/public/hello.txt"
printf 'not for anonymous eyes\n' >"$APP_DIR/secret.txt"
CGI_LOG=$APP_TMP/cgi-runs.log
: >"$CGI_LOG"
# The CGI program: shows what it was told about the caller, and logs every
# run so that the test can prove a refused request never reached it.
cat >"$APP_DIR/cgi-bin/whoami.cgi" <<EOF
#!/bin/bash
printf '%s %s\n' "\$REQUEST_METHOD" "\${AUTH_USER-<unset>}" >>'$CGI_LOG'
[[ \${CONTENT_LENGTH:-0} -gt 0 ]] && head -c "\$CONTENT_LENGTH" >/dev/null
printf 'Content-Type: text/plain\r\n\r\n'
printf 'AUTH_USER=%s\n' "\${AUTH_USER-<unset>}"
printf 'AUTH_ROLE=%s\n' "\${AUTH_ROLE-<unset>}"
printf 'REQUEST_METHOD=%s\n' "\$REQUEST_METHOD"
EOF
cp "$APP_DIR/cgi-bin/whoami.cgi" "$APP_DIR/public/whoami.cgi"
chmod -R a+rX "$APP_TMP"

lighttpd_authorizer_conf >"$APP_TMP/lighttpd.conf"
export LIGHTTPD_CONF=$APP_TMP/lighttpd.conf APP_DIR
export AUTHD_AUTHORIZE_RULE='/ * method; /app/public/ * public; /app/docs/ GET authenticated; /app/admin/ * delete'

stack_start

step "users and tokens (signin through the same lighttpd)"
role_users user writer editor admin
cgi_runs() { wc -l <"$CGI_LOG" | tr -d ' '; }

step "no token: 401 JSON from authd, nothing served"
for path in /app/docs/report.txt /app/cgi-bin/whoami.cgi /app/secret.txt /app/no-such-file; do
  http GET "$path"
  expect_status 401 "GET $path without a token"
  expect_json "401 body for $path" .error "Access Denied"
  expect_header "401 challenge for $path" WWW-Authenticate '^Bearer realm="authd"$'
  expect_header "401 is JSON for $path" Content-Type '^application/json'
done
expect_eq "the CGI never ran for anonymous requests" 0 "$(cgi_runs)"
http GET /app/docs/report.txt -H 'Authorization: Bearer not.a.token'
expect_status 401 "a garbage token"
expect_header "garbage token: invalid_token" WWW-Authenticate 'error="invalid_token"'

step "granted: the static file and the CGI with AUTH_USER / AUTH_ROLE"
http GET /app/secret.txt -H "$(role_bearer user)"
expect_status 200 "GET a static file as user"
expect_eq "static file content" "not for anonymous eyes" "$BODY"
http GET /app/docs/report.txt -H "$(role_bearer user)"
expect_status 200 "GET under an 'authenticated' rule as user"
expect_eq "docs content" "the protected report" "$BODY"
http HEAD /app/secret.txt -H "$(role_bearer user)"
expect_status 200 "HEAD (read) as user"
http GET /app/cgi-bin/whoami.cgi -H "$(role_bearer user)"
expect_status 200 "GET the CGI as user"
expect_match "CGI sees AUTH_USER" $'(^|\n)AUTH_USER=user-1(\n|$)' "$BODY"
expect_match "CGI sees AUTH_ROLE" $'(^|\n)AUTH_ROLE=user(\n|$)' "$BODY"
expect_match "CGI sees the method" $'(^|\n)REQUEST_METHOD=GET(\n|$)' "$BODY"
http GET /app/no-such-file -H "$(role_bearer user)"
expect_status 404 "a granted request for a missing file is lighttpd's 404"

step "capabilities by method: POST create, PUT update, DELETE delete"
runs=$(cgi_runs)
http POST /app/cgi-bin/whoami.cgi -H "$(role_bearer user)" -d 'x=1'
expect_status 403 "POST as user"
expect_json "403 body" .error "Access Denied"
expect_header "403 challenge" WWW-Authenticate 'error="insufficient_scope"'
expect_eq "a refused POST never reached the CGI" "$runs" "$(cgi_runs)"
http POST /app/cgi-bin/whoami.cgi -H "$(role_bearer writer)" -d 'x=1'
expect_status 200 "POST as writer"
expect_match "POST reached the CGI as writer" $'AUTH_USER=writer-1\nAUTH_ROLE=writer\nREQUEST_METHOD=POST' "$BODY"
http PUT /app/cgi-bin/whoami.cgi -H "$(role_bearer writer)" -d 'x=2'
expect_status 403 "PUT as writer"
http PUT /app/cgi-bin/whoami.cgi -H "$(role_bearer editor)" -d 'x=2'
expect_status 200 "PUT as editor"
expect_match "PUT reached the CGI as editor" 'AUTH_ROLE=editor' "$BODY"
http DELETE /app/cgi-bin/whoami.cgi -H "$(role_bearer editor)"
expect_status 403 "DELETE as editor"
http DELETE /app/cgi-bin/whoami.cgi -H "$(role_bearer admin)"
expect_status 200 "DELETE as admin"
expect_match "DELETE reached the CGI as admin" 'AUTH_USER=admin-1' "$BODY"

step "a public rule needs no token"
http GET /app/public/hello.txt
expect_status 200 "public static file without a token"
expect_eq "public content" "hello, anyone" "$BODY"
http POST /app/public/whoami.cgi -d 'x=1'
expect_status 200 "public CGI (any method) without a token"
expect_match "no AUTH_USER on a public path" 'AUTH_USER=<unset>' "$BODY"
http GET /app/public/whoami.cgi -H 'Variable-AUTH_USER: mallory' -H 'AUTH_USER: mallory'
expect_match "a client cannot forge AUTH_USER" 'AUTH_USER=<unset>' "$BODY"
http GET /app/public/../secret.txt --path-as-is
expect_status 401 "a dot segment cannot borrow the public rule (decided on /app/secret.txt)"
http GET /app/public%2f..%2fsecret.txt
expect_status 400 "an encoded dot segment cannot borrow it either"

step "a rule stricter than the default: /app/admin/ needs delete"
http GET /app/admin/keys.txt -H "$(role_bearer user)"
expect_status 403 "GET /app/admin/keys.txt as user"
http GET /app/admin/keys.txt -H "$(role_bearer admin)"
expect_status 200 "GET /app/admin/keys.txt as admin"
expect_eq "admin file content" "admins only" "$BODY"
# lighttpd merges repeated slashes before it serves the file: the rule must
# apply to the merged path too.
for path in /app//admin/keys.txt //app/admin/keys.txt /app/admin//keys.txt; do
  http GET "$path" --path-as-is -H "$(role_bearer user)"
  expect_status 403 "GET $path as user (repeated slashes)"
  expect_ne "$path: the admin file is not served to a user" "admins only" "$BODY"
done

step "the auth cookie instead of the header"
http GET /app/cgi-bin/whoami.cgi -H "Cookie: theme=dark; auth=${ROLE_TOKEN[writer]}"
expect_status 200 "GET with the auth cookie"
expect_match "cookie identifies the writer" 'AUTH_USER=writer-1' "$BODY"
http POST /app/cgi-bin/whoami.cgi -H "Cookie: auth=${ROLE_TOKEN[user]}" -d 'x=1'
expect_status 403 "cookie user cannot POST"
http GET /app/secret.txt -H "Cookie: auth=garbage"
expect_status 401 "a bad cookie token"

step "authctl changes take effect on the next request"
authctl role user-1 editor >/dev/null || fail "authctl role user-1 editor"
http PUT /app/cgi-bin/whoami.cgi -H "$(role_bearer user)" -d 'x=3'
expect_status 200 "same token, promoted to editor: PUT"
expect_match "the CGI sees the new role" 'AUTH_ROLE=editor' "$BODY"
authctl role user-1 user >/dev/null || fail "authctl role user-1 user"
http PUT /app/cgi-bin/whoami.cgi -H "$(role_bearer user)" -d 'x=4'
expect_status 403 "demoted back to user: PUT refused"
authctl delete writer-1 >/dev/null || fail "authctl delete writer-1"
http GET /app/secret.txt -H "$(role_bearer writer)"
expect_status 401 "token of a deleted user"
expect_header "deleted user: invalid_token" WWW-Authenticate 'error="invalid_token"'
http GET /app/cgi-bin/whoami.cgi -H "Cookie: auth=${ROLE_TOKEN[writer]}"
expect_status 401 "cookie of a deleted user"

step "authd's own routes still work next to the authorizer"
http GET /records -H "$(role_bearer admin)"
expect_status 200 "GET /records as admin"

finish
