#!/usr/bin/env bash
# Attack: a removed OpenID client kept what it held. `authctl client remove`
# and DELETE /admin/clients/{id} deleted the registration only: the client's
# access tokens still worked at /userinfo until they expired, and its refresh
# families and every user's consent stayed in the store. An operator removing
# a compromised client must cut it off at once. Now removal ends all three in
# one transaction (the access tokens are refused because /userinfo finds no
# client for them), both ways of removing say how many, and the audit line
# (client_removed) says what was revoked. A client that is not removed keeps
# working (control). The same runs on PostgreSQL (blackbox-postgresql.*), and
# t_pg_oidc_client_removal.sh checks that a removal on one node holds on another.
source "$(dirname "$0")/harness.sh"
export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600
export AUTHD_ARGON2_ITERATIONS=1 AUTHD_ARGON2_MEMORY_KIB=1024
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

CB=http://127.0.0.1:9/cb
client_add() {  # NAME ARGS...: sets ID, SECRET
  local out
  out=$(authctl client add "$@" --redirect-uri "$CB" --scope openid profile offline_access 2>/dev/null)
  ID=$(sed -n 's/^client_id: //p' <<<"$out"); SECRET=$(sed -n 's/^client_secret: //p' <<<"$out")
  [[ -n $ID && -n $SECRET ]] || fail "client add $1"
}
client_add Forum; FORUM=$ID FORUM_SECRET=$SECRET
client_add Tool --first-party; TOOL=$ID TOOL_SECRET=$SECRET
client_add Keep --first-party; KEEP=$ID KEEP_SECRET=$SECRET
add_user root 'root password' admin
signin root 'root password'; ROOT=$TOKEN
signup alice 'alice password'
COOKIE=$TOKEN

# alice signs in to CLIENT (allowing it first when it asks): sets ACCESS and REFRESH.
tokens_for() {  # CLIENT SECRET
  local verifier challenge authz code
  verifier=$(head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
  challenge=$(printf '%s' "$verifier" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
  authz="response_type=code&scope=openid%20profile%20offline_access&client_id=$1&redirect_uri=$CB&code_challenge=$challenge&code_challenge_method=S256"
  http GET "/authorize?$authz" -H "Cookie: auth=$COOKIE"
  if [[ $STATUS == 200 ]]; then
    http POST /authorize/consent -H "Cookie: auth=$COOKIE" -H "Origin: $BASE_URL" \
      --data-urlencode "request=$authz" --data-urlencode decision=allow
    expect_status 200 "alice allows client $1"
    http GET "/authorize?$authz" -H "Cookie: auth=$COOKIE"
  fi
  code=$(header Location | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  http POST /token -u "$1:$2" --data-urlencode grant_type=authorization_code --data-urlencode "code=$code" \
    --data-urlencode "redirect_uri=$CB" --data-urlencode "code_verifier=$verifier"
  expect_status 200 "tokens for client $1"
  ACCESS=$(json .access_token); REFRESH=$(json .refresh_token)
}
userinfo() { http GET /userinfo -H "Authorization: Bearer $1"; }

tokens_for "$FORUM" "$FORUM_SECRET"; FORUM_ACCESS=$ACCESS FORUM_REFRESH=$REFRESH
tokens_for "$TOOL" "$TOOL_SECRET"; TOOL_ACCESS=$ACCESS
tokens_for "$KEEP" "$KEEP_SECRET"; KEEP_ACCESS=$ACCESS KEEP_REFRESH=$REFRESH
userinfo "$FORUM_ACCESS"
expect_status 200 "setup: Forum's access token works at /userinfo"
TOKEN=$COOKIE auth_get /me/clients
expect_json "setup: alice's consent to Forum is listed" '[.clients[].name] | join(" ")' Forum

step "DELETE /admin/clients/{id} ends what the client holds"
http DELETE "/admin/clients/$FORUM" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin removes Forum"
expect_json "its refresh family ended" .refresh_families_ended 1
expect_json "alice's consent deleted" .consents_deleted 1
userinfo "$FORUM_ACCESS"
expect_status 401 "Forum's access token is refused at /userinfo at once"
http POST /token -u "$FORUM:$FORUM_SECRET" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$FORUM_REFRESH"
expect_status 401 "Forum can no longer refresh"
TOKEN=$COOKIE auth_get /me/clients
expect_json "no consent left for alice" '.clients | length' 0
expect_match "the audit line says what was revoked" \
  "client $FORUM removed: 1 refresh families ended, 1 consents deleted, its access tokens refused" \
  "$(grep '"client_removed"' "$AUTHD_AUDIT_LOG")"

step "authctl client remove does the same"
OUT=$(authctl client remove "$TOOL" 2>&1)
expect_eq "authctl client remove: exit 0" 0 "$?"
expect_match "it says what ended" "removed $TOOL \(1 refresh families ended, 0 consents deleted\)" "$OUT"
userinfo "$TOOL_ACCESS"
expect_status 401 "Tool's access token is refused at /userinfo"
expect_match "audited" "client $TOOL removed: 1 refresh families ended" "$(grep '"client_removed"' "$AUTHD_AUDIT_LOG")"

step "control: a client that stays keeps working"
userinfo "$KEEP_ACCESS"
expect_status 200 "Keep's access token"
http POST /token -u "$KEEP:$KEEP_SECRET" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$KEEP_REFRESH"
expect_status 200 "Keep's refresh family"
finish
