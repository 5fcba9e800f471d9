#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# A relying party nobody here wrote, unmodified: Apache's mod_auth_openidc
# (Debian libapache2-mod-auth-openidc) protects /admin/ with
# `Require claim roles:admin` and /any/ with `Require valid-user`, signing in
# through authd as OpenID provider (code flow + PKCE, client_secret_basic,
# the roles claim from /userinfo). The browser is curl with one cookie jar
# holding authd's `auth` cookie. An admin gets in, a user gets /any/ but is
# refused /admin/; sign-out goes through authd's end_session endpoint.
# Back-channel logout (its endpoint: the redirect URI with ?logout=backchannel):
# the attack is an application session that outlives the sign-out at authd
# (someone else at the same computer keeps using it); after bob signs out at
# authd, the Apache-protected page asks for a sign-in again.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export AUTHD_OIDC_PROVIDER=true
stack_start
APACHE_BIN=$(command -v apache2 || echo /usr/sbin/apache2)
MODULES=/usr/lib/apache2/modules
[[ -x $APACHE_BIN && -f $MODULES/mod_auth_openidc.so ]] ||
  _harness_die "apache2 and libapache2-mod-auth-openidc are needed (scripts/deps.sh test)"

make_temp_dir RP_DIR rp
chmod 0755 "$RP_DIR"
mkdir -p "$RP_DIR/www/admin" "$RP_DIR/www/any"
echo 'admin area' >"$RP_DIR/www/admin/index.html"
echo 'any user' >"$RP_DIR/www/any/index.html"
chmod -R a+rX "$RP_DIR/www"
RP_PORT=$(pick_port) || _harness_die "found no free port"
RP=http://127.0.0.1:$RP_PORT
add_user root-admin 'root admin password' admin || fail "authctl add root-admin"
signup bob 'bob password'
BOB_TOKEN=$TOKEN
signin root-admin 'root admin password'
ADMIN_TOKEN=$TOKEN
OUT=$(authctl client add Intranet --first-party --redirect-uri "$RP/admin/callback" "$RP/any/callback" \
  --post-logout-uri "$RP/bye.html" --scope openid profile roles \
  --backchannel-logout-uri "$RP/admin/callback?logout=backchannel" --backchannel-logout-session-required 2>/dev/null)
CLIENT=$(sed -n 's/^client_id: //p' <<<"$OUT"); SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $CLIENT && -n $SECRET ]] || fail "client registered"
echo bye >"$RP_DIR/www/bye.html"

RUN_AS=
[[ $(id -u) -eq 0 ]] && RUN_AS=$'User www-data\nGroup www-data'
cat >"$RP_DIR/httpd.conf" <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$RP_PORT
PidFile $RP_DIR/httpd.pid
ErrorLog $RP_DIR/error.log
LogLevel warn
Mutex file:$RP_DIR
$RUN_AS
LoadModule mpm_event_module $MODULES/mod_mpm_event.so
LoadModule authn_core_module $MODULES/mod_authn_core.so
LoadModule authz_core_module $MODULES/mod_authz_core.so
LoadModule authz_user_module $MODULES/mod_authz_user.so
LoadModule dir_module $MODULES/mod_dir.so
LoadModule auth_openidc_module $MODULES/mod_auth_openidc.so
DocumentRoot $RP_DIR/www
DirectoryIndex index.html
OIDCProviderMetadataURL $BASE_URL/.well-known/openid-configuration
OIDCClientID $CLIENT
OIDCClientSecret $SECRET
OIDCRedirectURI $RP/admin/callback
OIDCCryptoPassphrase $(openssl rand -hex 16)
OIDCScope "openid profile roles"
OIDCPKCEMethod S256
OIDCProviderTokenEndpointAuth client_secret_basic
OIDCRemoteUserClaim preferred_username
OIDCCookieSameSite Off
<Location /admin/>
  AuthType openid-connect
  Require claim roles:admin
</Location>
<Location /any/>
  AuthType openid-connect
  Require valid-user
</Location>
CONF
"$APACHE_BIN" -f "$RP_DIR/httpd.conf" -d "$RP_DIR" -DFOREGROUND >"$RP_DIR/out.log" 2>&1 &
RP_PID=$!
stop_at_exit RP_PID "Apache (mod_auth_openidc)"
wait_for_port "$RP_PORT" "$RP_PID" 10 || { cat "$RP_DIR/out.log" "$RP_DIR/error.log" >&2; _harness_die "Apache RP did not start"; }

# A browser whose jar holds authd's `auth` cookie for TOKEN; visits PATH on the RP, following every redirect.
visit() {  # TOKEN PATH -> STATUS, FINAL (URL), BODY
  local token=$1 path=$2
  JAR=$RP_DIR/jar.$token_label
  printf '127.0.0.1\tFALSE\t/\tFALSE\t0\tauth\t%s\n' "$token" >"$JAR"
  BODY=$(curl -s -L --max-redirs 10 -b "$JAR" -c "$JAR" -o - -w '\n%{http_code} %{url_effective}' "$RP$path")
  read -r STATUS FINAL <<<"$(tail -n1 <<<"$BODY")"
  BODY=$(sed '$d' <<<"$BODY")
}

step "an admin signs in to /admin/ through authd"
token_label=admin visit "$ADMIN_TOKEN" /admin/
expect_eq "admin: 200" 200 "$STATUS"
expect_match "admin: the page" 'admin area' "$BODY"

step "a user: /any/ yes, /admin/ no"
token_label=bob visit "$BOB_TOKEN" /any/
expect_eq "user: /any/ 200" 200 "$STATUS"
token_label=bob visit "$BOB_TOKEN" /admin/
expect_match "user: /admin/ refused" '^(401|403)$' "$STATUS"

step "back-channel logout: after bob signs out at authd, the page asks for a sign-in again"
signin bob 'bob password'
BOB_SESSION=$TOKEN
token_label=bob-bcl visit "$BOB_SESSION" /any/
expect_eq "bob: /any/ 200" 200 "$STATUS"
grep -v $'\tauth\t' "$RP_DIR/jar.bob-bcl" >"$RP_DIR/jar.rp-only"  # the RP's session cookie alone
rp_page() { curl -s -b "$RP_DIR/jar.rp-only" -o /dev/null -w '%{http_code} %{redirect_url}' "$RP/any/"; }
expect_eq "the RP's own session lets bob in" "200 " "$(rp_page)"
http POST /signout -H "Authorization: Bearer $BOB_SESSION"
expect_status 204 "bob signs out at authd"
for ((i = 0; i < 50; i++)); do [[ $(rp_page) == 200* ]] || break; sleep 0.2; done
expect_match "the RP's session ended: to authd's /authorize" "^302 $BASE_URL/authorize\?" "$(rp_page)"

step "sign-out through the end-session endpoint"
JAR=$RP_DIR/jar.admin
OUT=$(curl -s -L --max-redirs 10 -b "$JAR" -c "$JAR" -o /dev/null -w '%{http_code} %{url_effective}' \
  "$RP/admin/callback?logout=$(printf %s "$RP/bye.html" | jq -sRr @uri)")
expect_eq "back at the post-logout page" "200 $RP/bye.html" "$OUT"
TOKEN=$ADMIN_TOKEN auth_get /me
expect_status 401 "the admin's authd session has ended too"
finish
