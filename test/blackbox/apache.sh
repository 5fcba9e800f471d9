# shellcheck shell=bash
# test/blackbox/apache.sh - Apache 2.4 as the front end of the black-box stack.
# harness.sh sources this file when AUTHD_FRONTEND=apache; stack_start then
# runs Apache from conf/apache/authd.conf (mod_proxy_fcgi to authd's unix
# socket) instead of lighttpd, with everything else unchanged: same BASE_URL,
# PORT, FCGI_SOCKET, authd_stop/authd_start, logs printed on failure. For
# scripts that look at the front end's pid, LIGHTTPD_PID holds Apache's
# parent pid too (also exported as APACHE_PID and FRONTEND_PID).
#
# Inputs (environment)
#   APACHE_BIN      the httpd binary            (default: apache2 on PATH, else /usr/sbin/apache2)
#   APACHE_CONF     the config template         (default: $SOURCE_DIR/conf/apache/authd.conf)
#   HTTPD_MODULES   Apache's module directory   (default: /usr/lib/apache2/modules)
#   HTTPD_DEFINES   names passed as -D NAME, e.g. AUTHD_AUTHORIZER to include
#                   conf/apache/authorizer.conf (then HTTPD_AUTHZ_ADDR and
#                   HTTPD_APP_DIR must be exported too, see that file)
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
if [[ -z ${APACHE_BIN:-} ]]; then
  APACHE_BIN=$(command -v apache2 2>/dev/null || true)
  [[ -n $APACHE_BIN ]] || APACHE_BIN=/usr/sbin/apache2
fi
APACHE_PID=
FRONTEND_PID=

# The command prefix that runs Apache as an unprivileged user when we are root.
_apache_run_as() {
  ((EUID == 0)) || return 0
  local user
  for user in www-data nobody; do
    if id -u "$user" >/dev/null 2>&1; then
      printf '%s\n' setpriv "--reuid=$user" "--regid=$(id -g "$user")" --clear-groups \
        --inh-caps=+dac_override --ambient-caps=+dac_override --
      return 0
    fi
  done
  return 1
}

# Starts Apache on $PORT. Returns 0 when it listens, 2 when the port was
# taken (the caller retries with another), 1 on any other failure.
_apache_start() {
  [[ -x $APACHE_BIN ]] ||
    _harness_die "Apache ($APACHE_BIN) is not installed (scripts/deps.sh test installs what is missing)"
  [[ -f $APACHE_CONF ]] || _harness_die "no Apache config at $APACHE_CONF"
  local -a prefix=() defines=(-DFOREGROUND)
  local run_as
  run_as=$(_apache_run_as) ||
    _harness_die "running as root, but neither www-data nor nobody exists to run Apache as"
  [[ -z $run_as ]] || mapfile -t prefix <<<"$run_as"
  local name
  for name in ${HTTPD_DEFINES:-}; do defines+=("-D$name"); done

  : >"$STATE_DIR/apache-error.log"
  HTTPD_PORT=$PORT HTTPD_WWW=$SOURCE_DIR/www HTTPD_RUN_DIR=$STATE_DIR \
  HTTPD_FCGI_SOCKET=$FCGI_SOCKET HTTPD_MODULES=$HTTPD_MODULES \
  HTTPD_CONF_DIR=$(dirname "$APACHE_CONF") \
    setsid "${prefix[@]}" "$APACHE_BIN" -f "$APACHE_CONF" -d "$STATE_DIR" "${defines[@]}" \
    </dev/null >>"$STATE_DIR/apache.out" 2>&1 &
  APACHE_PID=$!
  LIGHTTPD_PID=$APACHE_PID
  FRONTEND_PID=$APACHE_PID
  export APACHE_PID LIGHTTPD_PID FRONTEND_PID
  local i
  for ((i = 0; i < 200; i++)); do
    if ! _proc_alive "$APACHE_PID"; then
      wait "$APACHE_PID" 2>/dev/null || true
      APACHE_PID='' LIGHTTPD_PID='' FRONTEND_PID=''
      if grep -qi 'address already in use' "$STATE_DIR/apache-error.log" "$STATE_DIR/apache.out" 2>/dev/null; then
        return 2
      fi
      return 1
    fi
    [[ $(_probe /) != 000 ]] && return 0
    sleep 0.05
  done
  return 1
}
