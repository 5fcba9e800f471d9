#!/usr/bin/env bash
# A real nginx (Debian's package) with auth_request in front of a static
# directory and a proxied app, asking authd's GET /auth/check:
#   - "http":    conf/nginx/authd-forward-auth.conf as shipped, its CHANGE
#                values replaced (ports, directory, app), checking over HTTP
#                through the harness's front end (lighttpd, Apache or nginx);
#   - "fastcgi": the same file with the check location switched to the
#                documented fastcgi_pass variant, straight to authd's socket;
#   - a browser (Accept: text/html) without credentials is sent to the
#     sign-in portal with rd=<its URI>, and back once signed in.
# The proxied app is a second nginx server that echoes the X-Auth-User /
# X-Auth-Role it receives. nginx runs from a private prefix on free loopback
# ports (nginx -p PREFIX -c CONF -g 'daemon off;'), with its own pid and logs.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

need_tools nginx
SHIPPED=$SOURCE_DIR/conf/nginx/authd-forward-auth.conf

export AUTHD_AUTHORIZE_RULE='/ * method; /app/public/ * public; /files/admin/ * delete'
stack_start

GUARD_PID=
stop_at_exit GUARD_PID nginx
make_temp_dir NGX nginx
extra_log "$NGX/error.log" "nginx error.log (forward auth)"

mkdir -p "$NGX/tmp" "$NGX/protected/admin"
printf 'admins only\n' >"$NGX/protected/admin/keys.txt"
printf 'quarterly report\n' >"$NGX/protected/report.txt"
chmod -R a+rX "$NGX"

# The documented FastCGI variant, taken from the shipped file's comment.
FCGI_LINES=$(sed -n '/^#     fastcgi_pass unix:/,/^#     fastcgi_param HTTP_X_ORIGINAL_URI/p' "$SHIPPED" |
             sed -e 's/^#     /        /' -e "s|unix:/run/authd/authd.sock|unix:$FCGI_SOCKET|")
[[ $FCGI_LINES == *fastcgi_pass* ]] || _harness_die "no fastcgi variant found in $SHIPPED"

# write_configs NGINX_PORT FCGI_PORT APP_PORT
write_configs() {
  local port=$1 fport=$2 aport=$3
  sed -e "s|127\.0\.0\.1:8081;|127.0.0.1:$port;|" \
      -e "s|127\.0\.0\.1:8080|127.0.0.1:$PORT|g" \
      -e "s|/var/www/protected/|$NGX/protected/|" \
      -e "s|127\.0\.0\.1:3000|127.0.0.1:$aport|" "$SHIPPED" >"$NGX/forward-auth-http.conf"
  # Same file, the check location's proxy_* lines replaced by the variant.
  FCGI_LINES=$FCGI_LINES awk '
    /location = \/_authd\/check \{/ { inblock = 1; print; next }
    inblock && /^[ \t]*proxy_/      { next }
    inblock && /^[ \t]*}/           { print ENVIRON["FCGI_LINES"]; inblock = 0 }
    { print }' "$NGX/forward-auth-http.conf" |
    sed -e "s|listen 127\.0\.0\.1:$port;|listen 127.0.0.1:$fport;|" >"$NGX/forward-auth-fastcgi.conf"
  {
  nginx_conf_head "$NGX" "$NGX/nginx.pid" "$NGX/error.log" info 128 "$NGX/access.log"
  cat <<EOF
    types { text/plain txt; }
    default_type application/octet-stream;

    # The protected app: echoes what nginx told it about the caller.
    server {
        listen 127.0.0.1:$aport;
        location / {
            default_type text/plain;
            return 200 "app user=[\$http_x_auth_user] role=[\$http_x_auth_role] method=\$request_method uri=\$request_uri\n";
        }
    }

    include $NGX/forward-auth-http.conf;
    include $NGX/forward-auth-fastcgi.conf;
}
EOF
  } >"$NGX/nginx.conf"
}

