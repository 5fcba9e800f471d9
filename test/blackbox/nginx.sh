# shellcheck shell=bash disable=SC2034  # FRONTEND_LOGS is read by harness.sh
# test/blackbox/nginx.sh - nginx as the front end of the black-box stack.
# harness.sh sources this file when TEST_FRONTEND=nginx; stack_start then
# runs nginx with conf/nginx/authd.conf (FastCGI to authd's unix socket)
# instead of lighttpd, with everything else unchanged: same BASE_URL, PORT,
# FCGI_SOCKET, authd_stop/authd_start, logs printed on failure. FRONTEND_PID
# (and LIGHTTPD_PID, for scripts written with lighttpd in mind) hold the nginx
# master's pid, also exported as NGINX_PID.
#
# Inputs (environment)
#   NGINX_BIN    the nginx binary          (default: nginx on PATH, else /usr/sbin/nginx)
#   NGINX_CONF   the shipped server config (default: $SOURCE_DIR/conf/nginx/authd.conf)
#
# conf/nginx/authd.conf is an upstream + server block for nginx's http {}
# context with three values marked CHANGE (port, www/ directory, socket). The
# harness writes $STATE_DIR/nginx/authd.conf, that file with the three values
# replaced, and $STATE_DIR/nginx/nginx.conf, a main configuration around it:
# one worker, pid file, error log and access log in STATE_DIR
# (nginx-error.log, nginx-access.log), temporary files under
# $STATE_DIR/nginx/tmp. nginx runs in the foreground (daemon off) with
# -p $STATE_DIR/nginx/ as its prefix, so nothing outside STATE_DIR is used;
# its stdout/stderr go to nginx.out.
#
# Running as root: nginx would switch its workers to `nobody`, which cannot
# reach authd's socket (mode 0600 in the 0700 state directory, both root's),
# so the generated main configuration says `user root;` then. As any other
# user nginx simply runs as that user.

NGINX_CONF=${NGINX_CONF:-$SOURCE_DIR/conf/nginx/authd.conf}
NGINX_BIN=${NGINX_BIN:-$(_tool_path nginx /usr/sbin/nginx)}
NGINX_PID=
FRONTEND_LOGS=(nginx-error.log nginx-access.log nginx.out)

# _nginx_configure PORT: writes $STATE_DIR/nginx/{authd,nginx}.conf.
_nginx_configure() {
  local port=$1 dir=$STATE_DIR/nginx site=$STATE_DIR/nginx/authd.conf
  mkdir -p "$dir"
  # The three CHANGE values, matched as a whole so that a change to the
  # shipped file cannot go unnoticed (nginx -t below, and the check after).
  sed -e "s|^\\( *listen \\)127\\.0\\.0\\.1:8080;|\\1127.0.0.1:$port;|" \
      -e "s|^\\( *root \\)/usr/local/share/authd/www;|\\1$SOURCE_DIR/www;|" \
      -e "s|^\\( *server \\)unix:/run/authd/authd\\.sock;|\\1unix:$FCGI_SOCKET;|" \
      "$NGINX_CONF" >"$site"
  grep -q "listen 127.0.0.1:$port;" "$site" &&
    grep -qF "root $SOURCE_DIR/www;" "$site" &&
    grep -qF "server unix:$FCGI_SOCKET;" "$site" ||
    _harness_die "$NGINX_CONF: the listen/root/server lines marked CHANGE were not found"
  {
    echo "# Written by test/blackbox/nginx.sh around $NGINX_CONF."
    nginx_conf_head "$dir" "$STATE_DIR/nginx.pid" "$STATE_DIR/nginx-error.log" warn 1024 "$STATE_DIR/nginx-access.log"
    printf '    include %s;\n}\n' "$site"
  } >"$dir/nginx.conf"
}

# Starts nginx on $PORT (harness.sh's _frontend_start). Returns 0 when it
# listens, 2 when the port was taken (the caller retries with another), 1 on
# any other failure.
_frontend_start() {
  [[ -x $NGINX_BIN ]] ||
    _harness_die "nginx ($NGINX_BIN) is not installed (scripts/deps.sh test installs what is missing)"
  [[ -f $NGINX_CONF ]] || _harness_die "no nginx config at $NGINX_CONF"
  local dir=$STATE_DIR/nginx rc=0
  local -a run=("$NGINX_BIN" -p "$dir/" -c "$dir/nginx.conf" -e "$STATE_DIR/nginx-error.log")
  _nginx_configure "$PORT"
  if ! "${run[@]}" -t -q >>"$STATE_DIR/nginx.out" 2>&1; then
    cat "$STATE_DIR/nginx.out" "$STATE_DIR/nginx-error.log" >&2
    _harness_die "nginx -t rejected the configuration made from $NGINX_CONF"
  fi
  _frontend_spawn nginx nginx.out nginx-error.log "${run[@]}" -g 'daemon off;' || rc=$?
  NGINX_PID=$FRONTEND_PID
  export NGINX_PID
  return "$rc"
}
