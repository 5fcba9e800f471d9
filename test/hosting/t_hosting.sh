#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Proves the shared-hosting release (make dist) on a real Apache set up as a
# shared host: an unprivileged user's ~/public_html as document root with
# `AllowOverride FileInfo Options Indexes`, directory listings on by default,
# no server-level directive for authd (nor the usual `.ht*` denial: the
# release's own .htaccess must hold), and either mod_fcgid (MODE fcgid) or
# mod_cgi alone (MODE cgi). That user unpacks the tarball and runs
# install.sh --docroot ~/public_html/auth; then, through
# http://127.0.0.1:PORT/auth/: the page, sign-up, sign-in, the guard, the
# `auth` cookie under the prefix, the role matrix with the user's own
# authctl, 404 and 500 (authd's JSON and the web server's pages), what must
# never be served (.htaccess, the config, the program, the state directory
# and its key), and an upgrade from a newer tarball that keeps every user,
# the signing key (old tokens stay valid) and the user's own .htaccess lines.
# Attacks on shared hosting (SECURITY.md, issue 41 class 12): another site
# app's upload bug plants symlinks in the document root (login.html to the
# user's own file, assets/ to a directory of theirs, extra.html to the
# signing key); the upgrade's cp -R and sed -i wrote through them (the
# user's files overwritten, the key copied into the web folder). Now every
# one is left or replaced, never followed, and a link at .htaccess stops the
# install. And every co-tenant reaches Apache from loopback: the release
# trusts no proxy and serves /metrics to nobody (404 from 127.0.0.1).
#
#   bash test/hosting/t_hosting.sh fcgid|cgi
#
# Inputs: DIST_DIR (the tarball's directory; default $SOURCE_DIR/build-dist),
# APACHE_BIN, HTTPD_MODULES (default /usr/lib/apache2/modules), KEEP_STATE=1.
# As root the test creates a throw-away system user (useradd) to be the host
# user, runs Apache's workers as that user (as suexec or a per-user PHP pool
# would run the user's programs) and removes the user at the end; as another
# user, that user is the host user.
_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../blackbox/assert.sh
source "$_DIR/../blackbox/assert.sh"

MODE=${1:-}
[[ $MODE == fcgid || $MODE == cgi ]] || { echo "usage: $0 fcgid|cgi" >&2; exit 2; }
SOURCE_DIR=${SOURCE_DIR:-$(cd "$_DIR/../.." && pwd)}
DIST_DIR=${DIST_DIR:-$SOURCE_DIR/build-dist}
HTTPD_MODULES=${HTTPD_MODULES:-/usr/lib/apache2/modules}
APACHE_BIN=${APACHE_BIN:-$(command -v apache2 || echo /usr/sbin/apache2)}

die() { printf 't_hosting: %s\n' "$*" >&2; exit 1; }
TARBALL=$(ls -t "$DIST_DIR"/authd-*-linux-*.tar.gz 2>/dev/null | head -n 1)
[[ -f $TARBALL ]] || die "no release tarball in $DIST_DIR (make dist)"
[[ -x $APACHE_BIN ]] || die "Apache is not installed (scripts/deps.sh test)"
module=$([[ $MODE == fcgid ]] && echo mod_fcgid.so || echo mod_cgi.so)
[[ -f $HTTPD_MODULES/$module ]] || die "$HTTPD_MODULES/$module is missing (scripts/deps.sh test)"
for tool in curl jq tar; do command -v $tool >/dev/null || die "'$tool' is missing"; done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/authd-hosting.XXXXXX") || die "mktemp failed"
chmod 0711 "$WORK"
HOME_DIR=$WORK/home
RUN=$WORK/apache
mkdir -p "$RUN"
HOST_USER=
OWN_USER=0
APACHE_PID=

# --- the host user ------------------------------------------------------------------------
if ((EUID == 0)); then
  for tool in useradd userdel runuser; do command -v $tool >/dev/null || die "'$tool' is missing"; done
  for ((i = 0; i < 20; i++)); do  # useradd fails while another holds the passwd lock
    HOST_USER=authdh$(printf '%06d' $((RANDOM * 32768 + RANDOM)) | tail -c 6)
    id -u "$HOST_USER" >/dev/null 2>&1 && continue
    if useradd --system --user-group --no-create-home --home-dir "$HOME_DIR" --shell /bin/bash "$HOST_USER" 2>"$WORK/useradd.err"; then
      OWN_USER=1
      break
    fi
    sleep 0.5
  done
  ((OWN_USER)) || die "useradd failed: $(cat "$WORK/useradd.err")"
  mkdir -m 0711 "$HOME_DIR"
  chown "$HOST_USER:$HOST_USER" "$HOME_DIR"
  as_user() { runuser -u "$HOST_USER" -- env -i HOME="$HOME_DIR" USER="$HOST_USER" PATH=/usr/bin:/bin "$@"; }
