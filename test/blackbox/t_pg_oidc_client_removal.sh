#!/usr/bin/env bash
# Attack: a removed OpenID client kept working on the other nodes. Two front
# nodes share one PostgreSQL: a client's access token and refresh token,
# issued on A, work on B; an admin removes the client on A, and at once B
# refuses its access token at /userinfo and its refresh token at /token (no
# cache on any node keeps the client alive), while A's removal answer and the
# audit line say its refresh family and alice's consent were revoked.
# Before that, the provider's steps across the nodes: a request pushed to A
# (RFC 9126) authorized on B, B's code redeemed on A, an access token revoked
# on B and introspected on A, a refresh family ended on B and seen on A.
# The same for a service client (client_credentials): its token from A acts
# as its role on B until it is removed on A. And a private_key_jwt assertion
# accepted on A is a replay on B (its jti is remembered in the database).
# A device code (RFC 8628) made on A is polled on A and B alike (pending on
# one, slow_down on the other: one poll clock), allowed by alice at B's
# /device, redeemed on A. Back-channel logout: a sign-out on A and one on B
# each reach the relying party (a receiver verifying with jose) exactly once,
# though both nodes' senders poll the outbox; and a logout whose sending node
# is killed (SIGKILL) mid-POST is delivered by the other node once the
# sender's lease (backchannel_logout_lease, 5 s here) has run out. An
# ID-token key rotated by authctl signs the next ID tokens of both nodes.
# Directory users (a real slapd, slapd.sh) on both nodes, the attack being a
# node that keeps its own, older idea of a directory account: a token from A
# works on B (also when first used there after directory_cache_ttl: B asks
# the directory, no 503); a group membership removed and an account locked (ppolicy
# pwdAccountLockedTime) in the directory are enforced by both nodes within
# directory_cache_ttl, for the access token and the refresh token alike; a
# TOTP factor enrolled on A (kept with the entry's stable id) is asked for
# and accepted at sign-in on B; authctl directory test answers the same with
# either node's configuration.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"
# shellcheck source=oidc_rp.sh
source "$_HARNESS_DIR/oidc_rp.sh"
# shellcheck source=slapd.sh
source "$_HARNESS_DIR/slapd.sh"

pg_nodes_database
slapd_setup
at_exit slapd_cleanup
slapd_start
export AUTHD_DIRECTORY_URLS=$SLAPD_URL AUTHD_DIRECTORY_BIND_DN=$SLAPD_SERVICE_DN \
  AUTHD_DIRECTORY_BIND_PASSWORD_FILE=$SLAPD_DIR/service.pw AUTHD_DIRECTORY_USER_BASE=$SLAPD_SUFFIX \
  AUTHD_DIRECTORY_ADMIN_GROUPS="cn=admins,ou=groups,$SLAPD_SUFFIX" \
  AUTHD_DIRECTORY_EDITOR_GROUPS="cn=editors,ou=groups,$SLAPD_SUFFIX" \
  AUTHD_DIRECTORY_WRITER_GROUPS="cn=writers,ou=groups,$SLAPD_SUFFIX" \
  AUTHD_DIRECTORY_CACHE_TTL=2 AUTHD_DIRECTORY_STALE_LIMIT=30

export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600 \
  AUTHD_BACKCHANNEL_LOGOUT_LEASE=5
make_temp_dir AUDIT_DIR audit
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log

pg_nodes_two
pg_ctl_dir

CB=http://127.0.0.1:9/cb
OUT=$(ctl client add Forum --redirect-uri "$CB" --scope openid profile offline_access 2>/dev/null)
FORUM=$(sed -n 's/^client_id: //p' <<<"$OUT"); FORUM_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $FORUM && -n $FORUM_SECRET ]] || fail "Forum registered"
printf '%s' 'root password' | ctl add root admin >/dev/null 2>&1
printf '%s' 'alice password' | ctl add alice user >/dev/null 2>&1
http POST "$A/signin" -H "$(basic 'root:root password')"; ROOT=$(json .token)
http POST "$A/signin" -H "$(basic 'alice:alice password')"; COOKIE=$(json .token)
[[ -n $ROOT && -n $COOKIE ]] || fail "root and alice signed in on A"

