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
finish
