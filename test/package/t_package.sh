#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The Debian package on this machine, as an administrator would use it:
#   1. dpkg -i of the .deb make deb built (DEB_DIR): files, modes, the system
#      user, the conffile and its statoverride, the state directory 0700;
#   2. the units: systemd-analyze verify, and security --offline (exposure <= 2.0);
#   3. authd started through the socket of authd.socket with
#      systemd-socket-activate (PID 1 need not be systemd), as the unit's
#      User= and with its ExecStart=, NOTIFY_SOCKET and WATCHDOG_USEC set: READY=1
#      comes, then WATCHDOG=1;
#   4. the README's curl session through Apache enabled with `a2enconf authd`,
#      through lighttpd enabled with `lighty-enable-mod authd` and through nginx
#      with `include snippets/authd.conf;` in a server{}, and the pages;
#   5. SIGHUP under wrk load through lighttpd: no failed request; an invalid
#      /etc/authd/authd.conf is refused (logged, the running one serves), a
#      valid one is applied (token_ttl);
#   6. dpkg -r keeps the state and the conffile; dpkg -P removes everything.
#
# The machine's own web-server configuration is never touched: Apache,
# lighttpd and nginx run in a private mount namespace (unshare -m) in which
# /etc/apache2, /etc/lighttpd and /etc/nginx are bind-mounted copies; a2enconf
# and lighty-enable-mod change the copies. Ports are free 127.0.0.1 ports. The test is idempotent
# (a package left by an interrupted run is purged first) and leaves the
# machine as it found it: the package purged, the system user authd removed
# if this test made it. Root only (dpkg); exit 77 (skipped) otherwise.
#
#   bash test/package/t_package.sh      Inputs: DEB_DIR (default $SOURCE_DIR/build-deb)
_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../blackbox/assert.sh
source "$_DIR/../blackbox/assert.sh"
SOURCE_DIR=${SOURCE_DIR:-$(cd "$_DIR/../.." && pwd)}
STACK_SAY=t_package
# shellcheck source=../../scripts/stack_lib.sh
source "$SOURCE_DIR/scripts/stack_lib.sh"
DEB_DIR=${DEB_DIR:-$SOURCE_DIR/build-deb}

