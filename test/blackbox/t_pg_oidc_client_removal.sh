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
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

pg_nodes_database

export AUTHD_OIDC_PROVIDER=true AUTHD_REFRESH_TOKEN_TTL=3600
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
finish