else
  HOST_USER=$(id -un)
  mkdir -m 0711 "$HOME_DIR"
  as_user() { env -i HOME="$HOME_DIR" USER="$HOST_USER" PATH=/usr/bin:/bin "$@"; }
fi

cleanup() {
  local rc=$?
  if [[ -n $APACHE_PID ]]; then
    kill -TERM "$APACHE_PID" 2>/dev/null
    for ((i = 0; i < 100; i++)); do kill -0 "$APACHE_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$APACHE_PID" 2>/dev/null
    wait "$APACHE_PID" 2>/dev/null
  fi
  if ((OWN_USER)); then
    # authd processes of mod_fcgid end with Apache; any left are ours (this user exists only here).
    local pids
    for ((i = 0; i < 50; i++)); do
      pids=$(pgrep -u "$HOST_USER" || true)
      [[ -z $pids ]] && break
      ((i == 30)) && kill -KILL $pids 2>/dev/null
      sleep 0.1
    done
    userdel "$HOST_USER" 2>/dev/null || echo "t_hosting: userdel $HOST_USER failed" >&2
  fi
  if ((rc != 0 || FAILED > 0)) && [[ -f $RUN/error.log ]]; then
    echo "----- Apache error log (last 60 lines) -----"
    tail -n 60 "$RUN/error.log"
  fi
  if [[ ${KEEP_STATE:-0} == 1 ]]; then echo "t_hosting: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- unpack and install as that user ---------------------------------------------------------
step "install as $HOST_USER ($MODE)"
release=$(basename "$TARBALL" .tar.gz)
VERSION=$(sed -E 's/^authd-([0-9.]+)-linux-.*/\1/' <<<"$release")
cp "$TARBALL" "$HOME_DIR/"
((OWN_USER)) && chown "$HOST_USER:$HOST_USER" "$HOME_DIR/$release.tar.gz"
as_user bash -c 'cd ~ && mkdir -m 0755 public_html && tar xzf "$1"' _ "$release.tar.gz" || die "unpacking failed"
DOCROOT=$HOME_DIR/public_html/auth
STATE=$HOME_DIR/authd-state
OUT=$(as_user "$HOME_DIR/$release/install.sh" --docroot "$DOCROOT" 2>&1)
expect_eq "install.sh exits 0" 0 "$?"
printf '%s\n' "$OUT" | sed 's/^/     | /'
expect_match "install.sh prints the URL" 'URL: +https?://[^ ]*/auth/' "$OUT"
expect_match "install.sh reports a fresh install" "installed $VERSION" "$OUT"
expect_eq "state dir: beside the unpacked folder, mode 700, the user's" "700 $HOST_USER" "$(stat -c '%a %U' "$STATE" 2>&1)"
expect_eq "config: mode 600" 600 "$(stat -c %a "$STATE/authd.conf" 2>&1)"
expect_eq "signing key: made by install.sh, mode 600" 600 "$(stat -c %a "$STATE/signing.key" 2>&1)"
expect_eq "authctl in the state dir: mode 700" 700 "$(stat -c %a "$STATE/authctl" 2>&1)"
expect_eq "program in the document root: mode 755" 755 "$(stat -c %a "$DOCROOT/authd.fcgi" 2>&1)"
expect_eq "the document root has the pages and the .htaccess" "index.html 404.html .htaccess" \
  "$(for f in index.html 404.html .htaccess; do [[ -f $DOCROOT/$f ]] && printf '%s ' "$f"; done | sed 's/ $//')"
expect_eq "the config link points into the state dir" "$STATE/authd.conf" "$(readlink "$DOCROOT/authd.conf")"
KEY_SUM=$(sha256sum "$STATE/signing.key" | cut -d' ' -f1)
# Loopback is every co-tenant's address on a shared host.
expect_eq "the release's config: no trusted proxy" "trusted_proxies =" "$(grep -E '^trusted_proxies' "$STATE/authd.conf")"
expect_eq "the release's config: no metrics" "metrics_allow =" "$(grep -E '^metrics_allow' "$STATE/authd.conf")"
effective=$(as_user env -i PATH=/usr/bin:/bin AUTHD_CONFIG="$STATE/authd.conf" "$STATE/authd.fcgi" --print-config 2>&1)
expect_eq "effective: trusted_proxies empty" 1 "$(grep -cxE 'trusted_proxies = ?' <<<"$effective")"
expect_eq "effective: metrics_allow empty" 1 "$(grep -cxE 'metrics_allow = ?' <<<"$effective")"

# --- no library from a directory another site's app could write (SECURITY.md, class 7) ---------
# Attack: another application of the same site has an upload bug and drops
# libcbor.so.0.8 into ~/public_html/lib or ~/public_html/auth/.authd-lib or
# ~/public_html/auth/lib, which the program searched first (RUNPATH
# $ORIGIN/../lib, $ORIGIN/.authd-lib, $ORIGIN/lib with authd.fcgi in the
# document root): its code runs as the site's user, with the signing key.
step "libraries: one search path, outside every document root"
for f in "$STATE/authd.fcgi" "$STATE/authctl"; do
  expect_eq "$(basename "$f"): RUNPATH is \$ORIGIN/lib only" '$ORIGIN/lib' \
    "$(readelf -d "$f" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
  expect_eq "$(basename "$f"): no RPATH" "" "$(readelf -d "$f" | grep '(RPATH)')"
done
expect_eq "the document root's authd.fcgi is a script, not the program" "#!/bin/sh" "$(head -n 1 "$DOCROOT/authd.fcgi")"
expect_eq "it starts the program in the state directory" "exec '$STATE/authd.fcgi' \"\$@\"" "$(tail -n 1 "$DOCROOT/authd.fcgi")"
BUNDLED=$(sed -n 's/^- Bundled in lib\/: //p' "$HOME_DIR/$release/RELEASE-NOTES.md")
for lib in $BUNDLED; do
  expect_eq "$lib is in the state directory's lib/" yes "$([[ -f $STATE/lib/$lib ]] && echo yes || echo no)"
done
expect_eq "no library directory in the document root" no "$([[ -e $DOCROOT/.authd-lib || -e $DOCROOT/lib ]] && echo yes || echo no)"
# The neighbour's libraries: each would leave a marker file when loaded (and
# cannot stand in for the real one: the program would not start).
MARKERS=$WORK/markers
mkdir -m 0777 "$MARKERS"
printf '#include <stdio.h>\n__attribute__((constructor)) static void planted(void) { FILE* f = fopen("%s/loaded", "a"); if (f) { fputs("planted\\n", f); fclose(f); } }\n' \
  "$MARKERS" >"$WORK/planted.c"
PLANTED_DIRS=("$HOME_DIR/public_html/lib" "$DOCROOT/.authd-lib" "$DOCROOT/lib")
for dir in "${PLANTED_DIRS[@]}"; do
  as_user mkdir -p "$dir"
  for lib in $BUNDLED; do
    cc -shared -fPIC -o "$WORK/planted.so" "$WORK/planted.c" -Wl,-soname,"$lib" || die "cc failed"
    as_user cp "$WORK/planted.so" "$dir/$lib" 2>/dev/null || cp "$WORK/planted.so" "$dir/$lib"
    chmod 0755 "$dir/$lib"
  done
done
trace=$(as_user env LD_DEBUG=libs GATEWAY_INTERFACE=CGI/1.1 REQUEST_METHOD=GET SCRIPT_NAME=/auth/authd.fcgi \
        PATH_INFO=/records "$DOCROOT/authd.fcgi" 2>&1 </dev/null)
expect_match "a CGI run of the document root's authd.fcgi answers" 'Status: 401' "$trace"
searched=$(grep -oE 'search path=[^ ]*' <<<"$trace" | sort -u)
printf '%s\n' "$searched" | sed 's/^/     | /'
expect_match "the loader searched the state directory's lib/" "search path=$STATE/lib" "$searched"
expect_eq "the loader searched nothing under public_html" "" "$(grep -F "$HOME_DIR/public_html" <<<"$searched")"
for lib in $BUNDLED; do
  expect_match "$lib came from the state directory" "trying file=$STATE/lib/$lib" "$trace"
done
expect_eq "no file under public_html was tried" "" "$(grep -F "trying file=$HOME_DIR/public_html" <<<"$trace")"
expect_eq "no planted library was loaded" "" "$(cat "$MARKERS/loaded" 2>/dev/null)"

# --- Apache as the host runs it ---------------------------------------------------------------
_port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
write_apache_conf() {
  local mpm=event
  [[ $MODE == cgi ]] && mpm=prefork
  {
    cat <<EOF
# A shared host's Apache: nothing in here knows about authd.
ServerRoot "$RUN"
DefaultRuntimeDir "$RUN"
PidFile "$RUN/apache.pid"
ErrorLog "$RUN/error.log"
LogLevel warn
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
LoadModule mpm_${mpm}_module $HTTPD_MODULES/mod_mpm_${mpm}.so
LoadModule authz_core_module $HTTPD_MODULES/mod_authz_core.so
LoadModule authz_host_module $HTTPD_MODULES/mod_authz_host.so
LoadModule mime_module $HTTPD_MODULES/mod_mime.so
LoadModule dir_module $HTTPD_MODULES/mod_dir.so
LoadModule autoindex_module $HTTPD_MODULES/mod_autoindex.so
LoadModule alias_module $HTTPD_MODULES/mod_alias.so
LoadModule env_module $HTTPD_MODULES/mod_env.so
LoadModule setenvif_module $HTTPD_MODULES/mod_setenvif.so
LoadModule rewrite_module $HTTPD_MODULES/mod_rewrite.so
LoadModule headers_module $HTTPD_MODULES/mod_headers.so
<IfModule !log_config_module>
  LoadModule log_config_module $HTTPD_MODULES/mod_log_config.so
</IfModule>
LogFormat "%h %l %u %t \"%r\" %>s %b" common
CustomLog "$RUN/access.log" common
TypesConfig /etc/mime.types
AddType "text/html; charset=utf-8" .html
DocumentRoot "$HOME_DIR/public_html"
<Directory />
  Options FollowSymLinks
  AllowOverride None
  Require all denied
</Directory>
<Directory "$HOME_DIR/public_html">
  Options Indexes SymLinksIfOwnerMatch
  AllowOverride FileInfo Options Indexes
  Require all granted
</Directory>
DirectoryIndex index.html index.htm
AccessFileName .htaccess
EOF
    ((EUID == 0)) && printf 'User %s\nGroup %s\n' "$HOST_USER" "$HOST_USER"
    if [[ $MODE == fcgid ]]; then
      cat <<EOF
# As Debian's fcgid.conf: the module, its run files, .fcgi as FastCGI.
LoadModule fcgid_module $HTTPD_MODULES/mod_fcgid.so
FcgidIPCDir "$RUN/fcgid"
FcgidProcessTableFile "$RUN/fcgid_shm"
FcgidConnectTimeout 20
AddHandler fcgid-script .fcgi
EOF
    else
      cat <<EOF
LoadModule cgi_module $HTTPD_MODULES/mod_cgi.so
StartServers 2
MaxRequestWorkers 32
EOF
    fi
  } >"$RUN/httpd.conf"
}

start_apache() {
  local attempt i
  for ((attempt = 0; attempt < 10; attempt++)); do
    PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    _port_free "$PORT" || continue
    write_apache_conf
    : >"$RUN/error.log"
    setsid "$APACHE_BIN" -f "$RUN/httpd.conf" -d "$RUN" -DFOREGROUND </dev/null >>"$RUN/apache.out" 2>&1 &
    APACHE_PID=$!
    for ((i = 0; i < 100; i++)); do
      if ! kill -0 "$APACHE_PID" 2>/dev/null; then
        wait "$APACHE_PID" 2>/dev/null
        APACHE_PID=
        grep -qi 'address already in use' "$RUN/error.log" "$RUN/apache.out" 2>/dev/null && continue 2
        cat "$RUN/apache.out" "$RUN/error.log" >&2
        die "Apache did not start"
      fi
      [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" 2>/dev/null) != 000 ]] && return 0
      sleep 0.05
    done
    die "Apache did not answer"
  done
  die "found no free port"
}
start_apache
BASE_URL=http://127.0.0.1:$PORT/auth
echo "Apache ($MODE) at $BASE_URL, document root $DOCROOT, state $STATE"

authctl() { as_user "$STATE/authctl" "$@"; }
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signup() { http POST /signup -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg u "$1" --arg p "$2" '{username:$u,password:$p,fullname:"Test Person",email:"test@example.com"}')"; }
signin() { http POST /signin -H "$(basic "$1:$2")"; }
from_authd() { expect_match "$1: JSON from authd" '^application/json' "$(header Content-Type)"; }
PAGE_404=$(<"$DOCROOT/404.html")
PAGE_500=$(<"$DOCROOT/500.html")

# --- 500 when the program cannot run (before any process of it exists) ------------------------
step "500: the program cannot start"
cp -p "$STATE/authd.conf" "$WORK/authd.conf.good"
as_user bash -c 'printf "no_such_setting = 1\n" >>"$1"' _ "$STATE/authd.conf"
http GET /records
expect_match "broken config: 500 or 503 from Apache" '^(500|503)$' "$STATUS"
expect_eq "broken config: the 500 page of the document root" "$PAGE_500" "$BODY"
as_user cp "$WORK/authd.conf.good" "$STATE/authd.conf" 2>/dev/null || cp "$WORK/authd.conf.good" "$STATE/authd.conf"
if [[ $MODE == fcgid ]]; then sleep 1; fi  # mod_fcgid waits a moment before spawning a failed class again
for ((i = 0; i < 50; i++)); do http GET /records; [[ $STATUS == 401 ]] && break; sleep 0.2; done
expect_status 401 "config repaired: GET /records answers again"

# --- the security headers of the shipped server configurations, from .htaccess ------------------
# Attack: the sign-in page framed by another site (clickjacking), a response
# sniffed as another type, the token-bearing URL leaked in Referer.
step "security headers"
for path in / /login /records /no-such-file; do
  http GET "$path"
  expect_match "GET /auth$path: CSP forbids framing" "frame-ancestors 'none'" "$(header Content-Security-Policy)"
  expect_match "GET /auth$path: CSP, scripts from this site only" "script-src 'self'" "$(header Content-Security-Policy)"
  expect_eq "GET /auth$path: nosniff" nosniff "$(header X-Content-Type-Options)"
  expect_eq "GET /auth$path: Referrer-Policy" no-referrer "$(header Referrer-Policy)"
done
expect_eq "the planted libraries were never loaded through Apache either" "" "$(cat "$MARKERS/loaded" 2>/dev/null)"

# --- loopback is not trusted on a shared host ---------------------------------------------------
step "no metrics and no trusted proxy for loopback"
http GET /metrics
expect_status 404 "GET /auth/metrics from 127.0.0.1 (any co-tenant): 404"
http GET /metrics -H 'X-Forwarded-For: 127.0.0.1'
expect_status 404 "nor with X-Forwarded-For"

# --- the page and sign-up ---------------------------------------------------------------------
step "page, sign-up, sign-in"
http GET /
expect_status 200 "GET /auth/"
expect_match "GET /auth/: the sign-in page" '<title>authd</title>' "$BODY"
expect_match "the start page leads to the sign-in page under the prefix" 'url=/auth/login' "$BODY"
http GET /login
expect_status 200 "GET /auth/login: the sign-in page"
expect_match "its script under the prefix" 'src="/auth/assets/login.js"' "$BODY"
http GET /assets/api.js
expect_match "the pages call the API under the prefix" 'fetch\("/auth/signin"' "$BODY"
signup alice 'alice password 1'
expect_status 201 "sign-up alice"
from_authd "sign-up"
expect_eq "sign-up: role user" user "$(json .user.role)"
TOKEN=$(json .token)
expect_eq "sign-up: token header = body token" "$TOKEN" "$(header token)"
expect_match "sign-up: cookie auth with Path=/ under the prefix" "^auth=$TOKEN; Path=/;" "$(header Set-Cookie)"
signup alice 'another password'
expect_status 409 "sign-up alice again"
signin alice 'alice password 1'
expect_status 200 "sign-in alice"
expect_eq "sign-in: username" alice "$(json .user.username)"
signin alice 'wrong password'
expect_status 500 "sign-in with a wrong password"
expect_eq "wrong password: authd's JSON, not the 500 page" '{"error":"Invalid Login"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"

# --- the guard ----------------------------------------------------------------------------------
step "guard"
http GET /records
expect_status 401 "no token"
from_authd "no token"
expect_match "no token: WWW-Authenticate" '^Bearer' "$(header WWW-Authenticate)"
http GET /records -H "Authorization: Bearer $TOKEN"
expect_status 200 "bearer token from sign-up"
expect_eq "records: an array" array "$(json type 2>/dev/null)"
http GET /records -H "Authorization: Bearer ${TOKEN%?}x"
expect_status 401 "a forged signature"
http GET /me -H "Cookie: auth=$TOKEN"
expect_status 200 "the auth cookie works under the prefix (GET /auth/me)"
expect_match "GET /auth/me: alice" '"alice"' "$BODY"
# No proxy is trusted on a shared host: X-Original-* from loopback (where
# every co-tenant is) is not believed.
http GET /auth/check -H 'X-Original-Method: GET' -H 'X-Original-URI: /app/page' -H "Cookie: auth=$TOKEN"
expect_status 403 "GET /auth/auth/check with X-Original-* from loopback: refused (no trusted proxy)"

# --- the role matrix with the user's authctl ---------------------------------------------------
step "roles"
declare -A TOK
for role in admin editor writer user; do
  printf '%s' "pw-$role-123" | authctl add "the$role" "$role" >/dev/null 2>&1
  expect_eq "authctl add the$role $role (as $HOST_USER)" 0 "$?"
  signin "the$role" "pw-$role-123"
  expect_status 200 "the$role signs in"
  TOK[$role]=$(json .token)
done
as() { local role=$1; shift; local m=$1 p=$2; shift 2; http "$m" "$p" -H "Authorization: Bearer ${TOK[$role]}" "$@"; }
refused() { expect_status 403 "$1"; expect_eq "$1: body" '{"error":"Access Denied"}' "$(jq -c . <<<"$BODY" 2>/dev/null)"; }
CT='Content-Type: application/json'
for role in admin editor writer; do
  as "$role" POST /records -H "$CT" --data-binary "{\"title\":\"by $role\"}"
  expect_status 201 "$role creates"
done
expect_match "Location of a new record carries the prefix" '^/auth/records/[0-9a-f]{24}$' "$(header Location)"
as user POST /records -H "$CT" --data-binary '{"title":"by user"}'
refused "user cannot create"
as admin POST /records -H "$CT" --data-binary '{"title":"shared"}'
RID=$(json ._id)
for role in admin editor writer user; do
  as "$role" GET "/records/$RID"
  expect_status 200 "$role reads"
done
for role in admin editor; do
  as "$role" PUT "/records/$RID" -H "$CT" --data-binary "{\"title\":\"upd $role\"}"
  expect_status 200 "$role updates"
done
for role in writer user; do
  as "$role" PUT "/records/$RID" -H "$CT" --data-binary '{"title":"no"}'
  refused "$role cannot update"
done
for role in editor writer user; do
  as "$role" DELETE "/records/$RID"
  refused "$role cannot delete"
done
as admin DELETE "/records/$RID"
expect_status 200 "admin deletes"
authctl role theuser editor >/dev/null 2>&1
expect_eq "authctl role theuser editor" 0 "$?"
as user POST /records -H "$CT" --data-binary '{"title":"after promotion"}'
expect_status 201 "the same token creates after the role change"
LIST=$(authctl list 2>&1)
expect_eq "authctl list: five users" 5 "$(grep -cE '^(alice|the(admin|editor|writer|user))\b' <<<"$LIST")"

# --- 404 and 405 ---------------------------------------------------------------------------------
step "404"
http GET /records/a/b -H "Authorization: Bearer ${TOK[admin]}"
expect_status 404 "unknown route below the API"
from_authd "unknown route"
http GET /signup
expect_status 405 "GET /signup"
from_authd "GET /signup"
expect_match "GET /signup: Allow" 'POST' "$(header Allow)"
http GET /no-such-page.html
expect_status 404 "unknown file"
expect_eq "unknown file: the 404 page of the document root" "$PAGE_404" "$BODY"
expect_match "the 404 page links to the sign-in page under the prefix" 'href="/auth/login"' "$BODY"

# --- never served ---------------------------------------------------------------------------------
step "never served"
never() { # DESC PATH [CURL ARGS]: not 200, and none of the secret's text in the body
  local desc=$1 path=$2; shift 2
  http GET "$path" "$@"
  expect_match "$desc: refused ($STATUS)" '^(403|404|400)$' "$STATUS"
}
never ".htaccess" /.htaccess
expect_eq ".htaccess: no content" no "$(grep -q 'BEGIN authd' <<<"$BODY" && echo yes || echo no)"
never "other dot files" /.htaccess.bak
never "the config link" /authd.conf
expect_eq "authd.conf: no content" no "$(grep -q 'state_dir' <<<"$BODY" && echo yes || echo no)"
never "the program by name" /authd.fcgi
never "the program with a path" /authd.fcgi/records
http GET "http://127.0.0.1:$PORT/authd-state/signing.key"
expect_eq "the state dir has no URL (/authd-state/signing.key)" 404 "$STATUS"
http GET "/../../authd-state/signing.key" --path-as-is
expect_match "no way up to the state dir (/auth/../../authd-state/signing.key)" '^(400|403|404)$' "$STATUS"
http GET "/%2e%2e/%2e%2e/authd-state/signing.key" --path-as-is
expect_match "nor encoded (%2e%2e)" '^(400|403|404)$' "$STATUS"
mkdir -p "$DOCROOT/empty" && ((OWN_USER)) && chown "$HOST_USER:" "$DOCROOT/empty"
http GET /empty/
expect_match "no directory listings although the server allows them" '^(403|404)$' "$STATUS"

# --- what one request costs --------------------------------------------------------------------
# Printed for the README (CGI: a process start, the LMDB open and the key load on every
# request); judged only loosely, as the machine may be busy.
step "cost per request"
N=100
if command -v ab >/dev/null; then  # apache2-utils comes with apache2
  ab -q -n 5 -c 1 -H "Authorization: Bearer ${TOK[admin]}" "$BASE_URL/records" >/dev/null 2>&1  # warm-up
  ms=$(ab -q -n $N -c 1 -H "Authorization: Bearer ${TOK[admin]}" "$BASE_URL/records" 2>/dev/null |
       awk '/^Time per request:.*\(mean\)$/ { print $4; exit }')
else
  start=$(date +%s%N)
  for ((i = 0; i < N; i++)); do curl -s -o /dev/null "$BASE_URL/records" -H "Authorization: Bearer ${TOK[admin]}"; done
  ms=$(( ($(date +%s%N) - start) / N / 1000000 ))
fi
echo "     $MODE: a guarded GET /auth/records takes $ms ms through Apache (mean of $N, one at a time; load $(cut -d' ' -f1 /proc/loadavg))"
expect_match "a guarded request stays under a second" '^[0-9]{1,3}(\.[0-9]+)?$' "$ms"

# --- upgrade ----------------------------------------------------------------------------------------
step "upgrade"
NEXT=$(awk -F. -v OFS=. '{ $NF = $NF + 1; print }' <<<"$VERSION")
next_release=${release/$VERSION/$NEXT}
mkdir "$WORK/next"
tar xzf "$TARBALL" -C "$WORK/next"
mv "$WORK/next/$release" "$WORK/next/$next_release"
printf '%s\n' "$NEXT" >"$WORK/next/$next_release/VERSION"
tar czf "$HOME_DIR/$next_release.tar.gz" -C "$WORK/next" "$next_release"
((OWN_USER)) && chown "$HOST_USER:$HOST_USER" "$HOME_DIR/$next_release.tar.gz"
as_user bash -c 'printf "\n# my own line\n" >>"$1"' _ "$DOCROOT/.htaccess"
OLD_LIST=$LIST
# The planted links (see the top): to the user's own file and directory
# outside the web folder, and to the signing key.
OUTSIDE=$HOME_DIR/outside
as_user bash -c 'mkdir -p "$1/dir" && printf "my own page\n" >"$1/mine.html" && printf "my own script\n" >"$1/dir/api.js" &&
                 printf "my own file\n" >"$1/dir/keep.txt"' _ "$OUTSIDE" || die "cannot make the outside files"
OUTSIDE_SUM=$(cd "$OUTSIDE" && find . -type f -exec sha256sum {} + | sort)
as_user bash -c 'cd "$1" && ln -sfn "$2/mine.html" login.html && rm -rf assets && ln -s "$2/dir" assets &&
                 ln -s "$3/signing.key" extra.html' _ "$DOCROOT" "$OUTSIDE" "$STATE" || die "cannot plant the links"
# An older release's config: neither setting.
as_user sed -i -E '/^(trusted_proxies|metrics_allow) =/d' "$STATE/authd.conf"
# Unpacked elsewhere this time (~/releases): install.sh finds the state through the installation.
as_user bash -c 'mkdir ~/releases && cd ~/releases && tar xzf ~/"$1"' _ "$next_release.tar.gz" ||
  die "unpacking the newer release failed"
OUT=$(as_user "$HOME_DIR/releases/$next_release/install.sh" --docroot "$DOCROOT" 2>&1)
expect_eq "install.sh of $NEXT exits 0" 0 "$?"
printf '%s\n' "$OUT" | sed 's/^/     | /'
expect_match "install.sh reports the upgrade" "upgraded $VERSION -> $NEXT" "$OUT"
expect_eq "the same state dir, none beside the new folder" no "$([[ -e $HOME_DIR/releases/authd-state ]] && echo yes || echo no)"
expect_eq "signing key unchanged" "$KEY_SUM" "$(sha256sum "$STATE/signing.key" | cut -d' ' -f1)"
expect_eq "every user kept (authctl list)" "$OLD_LIST" "$(authctl list 2>&1)"
expect_eq ".htaccess: one authd block" 1 "$(grep -c '^# BEGIN authd$' "$DOCROOT/.htaccess")"
expect_match ".htaccess: the new version's block" "authd $NEXT" "$(cat "$DOCROOT/.htaccess")"
expect_match ".htaccess: the user's own line kept" '# my own line' "$(cat "$DOCROOT/.htaccess")"
expect_eq "state dir still 700" 700 "$(stat -c %a "$STATE")"
step "upgrade: no link in the document root followed"
expect_eq "the user's files outside the web folder are untouched" "$OUTSIDE_SUM" \
  "$(cd "$OUTSIDE" && find . -type f -exec sha256sum {} + | sort)"
expect_eq "login.html: the link replaced by the page" "no page" \
  "$([[ -L $DOCROOT/login.html ]] && echo yes || echo no) $(grep -q '<title>Sign in - authd</title>' "$DOCROOT/login.html" && echo page)"
expect_eq "assets: the link replaced by a directory" "no dir" \
  "$([[ -L $DOCROOT/assets ]] && echo yes || echo no) $([[ -d $DOCROOT/assets ]] && echo dir)"
expect_match "assets/api.js: the release's, with the prefix" 'fetch\("/auth/signin"' "$(cat "$DOCROOT/assets/api.js")"
expect_eq "extra.html (not the release's): left as it was, a link" yes "$([[ -L $DOCROOT/extra.html ]] && echo yes || echo no)"
expect_eq "no file in the web folder holds the signing key" "" \
  "$(find "$HOME_DIR/public_html" -type f -exec sha256sum {} + | grep -F "$KEY_SUM")"
expect_eq "signing key still a regular file of mode 600" "600 regular file" "$(stat -c '%a %F' "$STATE/signing.key")"
expect_eq "the upgrade set trusted_proxies and metrics_allow empty in the kept config" "metrics_allow = trusted_proxies =" \
  "$(grep -E '^(trusted_proxies|metrics_allow) =' "$STATE/authd.conf" | sort | tr '\n' ' ' | sed 's/ $//')"
http GET /metrics
expect_status 404 "after the upgrade: GET /auth/metrics from 127.0.0.1: 404"
as_user rm -f "$DOCROOT/extra.html"
# A link at .htaccess, the one file install.sh reads there: refused before any change.
as_user bash -c 'cp "$1/.htaccess" "$2/htaccess.real" && ln -sfn "$2/htaccess.real" "$1/.htaccess"' _ "$DOCROOT" "$OUTSIDE"
as_user bash -c 'ln -sfn "$2/mine.html" "$1/login.html"' _ "$DOCROOT" "$OUTSIDE"
OUT=$(as_user "$HOME_DIR/releases/$next_release/install.sh" --docroot "$DOCROOT" 2>&1)
expect_ne "a link at .htaccess: install.sh refuses" 0 "$?"
expect_match "and says why" '\.htaccess is a symbolic link' "$OUT"
expect_eq "nothing in the document root changed (login.html still the link)" yes "$([[ -L $DOCROOT/login.html ]] && echo yes || echo no)"
expect_eq "the user's files are untouched" "$OUTSIDE_SUM" \
  "$(cd "$OUTSIDE" && find . -type f ! -name htaccess.real -exec sha256sum {} + | sort)"
as_user bash -c 'rm -f "$1/.htaccess" "$1/login.html" && cp "$2/htaccess.real" "$1/.htaccess"' _ "$DOCROOT" "$OUTSIDE"
OUT=$(as_user "$HOME_DIR/releases/$next_release/install.sh" --docroot "$DOCROOT" 2>&1)
expect_eq "links removed: install.sh runs again" 0 "$?"
http GET /records -H "Authorization: Bearer $TOKEN"
expect_status 200 "a token issued before the upgrade still passes"
for role in admin editor writer user; do
  signin "the$role" "pw-$role-123"
  expect_status 200 "the$role signs in after the upgrade"
done
signin alice 'alice password 1'
expect_status 200 "alice signs in after the upgrade"
signup bob 'bob password 1'
expect_status 201 "sign-up after the upgrade"

finish