die() { printf 't_package: %s\n' "$*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "t_package: needs root (dpkg -i); skipped" >&2; exit 77; }
DEB=$(ls -t "$DEB_DIR"/authd_*.deb 2>/dev/null | head -n 1)
[[ -f $DEB ]] || die "no authd_*.deb in $DEB_DIR (make deb)"

WORK=$(mktemp -d /tmp/authd-package.XXXXXX)
chmod 0755 "$WORK"
USER_EXISTED=$(getent passwd authd >/dev/null && echo yes || echo no)
PIDS=()

stop_all() {
  local pid f
  for pid in "${PIDS[@]}"; do stop_pid "$pid" 2>/dev/null; done
  for f in "$WORK/apache-run/apache2.pid" "$WORK/lighttpd-run/lighttpd.pid" "$WORK/nginx-run/nginx.pid"; do
    [[ -s $f ]] && stop_pid "$(cat "$f")" 2>/dev/null
  done
  PIDS=()
}

cleanup() {
  local rc=$?
  stop_all
  if ((rc != 0 || FAILED > 0)); then
    for f in "$WORK"/*.log; do [[ -f $f ]] && { echo "--- $f"; tail -n 40 "$f"; }; done
  fi
  dpkg -P authd >/dev/null 2>&1
  [[ $USER_EXISTED == no ]] && getent passwd authd >/dev/null && deluser --system --quiet authd >/dev/null 2>&1
  getent group authd >/dev/null && [[ $USER_EXISTED == no ]] && delgroup --system --quiet authd >/dev/null 2>&1
  rm -rf "$WORK" /run/authd
  exit "$rc"
}
trap cleanup EXIT

# A package left by an interrupted run.
dpkg -s authd >/dev/null 2>&1 && dpkg -P authd >/dev/null

step "dpkg -i $(basename "$DEB")"
dpkg -i "$DEB" >"$WORK/dpkg.log" 2>&1
expect_eq "dpkg -i succeeds" 0 "$?"
expect_eq "installed" "install ok installed" "$(dpkg-query -W -f '${Status}' authd 2>/dev/null)"
expect_eq "/usr/sbin/authd" yes "$([[ -x /usr/sbin/authd ]] && echo yes || echo no)"
expect_eq "/usr/bin/authctl" yes "$([[ -x /usr/bin/authctl ]] && echo yes || echo no)"
expect_eq "pages in /usr/share/authd/www" yes "$([[ -f /usr/share/authd/www/login.html ]] && echo yes || echo no)"
expect_eq "changelog" yes "$([[ -f /usr/share/doc/authd/changelog.gz ]] && echo yes || echo no)"
expect_eq "docs" yes "$([[ -f /usr/share/doc/authd/debian-package.md.gz || -f /usr/share/doc/authd/debian-package.md ]] && echo yes || echo no)"
expect_match "authd.conf is a conffile" '/etc/authd/authd.conf' "$(dpkg-query -W -f '${Conffiles}' authd)"
expect_eq "system user authd" yes "$(getent passwd authd >/dev/null && echo yes || echo no)"
expect_match "authd has no login shell" 'nologin|false' "$(getent passwd authd | cut -d: -f7)"
expect_eq "/etc/authd/authd.conf root:authd 0640" "root:authd 640" "$(stat -c '%U:%G %a' /etc/authd/authd.conf)"
expect_eq "/var/lib/authd authd 0700" "authd:authd 700" "$(stat -c '%U:%G %a' /var/lib/authd)"
expect_eq "state_dir" "state_dir = /var/lib/authd" "$(grep '^state_dir' /etc/authd/authd.conf)"
for f in /etc/apache2/conf-available/authd.conf /etc/lighttpd/conf-available/50-authd.conf \
         /etc/nginx/snippets/authd.conf /etc/logrotate.d/authd; do
  expect_eq "$f" yes "$([[ -f $f ]] && echo yes || echo no)"
done
UNITS=$(dirname "$(dpkg -L authd | grep '/authd.service$' | head -n 1)")
expect_ne "units installed" "." "$UNITS"
logrotate -d /etc/logrotate.d/authd >"$WORK/logrotate.log" 2>&1
expect_eq "logrotate accepts /etc/logrotate.d/authd" 0 "$?"

step "systemd-analyze"
(cd "$WORK" && systemd-analyze verify --man=no "$UNITS/authd.socket" "$UNITS/authd.service") >"$WORK/verify.log" 2>&1
expect_eq "systemd-analyze verify: clean ($(head -c 300 "$WORK/verify.log"))" "0:" "$?:$(cat "$WORK/verify.log")"
exposure=$(systemd-analyze security --offline=true --no-pager "$UNITS/authd.service" 2>&1 | sed -n 's/.*Overall exposure level for authd.service: \([0-9.]*\).*/\1/p')
expect_match "exposure level found" '^[0-9.]+$' "$exposure"
expect_eq "exposure $exposure <= 2.0" yes "$(awk -v e="${exposure:-99}" 'BEGIN { print (e <= 2.0) ? "yes" : "no" }')"

# What the units say, applied by hand: systemd-socket-activate makes the
# socket, the rest is what systemd would do with the socket unit's lines.
unit_value() { sed -n "s/^$2=//p" "$UNITS/$1" | tail -n 1; }
SOCKET=$(unit_value authd.socket ListenStream)
expect_eq "socket path" /run/authd/authd.sock "$SOCKET"
SERVICE_USER=$(unit_value authd.service User)
EXEC_START=$(unit_value authd.service ExecStart)

step "authd through the socket of authd.socket (systemd-socket-activate)"
python3 - "$WORK/notify.sock" >"$WORK/notify.log" 2>&1 <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
while True:
    print(s.recv(4096).decode().replace("\n", " "), flush=True)
EOF
PIDS+=($!)
for ((i = 0; i < 50; i++)); do [[ -S $WORK/notify.sock ]] && break; sleep 0.1; done
install -d -m 0755 /run/authd
systemd-socket-activate -l "$SOCKET" -E NOTIFY_SOCKET="$WORK/notify.sock" -E WATCHDOG_USEC=1000000 \
  -- setpriv --reuid="$SERVICE_USER" --regid="$SERVICE_USER" --init-groups $EXEC_START >"$WORK/authd.log" 2>&1 &
ACTIVATOR_PID=$!
PIDS+=("$ACTIVATOR_PID")
wait_for_socket "$SOCKET" "$ACTIVATOR_PID" 10 || die "no socket $SOCKET"
chgrp "$(unit_value authd.socket SocketGroup)" "$SOCKET"
chmod "$(unit_value authd.socket SocketMode)" "$SOCKET"
expect_eq "socket root:www-data 0660" "root:www-data 660" "$(stat -c '%U:%G %a' "$SOCKET")"

# --- Apache, a2enconf authd -------------------------------------------------------
# start_in_namespace "COPY:DIR ..." COMMAND...: COMMAND in a private mount
# namespace where each DIR is its COPY.
start_in_namespace() {
  local binds=$1
  shift
  exec unshare -m --propagation private bash -c \
    'for b in $1; do mount --bind "${b%%:*}" "${b#*:}" || exit 1; done; shift; exec "$@"' _ "$binds" "$@"
}

APACHE_PORT=$(pick_port)
cp -a /etc/apache2 "$WORK/apache2"
# a2enmod/a2enconf also note what the administrator enabled in /var/lib/apache2.
cp -a /var/lib/apache2 "$WORK/apache2-state"
echo "Listen 127.0.0.1:$APACHE_PORT" >"$WORK/apache2/ports.conf"
rm -f "$WORK/apache2/sites-enabled/"*
install -d -o www-data "$WORK/apache-run"
cat >"$WORK/apache2/envvars" <<EOF
export APACHE_RUN_USER=www-data APACHE_RUN_GROUP=www-data
export APACHE_PID_FILE=$WORK/apache-run/apache2.pid APACHE_RUN_DIR=$WORK/apache-run
export APACHE_LOCK_DIR=$WORK/apache-run APACHE_LOG_DIR=$WORK/apache-run LANG=C
EOF
start_in_namespace "$WORK/apache2:/etc/apache2 $WORK/apache2-state:/var/lib/apache2" bash -c \
  'a2enmod -q proxy_fcgi headers && a2enconf -q authd && source /etc/apache2/envvars && exec apache2 -d /etc/apache2 -DFOREGROUND' \
  >"$WORK/apache.log" 2>&1 &
PIDS+=($!)
expect_eq "a2enconf authd (in the copy)" yes "$(for ((i = 0; i < 50; i++)); do [[ -L $WORK/apache2/conf-enabled/authd.conf ]] && { echo yes; break; }; sleep 0.1; done)"
expect_eq "the machine's /etc/apache2 untouched" no "$([[ -e /etc/apache2/conf-enabled/authd.conf ]] && echo yes || echo no)"

readme_session() {  # the README's curl session at $BASE_URL; users named after $1
  local who=$1 ct='Content-Type: application/json' admin token rid
  http POST /signup -H "$ct" --data-binary "{\"username\":\"root$who\",\"password\":\"root password\",\"fullname\":\"Root\",\"email\":\"root@example.com\"}"
  expect_status 201 "$who: operator account signs up"
  runuser -u authd -- authctl role "root$who" admin >/dev/null 2>"$WORK/authctl.log"
  expect_eq "$who: authctl role (as authd)" 0 "$?"
  http POST /signin -u "root$who:root password"
  admin="Authorization: Bearer $(json .token)"
  http POST /records -H "$admin" -H "$ct" --data-binary '{"title":"hello"}'
  expect_status 201 "$who: admin creates a record"
  rid=$(json ._id)
  http POST /signup -H "$ct" --data-binary "{\"username\":\"alice$who\",\"password\":\"s3cret-pass\",\"fullname\":\"Alice\",\"email\":\"alice@example.com\"}"
  expect_status 201 "$who: 1 signup"
  http POST /signin -u "alice$who:s3cret-pass"
  expect_status 200 "$who: 2 signin"
  token=$(json .token)
  http GET /records -H "Authorization: Bearer $token"
  expect_status 200 "$who: 3 guarded GET"
  http DELETE "/records/$rid" -H "Authorization: Bearer $token"
  expect_status 403 "$who: 4 DELETE as user"
  runuser -u authd -- authctl role "alice$who" admin >/dev/null 2>>"$WORK/authctl.log"
  expect_eq "$who: 5 authctl role alice admin" 0 "$?"
  http DELETE "/records/$rid" -H "Authorization: Bearer $token"
  expect_status 200 "$who: 6 DELETE as admin"
  http GET /login
  expect_status 200 "$who: GET /login (the package's pages)"
  expect_match "$who: /login is the sign-in page" '<form' "$BODY"
  http GET /assets/login.js
  expect_status 200 "$who: GET /assets/login.js"
}

# session_through WHO PORT HOW: once the web server on PORT answers, the README
# session through it (BASE_URL stays set to it).
session_through() {
  BASE_URL=http://127.0.0.1:$2
  if wait_for_http "$BASE_URL/records" 401 20; then
    readme_session "$1"
  else
    fail "$3 answers GET /records 401"
  fi
}

step "README session through Apache (a2enconf authd)"
session_through apache "$APACHE_PORT" "Apache with a2enconf authd"
expect_match "READY=1 sent once the store and keys were open" 'READY=1' "$(cat "$WORK/notify.log")"
AUTHD_PID=$(pgrep -u authd -x authd | head -n 1)
expect_ne "authd runs as user authd" "" "$AUTHD_PID"
sleep 1.2
expect_match "WATCHDOG=1 (WATCHDOG_USEC set)" 'WATCHDOG=1' "$(cat "$WORK/notify.log")"
expect_eq "LMDB in /var/lib/authd, owned by authd" authd "$(stat -c %U /var/lib/authd/data.mdb 2>/dev/null)"

# --- lighttpd, lighty-enable-mod authd ---------------------------------------------
LIGHTTPD_PORT=$(pick_port)
cp -a /etc/lighttpd "$WORK/lighttpd"
install -d -o www-data "$WORK/lighttpd-run" "$WORK/docroot"
sed -i -e "s|^server.port .*|server.port = $LIGHTTPD_PORT|" \
       -e "s|^server.bind .*||" \
       -e "s|^server.document-root .*|server.document-root = \"$WORK/docroot\"|" \
       -e "s|^server.upload-dirs .*|server.upload-dirs = ( \"$WORK/lighttpd-run\" )|" \
       -e "s|^server.errorlog .*|server.errorlog = \"$WORK/lighttpd-run/error.log\"|" \
       -e "s|^server.pid-file .*|server.pid-file = \"$WORK/lighttpd-run/lighttpd.pid\"|" \
       -e 's|^include_shell "/usr/share/lighttpd/use-ipv6.pl.*||' \
       "$WORK/lighttpd/lighttpd.conf"
echo 'server.bind = "127.0.0.1"' >>"$WORK/lighttpd/lighttpd.conf"
start_in_namespace "$WORK/lighttpd:/etc/lighttpd" bash -c \
  'lighty-enable-mod authd && exec lighttpd -D -f /etc/lighttpd/lighttpd.conf' >"$WORK/lighttpd.log" 2>&1 &
PIDS+=($!)

step "README session through lighttpd (lighty-enable-mod authd)"
session_through lighttpd "$LIGHTTPD_PORT" "lighttpd with lighty-enable-mod authd"
expect_eq "lighty-enable-mod authd (in the copy)" yes "$([[ -L $WORK/lighttpd/conf-enabled/50-authd.conf ]] && echo yes || echo no)"
expect_eq "the machine's /etc/lighttpd untouched" no "$([[ -e /etc/lighttpd/conf-enabled/50-authd.conf ]] && echo yes || echo no)"

# --- nginx, include snippets/authd.conf ----------------------------------------------
# A copy of /etc/nginx (with the package's snippet in it) whose nginx.conf is a
# server{} on a free port that includes the snippet, as docs/debian-package.md says.
NGINX_PORT=$(pick_port)
cp -a /etc/nginx "$WORK/nginx"
install -d -o www-data "$WORK/nginx-run"
cat >"$WORK/nginx/nginx.conf" <<EOF
user www-data;
worker_processes 1;
pid $WORK/nginx-run/nginx.pid;
error_log $WORK/nginx-run/error.log;
events {}
http {
    include mime.types;
    access_log $WORK/nginx-run/access.log;
    client_body_temp_path $WORK/nginx-run/body;
    fastcgi_temp_path $WORK/nginx-run/fastcgi;
    proxy_temp_path $WORK/nginx-run/proxy;
    uwsgi_temp_path $WORK/nginx-run/uwsgi;
    scgi_temp_path $WORK/nginx-run/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/docroot;
        include snippets/authd.conf;
    }
}
EOF
start_in_namespace "$WORK/nginx:/etc/nginx" nginx -g 'daemon off;' >"$WORK/nginx.log" 2>&1 &
PIDS+=($!)

step "README session through nginx (include snippets/authd.conf)"
session_through nginx "$NGINX_PORT" "nginx with include snippets/authd.conf"
expect_eq "the snippet is the package's file" "$(md5sum </etc/nginx/snippets/authd.conf)" "$(md5sum <"$WORK/nginx/snippets/authd.conf")"
BASE_URL=http://127.0.0.1:$LIGHTTPD_PORT

step "SIGHUP under load (wrk through lighttpd): no failed request"
http POST /signin -u 'alicelighttpd:s3cret-pass'
TOKEN=$(json .token)
wrk -t2 -c8 -d8s -H "Authorization: Bearer $TOKEN" "$BASE_URL/records" >"$WORK/wrk.log" 2>&1 &
WRK_PID=$!
sleep 1
for ((i = 0; i < 10; i++)); do kill -HUP "$AUTHD_PID"; sleep 0.5; done
wait "$WRK_PID"
cat "$WORK/wrk.log"
expect_match "wrk ran requests" '[0-9]+ requests in' "$(cat "$WORK/wrk.log")"
expect_eq "no non-2xx answer during reloads" "" "$(grep -E 'Non-2xx|Socket errors' "$WORK/wrk.log")"
expect_eq "10 reloads logged" 10 "$(grep -c 'reloaded the configuration' "$WORK/authd.log")"
expect_eq "authd is the same process" "$AUTHD_PID" "$(pgrep -u authd -x authd | head -n 1)"

step "reload: an invalid configuration is refused, a valid one applied"
cp /etc/authd/authd.conf "$WORK/authd.conf.orig"
echo 'token_ttl = banana' >>/etc/authd/authd.conf
kill -HUP "$AUTHD_PID"
sleep 1
expect_match "the refusal is logged with the reason" 'reload refused.*token_ttl' "$(cat "$WORK/authd.log")"
http POST /signin -u 'alicelighttpd:s3cret-pass'
expect_status 200 "still serving on the running configuration"
{ cat "$WORK/authd.conf.orig"; echo 'token_ttl = 120'; } >/etc/authd/authd.conf
kill -HUP "$AUTHD_PID"
sleep 1
http POST /signin -u 'alicelighttpd:s3cret-pass'
expect_status 200 "signin after the valid reload"
ttl=$(python3 -c 'import base64, json, sys
p = sys.argv[1].split(".")[1]; d = json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4))); print(d["exp"] - d["iat"])' "$(json .token)" 2>/dev/null)
expect_eq "token_ttl 120 applied (exp - iat)" 120 "$ttl"

