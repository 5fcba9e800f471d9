#!/usr/bin/env bash
# Directory users against a real OpenLDAP (Debian slapd, started here: memberof
# and ppolicy overlays, a loopback port and ldapi://; slapd.sh). The attacks
# and failures it stops:
#  - a username with filter metacharacters ("al*", "alice)(uid=*") that would
#    widen the search to someone else's entry, a NUL byte, an over-long name,
#    an empty password (LDAP's unauthenticated bind answers "success"), a name
#    matching two entries, an entry behind a referral: none signs in;
#  - a directory account locked, or removed from its group, while its token is
#    in use: the token loses that access within directory_cache_ttl; so do the
#    tokens an OpenID client holds for it (introspection says inactive for
#    its access and refresh tokens, /userinfo 401, no refresh), until unlocked;
#  - the directory down: new directory sign-ins get 503 with a JSON error,
#    users checked recently keep access (directory_stale_limit), local users
#    are untouched; the first of two servers down: the second answers;
#  - a server whose certificate another CA signed (ldaps://, and StartTLS,
#    which ldap:// to a host that is not loopback must use): refused;
#  - a directory user's password, role or account changed in authd: 409 / refused;
#  - with directory_password_change = user, a password change by someone who
#    holds the session but not the current password, or to a password the
#    directory's policy refuses: refused; the change is the directory's (the
#    old password stops signing in, the old tokens end).
# Runs on lighttpd and on PostgreSQL only (its subject is authd's logic, not
# the front server).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/slapd.sh"

slapd_setup
at_exit slapd_cleanup
slapd_start
S=$SLAPD_SUFFIX

# The first server is a port nobody listens on: every sign-in below goes to the second.
DEAD_PORT=$(pick_port)
export AUTHD_DIRECTORY_URLS="ldap://127.0.0.1:$DEAD_PORT $SLAPD_URL"
export AUTHD_DIRECTORY_BIND_DN=$SLAPD_SERVICE_DN
export AUTHD_DIRECTORY_BIND_PASSWORD_FILE=$SLAPD_DIR/service.pw
export AUTHD_DIRECTORY_USER_BASE=$S
export AUTHD_DIRECTORY_ADMIN_GROUPS="cn=admins,ou=groups,$S"
export AUTHD_DIRECTORY_EDITOR_GROUPS="cn=editors,ou=groups,$S"
export AUTHD_DIRECTORY_WRITER_GROUPS="cn=writers,ou=groups,$S"
export AUTHD_DIRECTORY_CACHE_TTL=2
export AUTHD_DIRECTORY_STALE_LIMIT=30
export AUTHD_DIRECTORY_NETWORK_TIMEOUT=2
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600
stack_start

CT='Content-Type: application/json'
pw() { printf '%s directory password' "$1"; }
token_of() { signin "$1" "$(pw "$1")"; expect_status 200 "$2"; printf -v "$3" '%s' "Authorization: Bearer $TOKEN"; }
wait_ttl() { sleep 3.5; }  # directory_cache_ttl (2 s) and a refresh (every ttl/2)

step "sign-in, groups to roles (the first server down, the second answers)"
token_of alice "alice (group admins) signs in" ALICE
http GET /me -H "$ALICE"
expect_json "alice's role" .role admin
expect_json "alice's source shows in providers" '.providers | index("directory") != null' true
expect_json "alice's email from the directory" .email alice@example.org
token_of bob "bob (editors and writers) signs in" BOB
http GET /me -H "$BOB"
expect_json "bob gets the most capable of his groups' roles" .role editor
token_of wendy "wendy (writers) signs in" WENDY
http GET /me -H "$WENDY"
expect_json "wendy's role" .role writer

http POST /records -H "$WENDY" -H "$CT" --data-binary '{"title":"by wendy"}'
expect_status 201 "wendy (writer) creates"
R1=$(json ._id)
http PUT "/records/$R1" -H "$WENDY" -H "$CT" --data-binary '{"title":"x"}'
expect_denied "wendy (writer) updates" 403
http PUT "/records/$R1" -H "$BOB" -H "$CT" --data-binary '{"title":"by bob"}'
expect_status 200 "bob (editor) updates"
http DELETE "/records/$R1" -H "$BOB"
expect_denied "bob (editor) deletes" 403

