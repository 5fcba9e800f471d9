# shellcheck shell=bash disable=SC2034  # FRONTEND_LOGS is read by harness.sh
# test/blackbox/h2o.sh - H2O as the front end of the black-box stack.
# harness.sh sources this file when TEST_FRONTEND=h2o; stack_start then runs
# H2O (Debian 12: 2.2) with conf/h2o/authd.conf (FastCGI to authd's unix
# socket, kept connections) instead of lighttpd, with everything else
# unchanged: same BASE_URL, PORT, FCGI_SOCKET, authd_stop/authd_start, logs
# printed on failure. FRONTEND_PID (and LIGHTTPD_PID, for scripts written
# with lighttpd in mind) hold H2O's master pid, also exported as H2O_PID.
#
# Inputs (environment)
#   H2O_BIN    the h2o binary            (default: h2o on PATH, else /usr/bin/h2o)
#   H2O_CONF   the shipped server config (default: $SOURCE_DIR/conf/h2o/authd.conf)
#
# The harness writes $STATE_DIR/h2o/h2o.conf: the shipped file with its
# CHANGE values replaced (port, www/ directory, socket) and, before it, the
# pid file, error log and access log in STATE_DIR (h2o-error.log,
# h2o-access.log). H2O runs in the foreground; its stdout/stderr go to
# h2o.out. Running as root, H2O would switch to `nobody`, which cannot reach
# authd's socket (mode 0600 in the 0700 state directory): the generated file
# says `user: root` then.

H2O_CONF=${H2O_CONF:-$SOURCE_DIR/conf/h2o/authd.conf}
H2O_BIN=${H2O_BIN:-$(_tool_path h2o /usr/bin/h2o)}
H2O_PID=
FRONTEND_LOGS=(h2o-error.log h2o-access.log h2o.out)

# _h2o_configure PORT: writes $STATE_DIR/h2o/h2o.conf.
_h2o_configure() {
  local port=$1 dir=$STATE_DIR/h2o
  mkdir -p "$dir"
  {
    echo "# Written by test/blackbox/h2o.sh around $H2O_CONF."
    ((EUID == 0)) && echo "user: root"
    echo "pid-file: $STATE_DIR/h2o.pid"
    echo "error-log: $STATE_DIR/h2o-error.log"
    echo "access-log: $STATE_DIR/h2o-access.log"
    sed -e "s|^\\(  port: \\)8080 |\\1$port |" \
        -e "s|/usr/local/share/authd/www|$SOURCE_DIR/www|g" \
        -e "s|/run/authd/authd\\.sock|$FCGI_SOCKET|g" \
        "$H2O_CONF"
  } >"$dir/h2o.conf"
  # The CHANGE values, matched as a whole so that a change to the shipped
  # file cannot go unnoticed.
  grep -q "^  port: $port " "$dir/h2o.conf" &&
    grep -qF "file.dir: $SOURCE_DIR/www" "$dir/h2o.conf" &&
    grep -qF "port: $FCGI_SOCKET" "$dir/h2o.conf" ||
    _harness_die "$H2O_CONF: the port/www/socket lines marked CHANGE were not found"
}

# Starts H2O on $PORT (harness.sh's _frontend_start). Returns 0 when it
# listens, 2 when the port was taken (the caller retries with another), 1 on
# any other failure.
_frontend_start() {
  [[ -x $H2O_BIN ]] ||
    _harness_die "h2o ($H2O_BIN) is not installed (scripts/deps.sh test installs what is missing)"
  [[ -f $H2O_CONF ]] || _harness_die "no h2o config at $H2O_CONF"
  local dir=$STATE_DIR/h2o rc=0
  _h2o_configure "$PORT"
  if ! "$H2O_BIN" -t -c "$dir/h2o.conf" >>"$STATE_DIR/h2o.out" 2>&1; then
    cat "$STATE_DIR/h2o.out" >&2
    _harness_die "h2o -t rejected the configuration made from $H2O_CONF"
  fi
  _frontend_spawn h2o h2o.out h2o-error.log "$H2O_BIN" -c "$dir/h2o.conf" || rc=$?
  H2O_PID=$FRONTEND_PID
  export H2O_PID
  return "$rc"
}