nginx_start() {
  local attempt port fport aport rc
  for ((attempt = 1; attempt <= 5; attempt++)); do
    port=$(pick_port) && fport=$(pick_port) && aport=$(pick_port) || _harness_die "no free port"
    [[ $port != "$fport" && $port != "$aport" && $fport != "$aport" ]] || continue
    write_configs "$port" "$fport" "$aport"
    : >"$NGX/error.log"
    if ! nginx -t -q -p "$NGX/" -c "$NGX/nginx.conf" -e "$NGX/error.log" 2>"$NGX/test.out"; then
      cat "$NGX/test.out" "$NGX/error.log" >&2
      _harness_die "nginx -t rejected the generated configuration"
    fi
    setsid nginx -p "$NGX/" -c "$NGX/nginx.conf" -e "$NGX/error.log" -g 'daemon off;' \
      </dev/null >>"$NGX/nginx.out" 2>&1 &
    GUARD_PID=$!
    rc=0
    await_listener "$GUARD_PID" "$port" 5 "$NGX/error.log" "$NGX/nginx.out" || rc=$?
    if ((rc == 0)) && wait_for_port "$fport" "$GUARD_PID" 5; then
      NGINX_HTTP=http://127.0.0.1:$port
      NGINX_FCGI=http://127.0.0.1:$fport
      echo "nginx up: $NGINX_HTTP (check over HTTP), $NGINX_FCGI (check over FastCGI), app on $aport"
      return 0
    fi
    stop_group "$GUARD_PID" nginx
    GUARD_PID=
    ((rc == 2)) && continue
    cat "$NGX/nginx.out" "$NGX/error.log" >&2
    _harness_die "nginx did not start"
  done
  _harness_die "nginx found no free ports"
}
nginx_start

step "users, signed in through nginx (proxied to authd)"
role_users --via "$NGINX_HTTP" --note " through nginx" user writer admin
expect_header "signin through nginx sets the auth cookie" Set-Cookie '^auth='

step "a browser without a cookie: to the sign-in portal and back"
BROWSER_ACCEPT='Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
for B in "$NGINX_HTTP" "$NGINX_FCGI"; do
  http GET "$B/files/report.txt?x=1&y=a+b" -H "$BROWSER_ACCEPT"
  expect_status 302 "a page load without credentials ($B) goes to the portal"
  expect_eq "with the original URI, percent-encoded, as rd ($B)" \
    '/login?rd=%2Ffiles%2Freport.txt%3Fx%3D1%26y%3Da%2Bb' "$(header Location)"
  http POST "$B/app/items" -H "$BROWSER_ACCEPT" -d 'x=1'
  expect_status 302 "a form post without credentials ($B) goes to the portal"
done
JAR=$NGX/jar
http GET "$NGINX_HTTP/login?rd=%2Ffiles%2Freport.txt%3Fx%3D1" -H "$BROWSER_ACCEPT"
expect_status 200 "the portal is served through nginx"
expect_header "the portal keeps its Content-Security-Policy" Content-Security-Policy "script-src 'self'"
http GET "$NGINX_HTTP/assets/login.js"
expect_status 200 "the portal's script is served through nginx"
http POST "$NGINX_HTTP/signin" -u writer-1:pw-writer -c "$JAR"
expect_status 200 "sign in at the portal through nginx"
http GET "$NGINX_HTTP/auth/return?rd=%2Ffiles%2Freport.txt%3Fx%3D1" -b "$JAR"
expect_status 303 "the portal's way back"
expect_eq "back to the original URI" '/files/report.txt?x=1' "$(header Location)"
http GET "$NGINX_HTTP/files/report.txt?x=1" -b "$JAR" -H "$BROWSER_ACCEPT"
expect_eq "the file, with the cookie the portal set" "200 quarterly report" "$STATUS $BODY"