signin carol "$(pw carol)"
expect_status 500 "carol (in no mapped group, directory_default_role none) is refused"
signin alice 'not her password'
expect_status 500 "a wrong directory password"

step "hostile input never signs in"
signin 'al*' "$(pw alice)"
expect_status 500 "al* with alice's password (a wildcard would find alice's entry)"
signin 'alice)(uid=*' "$(pw alice)"
expect_status 500 "alice)(uid=* with alice's password (a clause added to the filter)"
signin '*' "$(pw alice)"
expect_status 500 "* with alice's password"
signin alice ''
expect_status 500 "alice with an empty password (an unauthenticated bind would succeed)"
http POST /signin -H "Authorization: Basic $(printf 'alice\0x:%s' "$(pw alice)" | base64 -w0)"
expect_status 500 "a NUL byte in the username"
http POST /signin -H "Authorization: Basic $(printf 'alice:%s\0x' "$(pw alice)" | base64 -w0)"
expect_status 500 "a NUL byte in the password"
signin "$(printf 'a%.0s' {1..65})" "$(pw alice)"
expect_status 500 "a username over username_max_length"
signin twin 'twin password'
expect_status 500 "twin: the search matches two entries"
signin far 'far password'
expect_status 500 "far: an entry behind a referral (not followed)"
expect_eq "no account was made for a refused name" "" \
  "$(authctl list | awk '$1 == "twin" || $1 == "far" || $1 == "carol" || $1 ~ /[*()]/ { print $1 }')"

step "authd keeps the directory users' accounts, with their source"
expect_match "authctl list: alice's source" 'alice +admin .* directory$' "$(authctl list)"
expect_eq "authctl show --json: source" directory "$(authctl --json show alice | jq -r .source)"
http PUT /me/password -H "$ALICE" -H "$CT" --data-binary "{\"current_password\":\"$(pw alice)\",\"new_password\":\"another one\"}"
expect_status 409 "PUT /me/password of a directory user"
expect_match "the 409 says the directory manages it" 'directory manages' "$(json .error)"
OUT=$(authctl role alice user 2>&1); RC=$?
expect_eq "authctl role of a directory user: refused" 1 "$RC"
expect_match "authctl role: why" 'directory' "$OUT"
OUT=$(authctl delete alice 2>&1); RC=$?
expect_eq "authctl delete of a directory user: refused" 1 "$RC"
expect_match "authctl delete: why" 'directory manages' "$OUT"
http GET /admin/users -H "$ALICE"
expect_status 200 "GET /admin/users (alice, admin by her group)"
expect_json "the admin API shows bob's source" '.users[] | select(.username == "bob") | .source' directory
http PUT /admin/users/bob -H "$ALICE" -H "$CT" --data-binary '{"role":"admin"}'
expect_status 409 "the admin API re-roles a directory user"
expect_match "the 409 says the groups give the role" 'directory' "$(json .error)"
http DELETE /admin/users/bob -H "$ALICE"
expect_status 409 "the admin API deletes a directory user"
OUT=$(authctl mfa reset alice 2>&1); RC=$?
expect_eq "authctl mfa reset of a directory user: allowed" 0 "$RC"

step "authctl directory test"
OUT=$(authctl directory test bob 2>&1); RC=$?
expect_eq "directory test bob: exit 0" 0 "$RC"
expect_match "names the server that answered" "server +$SLAPD_URL" "$OUT"
expect_match "names the DN" "dn +uid=bob,ou=people,$S" "$OUT"
expect_match "lists the groups" "cn=editors,ou=groups,$S" "$OUT"
expect_match "names the role" 'role +editor' "$OUT"
OUT=$(authctl directory test nobody 2>&1); RC=$?
expect_eq "directory test nobody: exit 1" 1 "$RC"
expect_match "says no entry matches" 'no entry' "$OUT"

