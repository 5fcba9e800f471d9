#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Attack: an operator rewrites a public prefix into the protected tree
# (lighttpd `url.rewrite-once += ( "^/pub/(.*)$" => "/app/admin/$1" )`,
# Apache `RewriteRule ^/pub/(.*)$ /app/static/admin/$1 [PT]`), and the
# authorizer judges the path the client sent (/pub/secret.txt, public)
# instead of the path the web server serves (/app/admin/secret.txt, admins
# only): an anonymous GET /pub/secret.txt gets the admin-only file.
# authd must decide on the path after the server's rewrites: lighttpd's
# authorizer passes it as REDIRECT_URI (no SCRIPT_NAME); mod_authnz_fcgi drops
# SCRIPT_NAME and PATH_INFO, so conf/apache/authorizer.conf passes it as
# AUTHD_SERVED_PATH.
#
# Runs the shipped authorizer configurations as they are, plus the operator's
# rewrite: conf/lighttpd-authorizer.conf on lighttpd, conf/apache/authorizer.conf
# (mod_authnz_fcgi, authd over TCP) on Apache. nginx has no FastCGI authorizer
# role; its forward-auth check is t_forward_auth_nginx.sh.
# shellcheck source=harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

make_temp_dir APP_TMP rewrite
chmod 0755 "$APP_TMP"
export AUTHD_AUTHORIZE_RULE='/ * method; /pub/ * public; /app/public/ * public; /app/admin/ * delete; /app/static/public/ * public; /app/static/admin/ * delete'

case ${TEST_FRONTEND:-lighttpd} in
  lighttpd)
    APP_DIR=$APP_TMP/app PREFIX=/app
    mkdir -p "$APP_DIR/admin" "$APP_DIR/public"
    {
      lighttpd_authorizer_conf
      cat <<CONF
# the operator's own rewrites, one into the protected tree, one out of it
url.rewrite-once += ( "^/pub/(.*)\$" => "/app/admin/\$1", "^/app/admin/open/(.*)\$" => "/app/public/\$1" )
CONF
    } >"$APP_TMP/lighttpd.conf"
    export LIGHTTPD_CONF=$APP_TMP/lighttpd.conf APP_DIR
    ;;
  apache)
    APP_DIR=$APP_TMP/app PREFIX=/app/static
    mkdir -p "$APP_DIR/static/admin" "$APP_DIR/static/public" "$APP_DIR/cgi-bin"
    # conf/apache/authd.conf as shipped, mod_rewrite and the operator's rules
    # after it; its includes are found next to the wrapper.
    ln -s "$SOURCE_DIR/conf/apache/authorizer.conf" "$SOURCE_DIR/conf/apache/fcgid.conf" "$APP_TMP/"
    cat >"$APP_TMP/authd.conf" <<'CONF'
Include "${HTTPD_AUTHD_CONF}"
LoadModule rewrite_module ${HTTPD_MODULES}/mod_rewrite.so
RewriteEngine On
RewriteRule "^/pub/(.*)$" "/app/static/admin/$1" [PT]
RewriteRule "^/app/static/admin/open/(.*)$" "/app/static/public/$1" [PT]
CONF
    AUTHZ_PORT=$(pick_port) || _harness_die "found no free port"
    export APACHE_CONF=$APP_TMP/authd.conf HTTPD_AUTHD_CONF=$SOURCE_DIR/conf/apache/authd.conf
    export HTTPD_DEFINES=AUTHD_AUTHORIZER HTTPD_APP_DIR=$APP_DIR HTTPD_AUTHZ_ADDR=127.0.0.1:$AUTHZ_PORT
    HTTPD_AUTHD_FRONT_SECRET=$(openssl rand -hex 32)
    export HTTPD_AUTHD_FRONT_SECRET
    ;;
  *) _harness_die "t_sec_authorizer_rewrite.sh runs on lighttpd and Apache only" ;;
esac
ADMIN_DIR=$APP_DIR${PREFIX#/app}/admin PUBLIC_DIR=$APP_DIR${PREFIX#/app}/public
printf 'admins only\n' >"$ADMIN_DIR/secret.txt"
printf 'hello, anyone\n' >"$PUBLIC_DIR/hello.txt"
chmod -R a+rX "$APP_TMP"

stack_start

if [[ ${TEST_FRONTEND:-lighttpd} == apache ]]; then
  authd_tcp_start "$AUTHZ_PORT" "$HTTPD_AUTHD_FRONT_SECRET"
fi

role_users user admin

step "the protected tree itself ($PREFIX/admin/)"
http GET "$PREFIX/admin/secret.txt"
expect_status 401 "anonymous GET $PREFIX/admin/secret.txt"
http GET "$PREFIX/admin/secret.txt" -H "$(role_bearer admin)"
expect_eq "admin GET $PREFIX/admin/secret.txt" "200 admins only" "$STATUS $BODY"

step "rewritten into the protected tree: judged as the path served"
for uri in /pub/secret.txt '/pub/secret.txt?x=1' /pub//secret.txt; do
  http GET "$uri" --path-as-is
  expect_status 401 "anonymous GET $uri (served from $PREFIX/admin/)"
  expect_ne "anonymous GET $uri: the admin file is not served" "admins only" "$BODY"
  http GET "$uri" --path-as-is -H "$(role_bearer user)"
  expect_status 403 "user GET $uri (needs delete)"
  expect_ne "user GET $uri: the admin file is not served" "admins only" "$BODY"
done
http GET /pub/secret.txt -H "$(role_bearer admin)"
expect_eq "admin GET /pub/secret.txt: the rewrite serves the admin file" "200 admins only" "$STATUS $BODY"
http GET /pub/%2e%2e/secret.txt --path-as-is
expect_match "an encoded dot segment through the rewrite is refused" '^(400|401|403|404)$' "$STATUS"
expect_ne "an encoded dot segment leaks nothing" "admins only" "$BODY"

step "rewritten out of the protected tree: the public file, public"
http GET "$PREFIX/admin/open/hello.txt"
expect_eq "anonymous GET $PREFIX/admin/open/hello.txt (served from $PREFIX/public/)" \
  "200 hello, anyone" "$STATUS $BODY"

finish