step "alice allows Forum on A; its tokens work on B"
VERIFIER=$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
CHALLENGE=$(printf '%s' "$VERIFIER" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
AUTHZ="response_type=code&scope=openid%20profile%20offline_access&client_id=$FORUM&redirect_uri=$CB&code_challenge=$CHALLENGE&code_challenge_method=S256"
http POST "$A/authorize/consent" -H "Cookie: auth=$COOKIE" -H "Origin: $A" \
  --data-urlencode "request=$AUTHZ" --data-urlencode decision=allow
expect_status 200 "alice allows Forum on A"
http GET "$A/authorize?$AUTHZ" -H "Cookie: auth=$COOKIE"
CODE=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
http POST "$A/token" -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
expect_status 200 "Forum's tokens from A"
ACCESS=$(json .access_token); REFRESH=$(json .refresh_token)
http GET "$B/userinfo" -H "Authorization: Bearer $ACCESS"
expect_status 200 "Forum's access token works on B"
http POST "$B/token" -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH"
expect_status 200 "Forum refreshes on B"
REFRESH=$(json .refresh_token); ACCESS=$(json .access_token)

step "a request pushed to A is used on B, B's code is redeemed on A, a revocation on B is seen on A"
http POST "$A/par" -u "$FORUM:$FORUM_SECRET" -d "$AUTHZ&state=par1"
expect_status 201 "pushed to A"
PUSHED=$(json .request_uri)
http GET "$B/authorize?client_id=$FORUM&request_uri=$(printf %s "$PUSHED" | jq -sRr @uri)" -H "Cookie: auth=$COOKIE"
expect_match "B authorizes A's pushed request" "^$CB\?code=.*state=par1" "$(header Location)"
CODE=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
http GET "$A/authorize?client_id=$FORUM&request_uri=$(printf %s "$PUSHED" | jq -sRr @uri)" -H "Cookie: auth=$COOKIE"
expect_status 400 "and A knows it is used"
http POST "$A/token" -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
expect_status 200 "A redeems B's code"
PAR_ACCESS=$(json .access_token); PAR_REFRESH=$(json .refresh_token)
for token in "$PAR_ACCESS" "$PAR_REFRESH"; do
  http POST "$B/revoke" -u "$FORUM:$FORUM_SECRET" --data-urlencode "token=$token"
  expect_status 200 "revoked on B"
  http POST "$A/introspect" -u "$FORUM:$FORUM_SECRET" --data-urlencode "token=$token"
  expect_json "A's introspection says inactive at once" .active false
done

step "removed on A: refused on B at once"
http DELETE "$A/admin/clients/$FORUM" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin removes Forum on A"
expect_json "its refresh family ended" .refresh_families_ended 1
expect_json "alice's consent deleted" .consents_deleted 1
http GET "$B/userinfo" -H "Authorization: Bearer $ACCESS"
expect_status 401 "B refuses Forum's access token at /userinfo"
http GET "$A/userinfo" -H "Authorization: Bearer $ACCESS"
expect_status 401 "so does A"
http POST "$B/token" -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH"
expect_status 401 "B refuses Forum's refresh token"
expect_match "audited with what was revoked" "client $FORUM removed: 1 refresh families ended, 1 consents deleted" \
  "$(grep '"client_removed"' "$AUTHD_AUDIT_LOG")"

step "a service client: its token from A works on B until it is removed; an assertion once across nodes"
KEYS=$(mktemp -d)
at_exit rm -rf "$KEYS"
/usr/bin/python3 - "$KEYS" <<'PY' || fail "PyJWT made a key pair"
import json, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
key = ec.generate_private_key(ec.SECP256R1())
open(sys.argv[1] + "/key.pem", "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                               serialization.NoEncryption()))
jwk = json.loads(ECAlgorithm.to_jwk(key.public_key()))
jwk.update(kid="k1", alg="ES256", use="sig")
open(sys.argv[1] + "/jwks.json", "w").write(json.dumps({"keys": [jwk]}))
PY
OUT=$(ctl client add Job --grant client_credentials --role writer --jwks "$KEYS/jwks.json" 2>/dev/null)
JOB=$(sed -n 's/^client_id: //p' <<<"$OUT")
[[ -n $JOB ]] || fail "a private_key_jwt service client registered: $OUT"
ASSERTION=$(/usr/bin/python3 - "$KEYS/key.pem" "$JOB" "$A/token" "$B/token" <<'PY'
import sys, time, uuid, jwt
pem, client, *aud = sys.argv[1:]
now = int(time.time())
print(jwt.encode({"iss": client, "sub": client, "aud": aud, "jti": str(uuid.uuid4()), "iat": now, "exp": now + 60},
                 open(pem, "rb").read(), algorithm="ES256", headers={"kid": "k1"}))
PY
)
with_assertion() {  # NODE
  http POST "$1/token" --data-urlencode grant_type=client_credentials --data-urlencode "client_assertion=$ASSERTION" \
    --data-urlencode client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer
}
with_assertion "$A"
expect_status 200 "PyJWT's assertion (ES256) on A"
JOB_TOKEN=$(json .access_token)
with_assertion "$B"
expect_status 401 "the same assertion on B: a replay"
http POST "$B/records" -H "Authorization: Bearer $JOB_TOKEN" -H 'Content-Type: application/json' --data-binary '{"title":"job"}'
expect_status 201 "the service token from A creates a record on B (writer)"
http DELETE "$B/records/$(json ._id)" -H "Authorization: Bearer $JOB_TOKEN"
expect_status 403 "and may not delete it"
http DELETE "$A/admin/clients/$JOB" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin removes the service client on A"
http GET "$B/records" -H "Authorization: Bearer $JOB_TOKEN"
expect_status 401 "B refuses its token at once"

step "the ID-token key rotated on a third machine (authctl key rotate --id-token): both nodes use it at once"
http GET "$A/.well-known/jwks.json"
OLD_KID=$(json '.keys[0].kid')
NEW_KID=$(ctl key rotate --id-token 2>/dev/null)
[[ -n $NEW_KID && $NEW_KID != "$OLD_KID" ]] || fail "a new ID-token key: '$NEW_KID'"
http GET "$B/.well-known/jwks.json"
expect_eq "B's JWKS publishes the old and the new key" "$(printf '%s\n' "$OLD_KID" "$NEW_KID" | sort | paste -sd' ')" \
  "$(json '[.keys[].kid] | sort | join(" ")')"

step "a device code made on A: polled on both nodes with one clock, allowed on B, redeemed on A"
OUT=$(ctl client add TV --grant device_code --scope openid profile 2>/dev/null)
TV=$(sed -n 's/^client_id: //p' <<<"$OUT"); TV_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $TV && -n $TV_SECRET ]] || fail "a device client registered: $OUT"
poll() {  # NODE
  http POST "$1/token" -u "$TV:$TV_SECRET" --data-urlencode grant_type=urn:ietf:params:oauth:grant-type:device_code \
    --data-urlencode "device_code=$DEVICE"
}
# The poll interval is the default 5 s (whole seconds: with 1 s, a poll on B
# just after one on A may fall in the next second and be on time).
http POST "$A/device_authorization" -u "$TV:$TV_SECRET" --data-urlencode "scope=openid profile"
expect_status 200 "device codes from A"
DEVICE=$(json .device_code); USER_CODE=$(json .user_code)
poll "$A"
expect_json "polled on A: authorization_pending" .error authorization_pending
poll "$B"
expect_json "on B at once: slow_down (A's poll counted)" .error slow_down
poll "$A"
expect_json "and on A at once again: slow_down" .error slow_down
http POST "$B/device" -H "Cookie: auth=$COOKIE" -H "Origin: $B" --data-urlencode "user_code=$USER_CODE"
expect_status 200 "B's /device knows A's user code"
http POST "$B/device" -H "Cookie: auth=$COOKIE" -H "Origin: $B" --data-urlencode "user_code=$USER_CODE" \
  --data-urlencode decision=allow
