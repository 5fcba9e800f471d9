# shellcheck shell=bash disable=SC2034  # FRONTEND_LOGS is read by harness.sh
# test/blackbox/caddy.sh - Caddy as the front end of the black-box stack.
# harness.sh sources this file when TEST_FRONTEND=caddy; stack_start then
# runs Caddy (Debian 12: 2.6) with conf/caddy/Caddyfile (FastCGI to authd's
# unix socket, forward_auth for /app/) instead of lighttpd, with everything
# else unchanged: same BASE_URL, PORT, FCGI_SOCKET, authd_stop/authd_start,
# logs printed on failure. FRONTEND_PID (and LIGHTTPD_PID, for scripts
# written with lighttpd in mind) hold Caddy's pid, also exported as CADDY_PID.
#
# Inputs (environment)
#   CADDY_BIN    the caddy binary         (default: caddy on PATH, else /usr/bin/caddy)
#   CADDY_CONF   the shipped Caddyfile    (default: $SOURCE_DIR/conf/caddy/Caddyfile)
#
# The harness writes $STATE_DIR/caddy/Caddyfile: the shipped file with its
# CHANGE values replaced (site address, www/ directory, socket, the guarded
# application, the access log: caddy-access.log in STATE_DIR), Caddy's own
# log in STATE_DIR (caddy-error.log), a 2 s grace period on stop, and
# one more site: the guarded application of /app/, listening on
# $STATE_DIR/caddy/app.sock, which answers with what it was told
#   app user=[X-Auth-User] role=[X-Auth-Role] method=METHOD uri=URI
# (t_caddy_forward_auth.sh). Caddy keeps its data (XDG_DATA_HOME,
# XDG_CONFIG_HOME) under $STATE_DIR/caddy; its stdout/stderr go to caddy.out.

CADDY_CONF=${CADDY_CONF:-$SOURCE_DIR/conf/caddy/Caddyfile}
CADDY_BIN=${CADDY_BIN:-$(_tool_path caddy /usr/bin/caddy)}
CADDY_PID=
FRONTEND_LOGS=(caddy-error.log caddy-access.log caddy.out)

# _caddy_configure PORT: writes $STATE_DIR/caddy/Caddyfile.
_caddy_configure() {
  local port=$1 dir=$STATE_DIR/caddy
  mkdir -p "$dir"
  {
    sed -e "s|^http://127\\.0\\.0\\.1:8080 {|http://127.0.0.1:$port {|" \
        -e "s|/usr/local/share/authd/www|$SOURCE_DIR/www|g" \
        -e "s|unix//run/authd/authd\\.sock|unix/$FCGI_SOCKET|g" \
        -e "s|reverse_proxy 127\\.0\\.0\\.1:3000 |reverse_proxy unix/$dir/app.sock |" \
        -e "s|^\\(\\s*\\)admin off$|&\\n\\1log {\\n\\1\\toutput file $STATE_DIR/caddy-error.log\\n\\1}\\n\\1grace_period 2s|" \
        -e "s|output file /var/log/caddy/authd-access\\.log |output file $STATE_DIR/caddy-access.log |" \
        "$CADDY_CONF"
    cat <<EOF

# Written by test/blackbox/caddy.sh: the guarded application of /app/.
http:// {
	bind unix/$dir/app.sock
	respond "app user=[{http.request.header.X-Auth-User}] role=[{http.request.header.X-Auth-Role}] method={method} uri={uri}
"
}
EOF
  } >"$dir/Caddyfile"
  # The CHANGE values, matched as a whole so that a change to the shipped
  # file cannot go unnoticed.
  grep -q "^http://127.0.0.1:$port {" "$dir/Caddyfile" &&
    grep -qF "root * $SOURCE_DIR/www" "$dir/Caddyfile" &&
    grep -qF "forward_auth unix/$FCGI_SOCKET {" "$dir/Caddyfile" &&
    ! grep -qF unix//run/authd/authd.sock "$dir/Caddyfile" &&
    grep -qF "reverse_proxy unix/$dir/app.sock " "$dir/Caddyfile" &&
    grep -qF "output file $STATE_DIR/caddy-access.log" "$dir/Caddyfile" ||
    _harness_die "$CADDY_CONF: the address/root/socket/application lines marked CHANGE were not found"
}

# Starts Caddy on $PORT (harness.sh's _frontend_start). Returns 0 when it
# listens, 2 when the port was taken (the caller retries with another), 1 on
# any other failure.
_frontend_start() {
  [[ -x $CADDY_BIN ]] ||
    _harness_die "caddy ($CADDY_BIN) is not installed (scripts/deps.sh test installs what is missing)"
  [[ -f $CADDY_CONF ]] || _harness_die "no Caddyfile at $CADDY_CONF"
  local dir=$STATE_DIR/caddy rc=0
  local -a env=(env "XDG_DATA_HOME=$dir/data" "XDG_CONFIG_HOME=$dir/config")
  _caddy_configure "$PORT"
  if ! "${env[@]}" "$CADDY_BIN" validate --adapter caddyfile --config "$dir/Caddyfile" >>"$STATE_DIR/caddy.out" 2>&1; then
    cat "$STATE_DIR/caddy.out" >&2
    _harness_die "caddy validate rejected the configuration made from $CADDY_CONF"
  fi
  rm -f "$dir/app.sock"
  _frontend_spawn caddy caddy.out caddy-error.log \
    "${env[@]}" "$CADDY_BIN" run --adapter caddyfile --config "$dir/Caddyfile" || rc=$?
  CADDY_PID=$FRONTEND_PID
  export CADDY_PID
  return "$rc"
}
