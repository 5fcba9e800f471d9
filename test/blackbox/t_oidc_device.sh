#!/usr/bin/env bash
# The device authorization grant (RFC 8628, docs/openid-provider.md), driven
# by a relying party nobody here wrote: npm openid-client's
# initiateDeviceAuthorization and pollDeviceAuthorizationGrant (test/oidc/rp.mjs
# device), and by Debian's oidc-agent (oidc-gen --flow device, oidc-token; the
# step says skip when it is not installed), while curl with alice's `auth`
# cookie is her browser at /device.
# Attacks it stops: a device allowed without the person being asked (the page
# names the application, what it asks for and the code before anything is
# allowed); guessing someone else's user code (five wrong codes, then 429,
# audited); a device that polls too fast (slow_down), polls after a denial or
# with a used, made-up or another client's device code, or refreshes with
# another client's refresh token; a client not registered for the grant, or
# asking for a scope it was not given; a code allowed from another site's form
# (403) or without a session (401).
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600 AUTHD_OIDC_DEVICE_POLL_INTERVAL=1
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

# shellcheck source=oidc_rp.sh
source "$_HARNESS_DIR/oidc_rp.sh"
make_temp_dir W device

signup alice 'alice password'
signin alice 'alice password'
COOKIE=$TOKEN
ALICE_ID=$(account_field alice id)
page() { http "$1" "$2" -H "Cookie: auth=$COOKIE" -H "Origin: $BASE_URL" "${@:3}"; }
OUT=$(authctl client add TV --public --grant device_code --scope openid profile offline_access 2>/dev/null)
TV=$(sed -n 's/^client_id: //p' <<<"$OUT")
OUT=$(authctl client add Box --grant device_code --scope openid 2>/dev/null)
BOX=$(sed -n 's/^client_id: //p' <<<"$OUT"); BOX_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
OUT=$(authctl client add Wiki --redirect-uri http://127.0.0.1:9/cb 2>/dev/null)
WIKI=$(sed -n 's/^client_id: //p' <<<"$OUT"); WIKI_SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
[[ -n $TV && -n $BOX && -n $BOX_SECRET && -n $WIKI ]] || fail "three clients registered"

step "discovery"
http GET /.well-known/openid-configuration
expect_json "the device authorization endpoint" .device_authorization_endpoint "$BASE_URL/device_authorization"
expect_json "the device_code grant" '.grant_types_supported | index("urn:ietf:params:oauth:grant-type:device_code") != null' true

step "openid-client's device flow, allowed by alice in her browser"
(cd "$RP_DIR" && NO_PROXY='*' exec node rp.mjs device "$BASE_URL" "$TV" - none - "openid profile offline_access") \
  >"$W/device.out" 2>&1 &
RP=$!
for ((i = 0; i < 100; i++)); do [[ -s $W/device.out ]] && break; sleep 0.1; done
STARTED=$(head -n 1 "$W/device.out")
USER_CODE=$(jq -r .user_code <<<"$STARTED" 2>/dev/null)
expect_match "a user code of 8 consonants" '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' "$USER_CODE"
expect_eq "the page to type it at" "$BASE_URL/device" "$(jq -r .verification_uri <<<"$STARTED")"
expect_eq "the interval" 1 "$(jq -r .interval <<<"$STARTED")"
COMPLETE=$(jq -r .verification_uri_complete <<<"$STARTED")
http GET "$COMPLETE"
expect_status 302 "signed out: to the sign-in page"
expect_match "and back to /device with the code" '^/login\?rd=%2Fdevice%3Fuser_code%3D' "$(header Location)"
page GET "$COMPLETE"
expect_status 200 "signed in: the form, the code filled in"
expect_match "filled in" "value=\"$USER_CODE\"" "$BODY"
LOWER=$(tr 'A-Z' 'a-z' <<<"${USER_CODE/-/ }")
page POST /device --data-urlencode "user_code=$LOWER"
expect_status 200 "typed loosely (lower case, a space): the question"
expect_match "it names the application and the code" "Allow TV on your device\\?.*$USER_CODE" "$BODY"
expect_match "and what it asks for" '<li>offline_access</li>' "$BODY"
expect_eq "nothing is allowed yet" 0 "$(grep -c 'client '"$TV"' allowed' "$AUTHD_AUDIT_LOG")"
http POST /device -H "Cookie: auth=$COOKIE" -H 'Origin: http://evil.example' \
  --data-urlencode "user_code=$USER_CODE" --data-urlencode decision=allow
expect_status 403 "an allow posted from another site"
http POST /device -H "Origin: $BASE_URL" --data-urlencode "user_code=$USER_CODE" --data-urlencode decision=allow
expect_status 401 "an allow without a session"
page POST /device --data-urlencode "user_code=$USER_CODE" --data-urlencode decision=allow
expect_status 200 "alice allows it"
expect_match "the page says go back to the device" 'go back to your device' "$BODY"
wait "$RP"
RESULT=$(tail -n 1 "$W/device.out")
expect_eq "openid-client gets alice's ID token" "$ALICE_ID" "$(jq -r .claims.sub <<<"$RESULT")"
expect_eq "and her userinfo" alice "$(jq -r .userinfo.preferred_username <<<"$RESULT")"
expect_ne "and a refresh token (offline_access)" null "$(jq -r .refresh_token <<<"$RESULT")"
expect_match "audited" "\"oidc_device\".*client $TV allowed" "$(cat "$AUTHD_AUDIT_LOG")"
page POST /device --data-urlencode "user_code=$USER_CODE"
expect_status 400 "a used code is no code"

step "a device's refresh token refreshes (RFC 8628 §3.5), for its own client only"
RT=$(jq -r .refresh_token <<<"$RESULT")
refresh() { http POST /token "$@" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$RT"; }
refresh -u "$WIKI:$WIKI_SECRET"
expect_json "another client presents it: invalid_grant" .error invalid_grant
refresh --data-urlencode "client_id=$TV"
expect_status 200 "TV, registered for device_code only, refreshes its own"
TOKEN=$(json .access_token) auth_get /userinfo
expect_json "the new access token is alice's" .preferred_username alice

step "Debian's oidc-agent: oidc-gen --flow device, then oidc-token (and its refresh)"
if ! command -v oidc-gen >/dev/null || ! command -v oidc-agent >/dev/null; then
  echo "skip: oidc-agent is not installed (Debian package oidc-agent-cli; scripts/deps.sh test)"
else
  # An agent of this test's own: its socket and account files in $W, no
  # keyring, no D-Bus; the account file is encrypted with a throw-away password.
  export OIDC_CONFIG_DIR=$W/oidc-agent OIDC_ENCRYPTION_PW=throw-away-test-password
  mkdir -m 700 "$OIDC_CONFIG_DIR"
  AGENT=$(oidc-agent --json --socket-path="$W/agent.sock")
  export OIDC_SOCK=$W/agent.sock
  AGENT_PID=$(jq -r .dpid <<<"$AGENT")
  [[ $AGENT_PID =~ ^[0-9]+$ ]] && at_exit kill "$AGENT_PID"
  expect_eq "the agent listens in the test's directory" "$OIDC_SOCK" "$(jq -r .socket <<<"$AGENT")"
  timeout 30 oidc-gen tv --issuer "$BASE_URL" --client-id "$TV" --client-secret= --flow device \
    --scope "openid profile offline_access" --pw-env --no-url-call --prompt none </dev/null >"$W/gen.out" 2>&1 &
  GEN=$!
  for ((i = 0; i < 100; i++)); do grep -qs 'enter the code' "$W/gen.out" && break; sleep 0.1; done
  CODE=$(sed -n 's/.*enter the code: \([A-Z-]*\).*/\1/p' "$W/gen.out")
  expect_match "oidc-gen shows a user code" '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' "$CODE"
  expect_match "and where to type it" "^$BASE_URL/device\$" "$(grep -m1 '/device' "$W/gen.out")"
  page POST /device --data-urlencode "user_code=$CODE" --data-urlencode decision=allow
  expect_status 200 "alice allows it"
  wait "$GEN"
  expect_eq "oidc-gen finishes (exit 0)" 0 "$?"
  expect_match "and says so" 'Everything setup correctly' "$(cat "$W/gen.out")"
  AT=$(oidc-token tv)
  TOKEN=$AT auth_get /userinfo
  expect_json "oidc-token's access token is alice's at /userinfo" .preferred_username alice
  NEW=$(oidc-token --force-new tv)
  expect_eq "oidc-token --force-new: the agent refreshes, a new token" new \
    "$([[ -n $NEW && $NEW != "$AT" ]] && echo new)"
  TOKEN=$NEW auth_get /userinfo
  expect_json "and that one is alice's too" .preferred_username alice
  expect_match "the refresh audited" "refresh_token for client $TV" "$(cat "$AUTHD_AUDIT_LOG")"
fi

step "polling by hand: pending, slow_down, denied, used"
device_start() { http POST /device_authorization -u "$BOX:$BOX_SECRET" "$@"; }
poll() { http POST /token -u "$1" --data-urlencode grant_type=urn:ietf:params:oauth:grant-type:device_code \
           --data-urlencode "device_code=$2"; }
device_start
expect_status 200 "codes for a confidential client"
expect_eq "no-store" no-store "$(header Cache-Control)"
DEVICE=$(json .device_code); CODE=$(json .user_code)
poll "$BOX:$BOX_SECRET" "$DEVICE"
expect_json "authorization_pending" .error authorization_pending
poll "$BOX:$BOX_SECRET" "$DEVICE"
expect_json "at once again: slow_down" .error slow_down
poll "$TV:" "$DEVICE"
expect_json "another client's device_code" .error invalid_grant
page POST /device --data-urlencode "user_code=$CODE" --data-urlencode decision=deny
expect_status 200 "alice denies it"
sleep 1.1
poll "$BOX:$BOX_SECRET" "$DEVICE"
expect_json "access_denied" .error access_denied
poll "$BOX:$BOX_SECRET" "$DEVICE"
expect_json "then the code is gone" .error invalid_grant
poll "$BOX:$BOX_SECRET" "made-up"
expect_json "a made-up device_code" .error invalid_grant

step "a client without the grant, a scope it lacks"
http POST /device_authorization -u "$WIKI:$WIKI_SECRET"
expect_json "a code-flow client: unauthorized_client" .error unauthorized_client
device_start --data-urlencode "scope=openid offline_access"
expect_json "a scope it was not given: invalid_scope" .error invalid_scope
http POST /device_authorization -u "$BOX:wrong"
expect_status 401 "a wrong secret"

step "guessing user codes: five wrong ones, then 429"
signup bob 'bob password'
signin bob 'bob password'
COOKIE=$TOKEN
device_start
CODE=$(json .user_code)
for ((i = 1; i <= 5; i++)); do
  page POST /device --data-urlencode user_code=BBBB-BBBB
  expect_status 400 "wrong code $i"
done
page POST /device --data-urlencode "user_code=$CODE"
expect_status 429 "then even the right one waits"
expect_match "Retry-After" '^[0-9]+$' "$(header Retry-After)"
expect_match "audited" 'too many wrong device codes' "$(cat "$AUTHD_AUDIT_LOG")"
finish