for variant in http fastcgi; do
  if [[ $variant == http ]]; then B=$NGINX_HTTP; else B=$NGINX_FCGI; fi
  step "[$variant] static directory"
  http GET "$B/files/report.txt"
  expect_front_refusal "[$variant] no token" 401 '^Bearer realm="authd"$'
  http GET "$B/files/report.txt" -H 'Authorization: Bearer not.a.token'
  expect_front_refusal "[$variant] a bad token" 401 'error="invalid_token"'
  http GET "$B/files/report.txt" -H "$(role_bearer user)"
  expect_status 200 "[$variant] GET the file as user"
  expect_eq "[$variant] file content" "quarterly report" "$BODY"
  http GET "$B/files/report.txt" -H "Cookie: auth=${ROLE_TOKEN[user]}"
  expect_status 200 "[$variant] GET the file with the auth cookie"
  http DELETE "$B/files/report.txt" -H "$(role_bearer writer)"
  expect_front_refusal "[$variant] DELETE a file as writer" 403 'error="insufficient_scope"'
  http GET "$B/files/admin/keys.txt" -H "$(role_bearer user)"
  expect_front_refusal "[$variant] /files/admin/ needs delete: user" 403 'error="insufficient_scope"'
  http GET "$B/files/admin/keys.txt" -H "$(role_bearer admin)"
  expect_eq "[$variant] /files/admin/ as admin" "200 admins only" "$STATUS $BODY"
  # nginx merges repeated slashes (merge_slashes on) before it serves the
  # file; $request_uri keeps them: the rule must still apply.
  http GET "$B/files//admin/keys.txt" --path-as-is -H "$(role_bearer user)"
  expect_status 403 "[$variant] /files//admin/keys.txt as user (repeated slashes)"
  http GET "$B/files/report.txt" -H 'X-Original-URI: /app/public/x' -H 'X-Original-Method: GET'
  expect_front_refusal "[$variant] client X-Original-* headers are ignored" 401 '^Bearer'

  step "[$variant] proxied app: identity forwarded"
  http GET "$B/app/items?page=2" -H "$(role_bearer user)"
  expect_status 200 "[$variant] GET the app as user"
  expect_eq "[$variant] the app got X-Auth-User / X-Auth-Role" \
    "app user=[user-1] role=[user] method=GET uri=/app/items?page=2" "$BODY"
  http POST "$B/app/items" -H "$(role_bearer user)" -d '{"x":1}'
  expect_front_refusal "[$variant] POST as user" 403 'error="insufficient_scope"'
  http POST "$B/app/items" -H "$(role_bearer writer)" -d '{"x":1}'
  expect_status 200 "[$variant] POST as writer"
  expect_eq "[$variant] POST reached the app as writer" \
    "app user=[writer-1] role=[writer] method=POST uri=/app/items" "$BODY"
  http DELETE "$B/app/items/1" -H "$(role_bearer writer)"
  expect_front_refusal "[$variant] DELETE as writer" 403 'error="insufficient_scope"'
  http DELETE "$B/app/items/1" -H "$(role_bearer admin)"
  expect_status 200 "[$variant] DELETE as admin"
  expect_match "[$variant] DELETE reached the app as admin" 'user=\[admin-1\] role=\[admin\]' "$BODY"
  http GET "$B/app/items" -H "$(role_bearer user)" -H 'X-Auth-User: admin-1' -H 'X-Auth-Role: admin'
  expect_match "[$variant] a forged X-Auth-User is replaced" 'user=\[user-1\] role=\[user\]' "$BODY"
  http GET "$B/app/public/info" -H 'X-Auth-User: admin-1' -H 'X-Auth-Role: admin'
  expect_status 200 "[$variant] a public rule needs no token"
  expect_match "[$variant] no identity on a public path, forged one dropped" 'user=\[\] role=\[\]' "$BODY"
  http GET "$B/app/public/../items" --path-as-is
  expect_match "[$variant] a dot segment cannot borrow the public rule" '^(400|401)$' "$STATUS"
  expect_header "[$variant] the refusal is JSON" Content-Type '^application/json'
  # Path confusion through auth_request (t_sec_path_confusion.sh has the whole list).
  for uri in /files/admin /files//admin/x /files/./admin/x '/files/admin;x/x' /files/public%2f..%2fadmin/x \
             /files/%252e%252e/admin/x /files/admin%00/x; do
    http GET "$B$uri" --path-as-is
    expect_match "[$variant] $uri is not served to an anonymous client" '^(400|401|403|404)$' "$STATUS"
  done
done

step "authctl changes take effect on the next request"
authctl role user-1 admin >/dev/null || fail "authctl role user-1 admin"
http DELETE "$NGINX_HTTP/app/items/2" -H "$(role_bearer user)"
expect_status 200 "promoted: DELETE with the same token"
expect_match "the app sees the new role" 'role=\[admin\]' "$BODY"
authctl delete user-1 >/dev/null || fail "authctl delete user-1"
for B in "$NGINX_HTTP" "$NGINX_FCGI"; do
  http GET "$B/files/report.txt" -H "$(role_bearer user)"
  expect_front_refusal "deleted user ($B)" 401 'error="invalid_token"'
done

step "authd down: refused with 503 JSON, never served"
authd_stop
for B in "$NGINX_HTTP" "$NGINX_FCGI"; do
  http GET "$B/files/report.txt" -H "$(role_bearer admin)"
  expect_status 503 "authd down ($B)"
  expect_json "authd down ($B): JSON" .error "Service Unavailable"
  expect_header "authd down ($B): JSON type" Content-Type '^application/json'
done

finish