expect_status 200 "alice allows it on B"
poll "$A"
expect_status 200 "A hands the device its tokens"
DEVICE_ACCESS=$(json .access_token); DEVICE_SUB=$(jwt_payload "$(json .id_token)" | jq -r .sub)
expect_eq "its ID token, signed on A, names the new key" "$NEW_KID" "$(jwt_header "$(json .id_token)" | jq -r .kid)"
http GET "$B/userinfo" -H "Authorization: Bearer $DEVICE_ACCESS"
expect_eq "alice's, as B's userinfo says" "alice $DEVICE_SUB" "$(json '"\(.preferred_username) \(.sub)"')"
poll "$B"
expect_json "then the device code is used on B too" .error invalid_grant

step "directory users on both nodes: one sign-in, one directory state, one second factor"
S=$SLAPD_SUFFIX
dpw() { printf '%s directory password' "$1"; }
http POST "$A/signin" -H "$(basic "wendy:$(dpw wendy)")"
expect_status 200 "wendy (writers) signs in on A"
WENDY=$(json .token); WENDY_SIGNED_IN=$(date +%s)
http POST "$A/signin" -H "$(basic "bob:$(dpw bob)")"
expect_status 200 "bob (directory group editors) signs in on A"
BOB=$(json .token)
http POST "$B/records" -H "Authorization: Bearer $BOB" -H 'Content-Type: application/json' --data-binary '{"t":"by bob"}'
expect_status 201 "A's token creates a record on B"
DIR_ID=$(json ._id)
http PUT "$B/records/$DIR_ID" -H "Authorization: Bearer $BOB" -H 'Content-Type: application/json' --data-binary '{"t":"bob on B"}'
expect_status 200 "and updates it there (editor)"
http POST "$A/signin" -H "$(basic "eve:$(dpw eve)")"
expect_status 200 "eve (admins) signs in on A"
EVE=$(json .token); EVE_REFRESH=$(cookie_of refresh)
expect_ne "with a refresh token" "" "$EVE_REFRESH"
refresh_on() { http POST "$1/token/refresh" -H 'Content-Type: application/json' --data-binary "{\"refresh_token\":\"$2\"}"; }
refresh_on "$B" "$EVE_REFRESH"
expect_status 200 "eve's refresh token from A refreshes on B"
EVE_REFRESH=$(json .refresh_token)
for n in A B; do
  node=${NODE_URL[${n,}]}
  http GET "$node/me" -H "Authorization: Bearer $EVE"
  expect_json "eve's token: admin on $n" .role admin