step "TLS from the test CA: ldaps://, and StartTLS required off loopback"
tls_test() {  # EXPECTED-EXIT DESCRIPTION [VAR=VALUE...]: authctl directory test bob with those settings
  local expected=$1 desc=$2 out rc
  shift 2
  out=$(env "$@" "$AUTHCTL_BIN" directory test bob 2>&1); rc=$?
  expect_eq "$desc" "$expected" "$rc"
  ((rc == expected)) || printf '     %s\n' "$out"
}
tls_test 0 "ldaps:// with the test CA: bob found" \
  AUTHD_DIRECTORY_URLS="$SLAPD_LDAPS_URL" AUTHD_DIRECTORY_CA_FILE="$SLAPD_DIR/ca.pem"
tls_test 1 "ldaps:// with a certificate from another CA: refused" \
  AUTHD_DIRECTORY_URLS="$SLAPD_LDAPS_URL" AUTHD_DIRECTORY_CA_FILE="$SLAPD_DIR/other-ca.pem"
if [[ -n $SLAPD_HOST_NAME ]]; then
  # The machine's name is not loopback to authd: StartTLS, checked against the CA.
  tls_test 0 "ldap://$SLAPD_HOST_NAME (not loopback): StartTLS with the test CA" \
    AUTHD_DIRECTORY_URLS="ldap://$SLAPD_HOST_NAME:$SLAPD_PORT" AUTHD_DIRECTORY_CA_FILE="$SLAPD_DIR/ca.pem"
  tls_test 1 "ldap://$SLAPD_HOST_NAME: StartTLS to a certificate of another CA is refused (no fallback to clear)" \
    AUTHD_DIRECTORY_URLS="ldap://$SLAPD_HOST_NAME:$SLAPD_PORT" AUTHD_DIRECTORY_CA_FILE="$SLAPD_DIR/other-ca.pem"
  tls_test 0 "directory_allow_plaintext = true: the same server in clear" \
    AUTHD_DIRECTORY_URLS="ldap://$SLAPD_HOST_NAME:$SLAPD_PORT" AUTHD_DIRECTORY_CA_FILE="$SLAPD_DIR/other-ca.pem" \
    AUTHD_DIRECTORY_ALLOW_PLAINTEXT=true
else
  echo "skip: the machine's name does not resolve to 127.0.0.1 (no StartTLS check)"
fi

step "a group removed and an account locked while the token is in use"
token_of eve "eve (admins) signs in" EVE
http GET /records -H "$EVE"
expect_status 200 "eve reads"
# An OpenID client eve signed in to (code flow, RFC 7636's example verifier).
CB=http://127.0.0.1:9/cb
OUT=$(authctl client add Forum --redirect-uri "$CB" --scope openid offline_access 2>/dev/null)
FORUM=$(sed -n 's/^client_id: //p' <<<"$OUT"); FORUM_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
AUTHZ="response_type=code&scope=openid%20offline_access&client_id=$FORUM&redirect_uri=$CB&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
http POST /authorize/consent -H "Cookie: auth=${EVE#Authorization: Bearer }" -H "Origin: $BASE_URL" \
  --data-urlencode "request=$AUTHZ" --data-urlencode decision=allow
http GET "/authorize?$AUTHZ" -H "Cookie: auth=${EVE#Authorization: Bearer }"
http POST /token -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')" --data-urlencode "redirect_uri=$CB" \
  --data-urlencode code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk
expect_status 200 "eve signs in to an OpenID client"
EVE_ACCESS=$(json .access_token); EVE_REFRESH=$(json .refresh_token)
introspect() { http POST /introspect -u "$FORUM:$FORUM_SECRET" --data-urlencode "token=$1"; }
introspect "$EVE_ACCESS"
expect_json "its access token introspects active" .active true
introspect "$EVE_REFRESH"
expect_json "its refresh token too" .active true
ldap_modify <<EOF
dn: cn=editors,ou=groups,$S
changetype: modify
delete: member
member: uid=bob,ou=people,$S

dn: cn=admins,ou=groups,$S
changetype: modify
delete: member
member: uid=alice,ou=people,$S

