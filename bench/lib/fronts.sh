# shellcheck shell=bash disable=SC2034  # BASE, ACCESS_LOG, APACHE_REUSE... are read by run.sh
# bench/lib/fronts.sh - the processes bench/run.sh measures: a FastCGI
# program on $SOCKET (the ceiling or authd), one front server at a time
# (lighttpd, nginx or Apache) on a free 127.0.0.1 port, and the Node peers.
# Sourced by run.sh (uses its say/die, $ROOT, $STATE, BENCH_*, and
# scripts/stack_lib.sh). Everything runs as the current user in its own
# process group, with its files under $STATE; run.sh's cleanup stops it.
#
#   start_fcgi PROGRAM LOG THREADS   spawn-fcgi on $SOCKET, AUTHD_WORKERS=THREADS
#   stop_fcgi
#   start_front lighttpd
#   start_front nginx fastcgi KEEP   nginx, FastCGI to $SOCKET, `keepalive KEEP`
#                                    + fastcgi_keep_conn on
#   start_front nginx http KEEP PORT nginx, proxy_pass to 127.0.0.1:PORT,
#                                    HTTP/1.1 with `keepalive KEEP`
#   start_front apache               conf/apache/authd.conf (mod_proxy_fcgi,
#                                    enablereuse=on)
#   stop_front
#   start_peer APP                   bench/peers/APP.js (Node cluster) on a
#                                    free port: PEER_PORT, PEER_PID
#   stop_peer
# start_front sets BASE, FRONT_PID (= its process group), FRONT_NAME and
# ACCESS_LOG.

FCGI_PID=
FRONT_PID=
FRONT_NAME=
PEER_PID=
PEER_PORT=
ACCESS_LOG=

# apache_run_as, nginx_conf_head: shared with the black-box tests' front ends.
# shellcheck source=../../test/blackbox/front_conf.sh
source "$ROOT/test/blackbox/front_conf.sh"

start_fcgi() {
  local bin=$1 log=$2 threads=$3 rc=0
  AUTHD_WORKERS=$threads AUTHD_STATE_DIR=${FCGI_STATE_DIR:-$STATE/db} fcgi_spawn "$SOCKET" "$log" "$bin" || rc=$?
  FCGI_PID=$SPAWNED_PID
  ((rc == 0)) && return 0
  cat "$log" >&2 || true
  die "$(basename "$bin") did not start on $SOCKET"
}

stop_fcgi() {
  stop_group "$FCGI_PID" "FastCGI program"
  FCGI_PID=
  rm -f "$SOCKET"
}

# The shipped Apache configuration, with enablereuse=on added to the API's
# ProxyPassMatch when it does not say it already (main before the keep-alive
# server). APACHE_REUSE tells the report which.
_apache_configure() {
  local dir=$1
  if grep -q '^ *ProxyPassMatch .*enablereuse=on' "$ROOT/conf/apache/authd.conf"; then
    APACHE_REUSE=shipped
    cp "$ROOT/conf/apache/authd.conf" "$dir/authd.conf"
  else
    APACHE_REUSE=added
    sed -e '/^ *ProxyPassMatch .*fcgi:\/\/authd/s/$/ enablereuse=on/' "$ROOT/conf/apache/authd.conf" >"$dir/authd.conf"
    grep -q '^ *ProxyPassMatch .*enablereuse=on$' "$dir/authd.conf" ||
      die "conf/apache/authd.conf: found no ProxyPassMatch to fcgi://authd to add enablereuse=on to"
  fi
}

# nginx's whole configuration for MODE (fastcgi | http), KEEP kept
# connections, listening on PORT; http mode proxies to 127.0.0.1:UPSTREAM.
# The FastCGI parameters are conf/nginx/authd.conf's.
_nginx_configure() {
  local dir=$1 mode=$2 keep=$3 port=$4 upstream=${5:-} upstream_block location
  if [[ $mode == fastcgi ]]; then
    upstream_block="upstream bench_backend { server unix:$SOCKET; keepalive $keep; }"
    location="fastcgi_pass bench_backend;
            fastcgi_keep_conn on;
            fastcgi_param GATEWAY_INTERFACE CGI/1.1;
            fastcgi_param SERVER_SOFTWARE   nginx;
            fastcgi_param SERVER_PROTOCOL   \$server_protocol;
            fastcgi_param SERVER_NAME       \$server_name;
            fastcgi_param SERVER_ADDR       \$server_addr;
            fastcgi_param SERVER_PORT       \$server_port;
            fastcgi_param REQUEST_METHOD    \$request_method;
            fastcgi_param REQUEST_SCHEME    \$scheme;
            fastcgi_param HTTPS             \$https if_not_empty;
            fastcgi_param SCRIPT_NAME       \$uri;
            fastcgi_param REQUEST_URI       \$request_uri;
            fastcgi_param DOCUMENT_URI      \$document_uri;
            fastcgi_param DOCUMENT_ROOT     \$document_root;
            fastcgi_param QUERY_STRING      \$query_string;
            fastcgi_param CONTENT_TYPE      \$content_type;
            fastcgi_param CONTENT_LENGTH    \$content_length;
            fastcgi_param REMOTE_ADDR       \$remote_addr;
            fastcgi_param REMOTE_PORT       \$remote_port;
            fastcgi_intercept_errors off;"
  else
    upstream_block="upstream bench_backend { server 127.0.0.1:$upstream; keepalive $keep; }"
    location="proxy_pass http://bench_backend;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host \$host;"
  fi
  {
    echo "# Written by bench/lib/fronts.sh ($mode, keepalive $keep)."
    nginx_conf_head "$dir" "$dir/nginx.pid" "$dir/error.log" warn 4096 "$dir/access.log" "$BENCH_NGINX_WORKERS"
    cat <<EOF
    keepalive_timeout 60s;
    keepalive_requests 100000;
    $upstream_block
    server {
        listen 127.0.0.1:$port;
        server_name _;
        server_tokens off;
        root $ROOT/www;
        location ~ ^/(signup|signin|records|token|introspect|authorize)(/|\$) {
            $location
        }
    }
}
EOF
  } >"$dir/nginx.conf"
}