done

status_of() { curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }
# Polls every 50 ms until `curl ARGS` answers WANT; prints the milliseconds
# since the directory changed (CHANGED, $EPOCHREALTIME), or "timeout" past
# directory_cache_ttl (2 s) and a poll's slack.
within_ttl() {
  local want=$1 got ms
  shift
  while :; do
    got=$(status_of "$@")
    ms=$(( (${EPOCHREALTIME/./} - ${CHANGED/./}) / 1000 ))
    [[ $got == "$want" ]] && { echo "$ms"; return 0; }
    ((ms > 2300)) && { echo "timeout (last $got)"; return 1; }
    sleep 0.05
  done
}
ldap_modify <<EOF
dn: cn=editors,ou=groups,$S
changetype: modify
delete: member
member: uid=bob,ou=people,$S

dn: uid=eve,ou=people,$S
changetype: modify
add: pwdAccountLockedTime
pwdAccountLockedTime: 000001010000Z
EOF
expect_eq "ldapmodify: bob out of editors, eve locked" 0 "$?"
CHANGED=$EPOCHREALTIME
for n in A B; do
  node=${NODE_URL[${n,}]}
  took=$(within_ttl 403 -X PUT -H "Authorization: Bearer $BOB" -H 'Content-Type: application/json' -d '{"t":2}' "$node/records/$DIR_ID")
  expect_match "bob (a writer now) may not update on $n within directory_cache_ttl (after $took ms)" '^[0-9]+$' "$took"
  took=$(within_ttl 401 -H "Authorization: Bearer $EVE" "$node/records")
  expect_match "eve's token (locked) refused on $n within directory_cache_ttl (after $took ms)" '^[0-9]+$' "$took"
done
http GET "$A/me" -H "Authorization: Bearer $BOB"
expect_json "bob's role on A" .role writer
for n in A B; do
  node=${NODE_URL[${n,}]}
  refresh_on "$node" "$EVE_REFRESH"
  expect_status 401 "eve's refresh token (locked) refused on $n"
done
ldap_unlock eve
expect_eq "ldapmodify: eve unlocked" 0 "$?"
CHANGED=$EPOCHREALTIME
took=$(within_ttl 200 -X POST -H 'Content-Type: application/json' -d "{\"refresh_token\":\"$EVE_REFRESH\"}" "$B/token/refresh")
expect_match "unlocked: the same refresh token works on B again within directory_cache_ttl (after $took ms)" '^[0-9]+$' "$took"