step "dpkg -r keeps the state and the configuration; dpkg -P removes them"
stop_all
dpkg -r authd >>"$WORK/dpkg.log" 2>&1
expect_eq "dpkg -r" 0 "$?"
expect_eq "after remove: program gone" no "$([[ -e /usr/sbin/authd ]] && echo yes || echo no)"
expect_eq "after remove: state kept" yes "$([[ -f /var/lib/authd/data.mdb ]] && echo yes || echo no)"
expect_eq "after remove: conffile kept" yes "$([[ -f /etc/authd/authd.conf ]] && echo yes || echo no)"
dpkg -P authd >>"$WORK/dpkg.log" 2>&1
expect_eq "dpkg -P" 0 "$?"
expect_eq "after purge: not known to dpkg" "" "$(dpkg-query -W -f '${Status}' authd 2>/dev/null | grep -v not-installed)"
for path in /var/lib/authd /var/log/authd /etc/authd /usr/share/authd /etc/apache2/conf-available/authd.conf \
            /etc/lighttpd/conf-available/50-authd.conf /etc/nginx/snippets/authd.conf /etc/logrotate.d/authd; do
  expect_eq "after purge: $path gone" no "$([[ -e $path ]] && echo yes || echo no)"
done
expect_eq "after purge: no statoverride" "" "$(dpkg-statoverride --list /etc/authd/authd.conf)"
expect_eq "after purge: no unit links or masks left" "" \
  "$(find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked -name '*authd.*' 2>/dev/null)"

finish