dn: uid=eve,ou=people,$S
changetype: modify
add: pwdAccountLockedTime
pwdAccountLockedTime: 000001010000Z
EOF
expect_eq "ldapmodify: groups changed, eve locked" 0 "$?"
wait_ttl
http PUT "/records/$R1" -H "$BOB" -H "$CT" --data-binary '{"title":"again"}'
expect_denied "bob's token after leaving editors (a writer now): update" 403
http GET /me -H "$BOB"
expect_json "bob's role now" .role writer
expect_eq "the stored account follows (authctl list)" writer "$(account_field bob role)"
http GET /records -H "$ALICE"
expect_denied "alice's token after leaving her only mapped group" 401
http GET /records -H "$EVE"
expect_denied "eve's token after her account was locked" 401
signin eve "$(pw eve)"
expect_status 500 "eve (locked) cannot sign in"
introspect "$EVE_ACCESS"
expect_json "the client's access token for eve (locked) introspects inactive" .active false
introspect "$EVE_REFRESH"
expect_json "its refresh token too" .active false
http GET /userinfo -H "Authorization: Bearer $EVE_ACCESS"
expect_status 401 "/userinfo refuses its access token"
refresh_eve() { http POST /token -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$EVE_REFRESH"; }
refresh_eve
expect_json "no refresh for eve (locked)" .error invalid_grant
ldap_unlock eve
expect_eq "ldapmodify: eve unlocked" 0 "$?"
wait_ttl
refresh_eve
expect_status 200 "unlocked: the same refresh token works again (nothing was rotated while she was locked)"

step "the directory down: cached users keep access, new sign-ins 503, local users untouched"
signup lou 'lou local password'
expect_status 201 "a local user signs up"
slapd_stop
sleep 3
http GET /records -H "$WENDY"
expect_status 200 "wendy's token, past directory_cache_ttl, within directory_stale_limit"
signin bob "$(pw bob)"
expect_status 503 "a directory sign-in while no server answers"
expect_json "the 503 says why" .detail "the directory cannot be reached: directory users cannot sign in now"
expect_header "the 503 says when to retry" Retry-After '^[0-9]+$'
signin lou 'lou local password'
expect_status 200 "the local user signs in"
slapd_start
sleep 1
signin bob "$(pw bob)"
expect_status 200 "the directory back: bob signs in"
http GET /records -H "$WENDY"
expect_status 200 "wendy's token still works"

step "directory_password_change = user: the directory changes the password, as the user"
authd_stop
export AUTHD_DIRECTORY_PASSWORD_CHANGE=user
authd_start || fail "authd restarts with directory_password_change = user"
ldap_modify <<EOF
dn: cn=default,ou=policies,$S
changetype: modify
add: pwdMinLength
pwdMinLength: 12
-
add: pwdCheckQuality
pwdCheckQuality: 2
EOF
expect_eq "ldapmodify: the password policy wants 12 characters" 0 "$?"
token_of wendy "wendy signs in" WENDY
change_password "$WENDY" 'not her password' 'wendy second secret'
expect_status 500 "a wrong current password: Invalid Login, as for a local user"
change_password "$WENDY" "$(pw wendy)" 'short one'
expect_status 400 "a new password the directory's policy refuses (pwdMinLength 12)"
expect_match "the 400 says the directory refused it" '^new_password refused by the directory: Password fails quality' \
  "$(json .error)"
change_password "$WENDY" "$(pw wendy)" 'wendy second secret'
expect_status 200 "the directory changes wendy's password"
NEW_WENDY="Authorization: Bearer $(json .token)"
http GET /records -H "$NEW_WENDY"
expect_status 200 "the token the change gave works"
http GET /records -H "$WENDY"
expect_denied "wendy's token from before the change ends" 401
signin wendy "$(pw wendy)"
expect_status 500 "the old password no longer signs in"
signin wendy 'wendy second secret'
expect_status 200 "the new password signs in"
expect_eq "the directory has the new password (ldapwhoami as wendy)" 0 \
  "$(ldapwhoami -x -H "$SLAPD_URL" -D "uid=wendy,ou=people,$S" -w 'wendy second secret' >/dev/null 2>&1; echo $?)"

step "no password in the logs"
expect_eq "authd.log holds no directory password" 0 \
  "$(grep -c 'directory password\|service secret\|second secret\|short one' "$STATE_DIR/authd.log")"

finish