# start_front KIND [ARGS]: see the top of this file.
start_front() {
  local kind=$1 attempt rc dir
  shift
  for ((attempt = 0; attempt < 10; attempt++)); do
    PORT=$(pick_port) || die "found no free port"
    rc=0
    case $kind in
      lighttpd)
        dir=$(mktemp -d "$STATE/lighttpd.XXXX")
        ACCESS_LOG=$dir/lighttpd-access.log
        lighttpd_spawn "$ROOT/conf/lighttpd.conf" "$PORT" "$ROOT/www" "$dir" "$SOCKET" || rc=$?
        FRONT_PID=$SPAWNED_PID
        FRONT_NAME=lighttpd
        ;;
      nginx)
        dir=$(mktemp -d "$STATE/nginx-$1-$2.XXXX")
        ACCESS_LOG=$dir/access.log
        _nginx_configure "$dir" "$1" "$2" "$PORT" "${3:-}"
        nginx -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" -t -q >>"$dir/nginx.out" 2>&1 ||
          { cat "$dir/nginx.out" >&2; die "nginx -t rejected $dir/nginx.conf"; }
        setsid nginx -p "$dir/" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' \
          </dev/null >>"$dir/nginx.out" 2>&1 &
        FRONT_PID=$!
        FRONT_NAME=nginx
        await_listener "$FRONT_PID" "$PORT" 10 "$dir/error.log" "$dir/nginx.out" || rc=$?
        ;;
      apache)
        dir=$(mktemp -d "$STATE/apache.XXXX")
        ACCESS_LOG=$dir/apache-access.log
        _apache_configure "$dir"
        local -a prefix=()
        local run_as
        run_as=$(apache_run_as) || die "running as root, but neither www-data nor nobody exists to run Apache as"
        [[ -z $run_as ]] || mapfile -t prefix <<<"$run_as"
        : >"$dir/apache-error.log"
        HTTPD_PORT=$PORT HTTPD_WWW=$ROOT/www HTTPD_RUN_DIR=$dir HTTPD_FCGI_SOCKET=$SOCKET \
        HTTPD_MODULES=$BENCH_APACHE_MODULES HTTPD_CONF_DIR=$ROOT/conf/apache \
          setsid "${prefix[@]}" "$APACHE_BIN" -f "$dir/authd.conf" -d "$dir" -DFOREGROUND \
          </dev/null >>"$dir/apache.out" 2>&1 &
        FRONT_PID=$!
        FRONT_NAME=apache
        await_listener "$FRONT_PID" "$PORT" 10 "$dir/apache-error.log" "$dir/apache.out" || rc=$?
        ;;
      *) die "start_front: unknown front '$kind'" ;;
    esac
    ((rc == 0)) && { BASE=http://127.0.0.1:$PORT; return 0; }
    stop_group "$FRONT_PID" "$kind"
    FRONT_PID=
    ((rc == 2)) || break
  done
  cat "$dir"/*.log "$dir"/*.out >&2 2>/dev/null || true
  die "$kind did not start"
}

stop_front() {
  stop_group "$FRONT_PID" "${FRONT_NAME:-front server}"
  FRONT_PID=
  FRONT_NAME=
  ACCESS_LOG=
}

# start_peer APP: bench/peers/APP.js on a free port, with the records authd
# answers ($GUARDED_BODY) and $PEER_SECRET; waits until it answers 401.
start_peer() {
  local app=$1 attempt
  for ((attempt = 0; attempt < 5; attempt++)); do
    PEER_PORT=$(pick_port) || die "found no free port"
    PEER_PORT=$PEER_PORT PEER_SECRET=$PEER_SECRET PEER_BODY=$GUARDED_BODY \
    PEER_WORKERS=$BENCH_PEER_WORKERS PEER_USERS=$BENCH_PEER_USERS \
      setsid node "$ROOT/bench/peers/$app.js" </dev/null >>"$STATE/$app.log" 2>&1 &
    PEER_PID=$!
    if wait_for_http "http://127.0.0.1:$PEER_PORT/records" 401 15 "$PEER_PID"; then
      return 0
    fi
    stop_group "$PEER_PID" "$app"
    PEER_PID=
    grep -q EADDRINUSE "$STATE/$app.log" || break
  done
  cat "$STATE/$app.log" >&2 || true
  die "$app did not start"
}

stop_peer() {
  stop_group "$PEER_PID" "Node peer"
  PEER_PID=
}