# B has not checked wendy, and her sign-in is older than directory_cache_ttl
# now (whole seconds): B asks the directory before it answers (a store
# thread waits for the check), instead of a 503 her client would have to retry.
while (($(date +%s) <= WENDY_SIGNED_IN + 2)); do sleep 0.1; done
http GET "$B/records" -H "Authorization: Bearer $WENDY"
expect_status 200 "wendy's token from A, first used on B after directory_cache_ttl: answered"
http POST "$A/me/mfa/totp" -H "Authorization: Bearer $WENDY" -H 'Content-Type: application/json' --data-binary '{}'
expect_status 200 "wendy begins a TOTP enrolment on A"
SECRET=$(json .secret)
# Confirmed with this step's code; B gets the next step's (a step either
# side of the server's is accepted, each once): no waiting for a fresh step.
http POST "$A/me/mfa/totp/confirm" -H "Authorization: Bearer $WENDY" -H 'Content-Type: application/json' \
  --data-binary "{\"code\":\"$(oathtool --totp -b "$SECRET")\"}"
expect_status 200 "and confirms it with oathtool's code"
WENDY_UUID=$(ldapsearch -x -LLL -H "$SLAPD_LDAPI" -D "$SLAPD_ROOT_DN" -w "$SLAPD_ROOT_PW" -b "uid=wendy,ou=people,$S" \
  -s base entryUUID | sed -n 's/^entryUUID: //p')
http GET "$B/admin/users/wendy" -H "Authorization: Bearer $ROOT"
expect_json "her account is linked to the entry's entryUUID (B's admin API)" \
  "any(.links[]; . == \"directory:$WENDY_UUID\")" true
http POST "$B/signin" -H "$(basic "wendy:$(dpw wendy)")"
expect_status 401 "on B, her password alone: the second factor is asked for"
expect_json "MFA Required" .error "MFA Required"
MFA=$(json .mfa_token)
http POST "$B/signin/mfa" -H 'Content-Type: application/json' \
  --data-binary "$(jq -nc --arg t "$MFA" --arg c "$(oathtool --totp -b --now="@$(($(date +%s) + 30))" "$SECRET")" '{mfa_token:$t,code:$c}')"
expect_status 200 "B accepts the code of the factor enrolled on A"
http GET "$B/me" -H "Authorization: Bearer $(json .token)"
expect_json "wendy signed in on B" .username wendy

for node in a b; do
  AUTHD_STATE_DIR=${NODE_DIR[$node]} "$AUTHCTL_BIN" directory test bob >"$SLAPD_DIR/test-$node.out" 2>&1
  expect_eq "authctl directory test bob with node $node's configuration: exit 0" 0 "$?"
done
expect_eq "the same answer for both nodes" "$(cat "$SLAPD_DIR/test-a.out")" "$(cat "$SLAPD_DIR/test-b.out")"
expect_match "bob's groups and role as the directory has them now" 'role +writer' "$(cat "$SLAPD_DIR/test-a.out")"

step "back-channel logout: a sign-out on either node reaches the relying party once"
BCL_PORT=$(pick_port) || fail "a free port for the logout receiver"
BCL_PID=
stop_at_exit BCL_PID "logout receiver"
make_temp_dir BCL_DIR logout-receiver
OUT=$(ctl client add Shop --redirect-uri "$CB" --scope openid --backchannel-logout-uri "http://127.0.0.1:$BCL_PORT/logout" \
  --backchannel-logout-session-required 2>/dev/null)
SHOP=$(sed -n 's/^client_id: //p' <<<"$OUT"); SHOP_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $SHOP && -n $SHOP_SECRET ]] || fail "Shop registered with a logout URI: $OUT"
receiver_start() {  # [HOLD]: test/oidc/rp.mjs receive, the first HOLD accepted POSTs never answered
  RECEIVE_HOLD=${1:-0} setsid bash -c 'cd "$1" && NO_PROXY="*" exec node rp.mjs receive "$2" "$3" "$4" "$5"' _ \
    "$RP_DIR" "$B" "$SHOP" "$BCL_PORT" "$BCL_DIR/received" </dev/null >>"$BCL_DIR/receiver.log" 2>&1 &
  BCL_PID=$!
  wait_for_port "$BCL_PORT" "$BCL_PID" 10 || fail "the logout receiver starts ($(cat "$BCL_DIR/receiver.log"))"
}
# Lines of the receiver for session $SID: `held` ones or answered ones.
received() { grep -F "\"sid\":\"$SID\"" "$BCL_DIR/received" 2>/dev/null | jq -r 'select(.error == null) | if .held then "held" else "answered" end' | grep -cx "$1"; }
wait_received() {  # KIND SECS
  local i
  for ((i = 0; i < $2 * 10; i++)); do (($(received "$1") > 0)) && return 0; sleep 0.1; done
  return 1
}
SHOP_AUTHZ="response_type=code&scope=openid&client_id=$SHOP&redirect_uri=$CB&code_challenge=$CHALLENGE&code_challenge_method=S256"
http POST "$B/authorize/consent" -H "Cookie: auth=$COOKIE" -H "Origin: $B" \
  --data-urlencode "request=$SHOP_AUTHZ" --data-urlencode decision=allow
