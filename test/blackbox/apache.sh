# shellcheck shell=bash disable=SC2034  # FRONTEND_LOGS is read by harness.sh
# test/blackbox/apache.sh - Apache 2.4 as the front end of the black-box stack.
# harness.sh sources this file when TEST_FRONTEND=apache; stack_start then
# runs Apache from conf/apache/authd.conf (mod_proxy_fcgi to authd's unix
# socket) instead of lighttpd, with everything else unchanged: same BASE_URL,
# PORT, FCGI_SOCKET, authd_stop/authd_start, logs printed on failure.
# FRONTEND_PID (and LIGHTTPD_PID, for scripts written with lighttpd in mind)
# hold Apache's parent pid, also exported as APACHE_PID.
#
# Inputs (environment)
#   APACHE_BIN      the httpd binary            (default: apache2 on PATH, else /usr/sbin/apache2)
#   APACHE_CONF     the config template         (default: $SOURCE_DIR/conf/apache/authd.conf)
#   HTTPD_MODULES   Apache's module directory   (default: /usr/lib/apache2/modules)
#   HTTPD_DEFINES   names passed as -D NAME, e.g. AUTHD_AUTHORIZER to include
#                   conf/apache/authorizer.conf (then HTTPD_AUTHZ_ADDR and
#                   HTTPD_APP_DIR must be exported too, see that file)
#
# For the tests of conf/apache/authorizer.conf (authd as mod_authnz_fcgi's
# authorizer, over TCP), before stack_start:
#   apache_authorizer_app SECRET
#                   APP_DIR (a temporary directory, removed at exit) with
#                   static/report.txt, static/public/hello.txt and cgi-bin/
#                   for the test's CGI programs; AUTHZ_PORT, a free port for
#                   authd_tcp_start; exports HTTPD_DEFINES=AUTHD_AUTHORIZER,
#                   HTTPD_APP_DIR, HTTPD_AUTHZ_ADDR and
#                   HTTPD_AUTHD_FRONT_SECRET=SECRET (the proof Apache sends).
#
# Apache writes apache-error.log, apache-access.log, apache.pid and its
# mod_cgid socket into $STATE_DIR; its stdout/stderr go to apache.out.
#
# Running as root: Apache would switch its worker processes to an
# unprivileged `User`, which cannot reach authd's socket (mode 0600 in the
# 0700 state directory, both root's). So the harness starts Apache as
# www-data (or nobody) holding only CAP_DAC_OVERRIDE (setpriv, ambient
# capability): it then never switches users and can open the socket and
# write its logs. As any other user Apache simply runs as that user.

APACHE_CONF=${APACHE_CONF:-$SOURCE_DIR/conf/apache/authd.conf}
HTTPD_MODULES=${HTTPD_MODULES:-/usr/lib/apache2/modules}
APACHE_BIN=${APACHE_BIN:-$(_tool_path apache2 /usr/sbin/apache2)}
APACHE_PID=
FRONTEND_LOGS=(apache-error.log apache-access.log apache.out)

# Starts Apache on $PORT (harness.sh's _frontend_start). Returns 0 when it
# listens, 2 when the port was taken (the caller retries with another), 1 on
# any other failure.
apache_authorizer_app() {
  make_temp_dir APP_DIR app
  chmod 0755 "$APP_DIR"
  mkdir -p "$APP_DIR/static/public" "$APP_DIR/cgi-bin"
  printf 'the secret report\n' >"$APP_DIR/static/report.txt"
  printf 'hello, anyone\n' >"$APP_DIR/static/public/hello.txt"
  AUTHZ_PORT=$(pick_port) || _harness_die "found no free port"
  export HTTPD_DEFINES=AUTHD_AUTHORIZER HTTPD_APP_DIR=$APP_DIR HTTPD_AUTHZ_ADDR=127.0.0.1:$AUTHZ_PORT
  export HTTPD_AUTHD_FRONT_SECRET=$1
}

_frontend_start() {
  [[ -x $APACHE_BIN ]] ||
    _harness_die "Apache ($APACHE_BIN) is not installed (scripts/deps.sh test installs what is missing)"
  [[ -f $APACHE_CONF ]] || _harness_die "no Apache config at $APACHE_CONF"
  local -a prefix=() defines=(-DFOREGROUND)
  local run_as
  run_as=$(apache_run_as) ||
    _harness_die "running as root, but neither www-data nor nobody exists to run Apache as"
  [[ -z $run_as ]] || mapfile -t prefix <<<"$run_as"
  local name
  for name in ${HTTPD_DEFINES:-}; do defines+=("-D$name"); done

  local rc=0
  HTTPD_PORT=$PORT HTTPD_WWW=$SOURCE_DIR/www HTTPD_RUN_DIR=$STATE_DIR \
  HTTPD_FCGI_SOCKET=$FCGI_SOCKET HTTPD_MODULES=$HTTPD_MODULES \
  HTTPD_CONF_DIR=$(dirname "$APACHE_CONF") \
    _frontend_spawn apache apache.out apache-error.log \
    "${prefix[@]}" "$APACHE_BIN" -f "$APACHE_CONF" -d "$STATE_DIR" "${defines[@]}" || rc=$?
  APACHE_PID=$FRONTEND_PID
  export APACHE_PID
  return "$rc"
}
