# shellcheck shell=bash
# test/blackbox/front_conf.sh - pieces of front-server configuration shared by
# the harness's front ends (apache.sh, nginx.sh), the tests that write an nginx
# of their own (t_keepalive.sh, t_forward_auth_nginx.sh) and bench/lib/fronts.sh.
# Plain functions, no state: source it from anywhere.
#
#   apache_run_as   prints, one word a line, the command prefix that runs
#                   Apache unprivileged when we are root: www-data (or nobody)
#                   holding only CAP_DAC_OVERRIDE, so that it never switches
#                   users yet opens the socket and writes its logs in a 0700
#                   state directory. Prints nothing when not root; returns 1
#                   when no such user exists.
#   nginx_conf_head DIR PID_FILE ERROR_LOG LEVEL CONNECTIONS ACCESS_LOG [WORKERS]
#                   prints the start of an nginx.conf up to and with the
#                   http block's temporary paths (under DIR/tmp, made here):
#                   `user root;` when we are root (workers must reach a 0700
#                   state directory and a 0600 socket), WORKERS (default 1)
#                   worker processes, the pid file, the error log at LEVEL,
#                   CONNECTIONS worker connections, ACCESS_LOG (a path or
#                   "off"). The caller writes the rest and the closing brace.
#   lighttpd_authorizer_conf
#                   prints a lighttpd.conf (for LIGHTTPD_CONF) of the shipped
#                   conf/lighttpd.conf and conf/lighttpd-authorizer.conf, as
#                   they are: authd as FastCGI authorizer of /app/, served
#                   from the exported APP_DIR. Needs SOURCE_DIR.

lighttpd_authorizer_conf() {
  printf 'include "%s"\n' "$SOURCE_DIR/conf/lighttpd.conf" "$SOURCE_DIR/conf/lighttpd-authorizer.conf"
}

apache_run_as() {
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

nginx_conf_head() {
  local dir=$1 pid=$2 error_log=$3 level=$4 connections=$5 access_log=$6 workers=${7:-1}
  mkdir -p "$dir/tmp"
  ((EUID == 0)) && echo 'user root;'
  cat <<EOF
worker_processes $workers;
pid $pid;
error_log $error_log $level;
events { worker_connections $connections; }
http {
    access_log $access_log;
    client_body_temp_path $dir/tmp/client_body;
    proxy_temp_path       $dir/tmp/proxy;
    fastcgi_temp_path     $dir/tmp/fastcgi;
    uwsgi_temp_path       $dir/tmp/uwsgi;
    scgi_temp_path        $dir/tmp/scgi;
EOF
}