expect_status 200 "alice allows Shop"
shop_session() {  # a|b: alice signs in on that node and to Shop through B (issuer B); sets SHOP_COOKIE, SID
  http POST "${NODE_URL[$1]}/signin" -H "$(basic 'alice:alice password')"; SHOP_COOKIE=$(json .token)
  http GET "$B/authorize?$SHOP_AUTHZ" -H "Cookie: auth=$SHOP_COOKIE"
  http POST "$B/token" -u "$SHOP:$SHOP_SECRET" --data-urlencode grant_type=authorization_code \
    --data-urlencode "code=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')" \
    --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$VERIFIER"
  expect_status 200 "alice signs in to Shop (her session from node $1)"
  SID=$(jwt_payload "$(json .id_token)" | jq -r .sid)
}
receiver_start
declare -A SIGNED_OUT=()
for node in a b; do
  shop_session "$node"
  [[ $node == b ]] && expect_eq "an ID token signed on B names the new key too" "$NEW_KID" "$(jwt_header "$(json .id_token)" | jq -r .kid)"
  http POST "${NODE_URL[$node]}/signout" -H "Authorization: Bearer $SHOP_COOKIE"
  expect_status 204 "alice signs out on node $node"
  SIGNED_OUT[$node]=$SID
done
for node in a b; do
  SID=${SIGNED_OUT[$node]}
  wait_received answered 10 || fail "no logout token for the sign-out on $node ($(tail -3 "$BCL_DIR/received"))"
done
sleep 2  # both senders poll every second: time for a second delivery, were there one
for node in a b; do
  SID=${SIGNED_OUT[$node]}
  expect_eq "the sign-out on $node: its logout token reached Shop once (jose verified it)" 1 "$(received answered)"
done

step "back-channel logout: its sender killed mid-POST, the other node delivers it after the lease"
stop_group "$BCL_PID" "logout receiver"
receiver_start 1
shop_session a
http POST "$A/signout" -H "Authorization: Bearer $SHOP_COOKIE"
expect_status 204 "alice signs out on A; Shop will hang on the POST"
wait_received held 10 || fail "no logout POST reached Shop ($(tail -3 "$BCL_DIR/received"))"
SENDER_PID=$(ss -Htnp state established "( dport = :$BCL_PORT )" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1)
SENDER=$(pg_node_of_pid "$SENDER_PID") || fail "the sending process ($SENDER_PID) is a node's authd"
if [[ $SENDER == a ]]; then OTHER=$B; else OTHER=$A; fi
pg_node_authd_kill "$SENDER"
pass "node $SENDER's authd killed (SIGKILL) while its POST hangs"
T0=$SECONDS
wait_received answered 15 || fail "the logout was not delivered after the kill ($(tail -3 "$BCL_DIR/received"))"
WAITED=$((SECONDS - T0))
expect_match "by the other node once the lease ran out (after $WAITED s, lease 5 s)" '^[2-9]$' "$WAITED"
sleep 2
expect_eq "delivered once (jose verified it)" 1 "$(received answered)"
http GET "$OTHER/metrics"
expect_eq "the survivor's outbox is empty" 0 "$(awk '$1 == "authd_backchannel_logout_outbox_depth" { print $2 }' <<<"$BODY")"
expect_eq "three deliveries audited, each at its first attempt" 3 \
  "$(grep '"backchannel_logout"' "$AUTHD_AUDIT_LOG" | grep -c 'delivered (HTTP 200, attempt 1)')"
finish
