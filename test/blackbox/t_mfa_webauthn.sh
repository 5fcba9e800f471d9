#!/usr/bin/env bash
# Passkeys through the web server (issue 19) with a software authenticator
# independent of authd's code (webauthn_client.py: python3-cryptography keys
# and signatures, its own CBOR): registration, passkey as second factor,
# password-less sign-in. Hostile cases: a reused challenge (registration and
# assertion), an assertion for another origin or rpId, a lowered sign count,
# another user's passkey, passkeys off.
export AUTHD_WEBAUTHN_RP_ID=localhost
export AUTHD_WEBAUTHN_ORIGINS='http://localhost:@PORT@'
export AUTHD_PASSKEY_SIGNIN=true
source "$(dirname "$0")/harness.sh"
need_tools python3
stack_start

passkey_keys webauthn
CT='Content-Type: application/json'
mfa_step() { http POST /signin/mfa -H "$CT" --data-binary "$(jq -nc --arg t "$1" --argjson w "$2" '{mfa_token:$t,webauthn:$w}')"; }
# A sign-in up to the passkey options: MFA (mfa_token) and OPTIONS.
second_step_options() {
  signin "$1" "$2"
  MFA=$(json '.mfa_token // empty')
  http POST /signin/mfa/webauthn/begin -H "$CT" --data-binary "{\"mfa_token\":\"$MFA\"}"
  OPTIONS=$BODY
}
# alice_passkey_step STATUS DESC KEY COUNT [RPID]: a new sign-in of alice up to
# the passkey options, then the assertion of $KEYS/KEY for them at $ORIGIN
# (sign count COUNT, for RPID when given) -> STATUS.
alice_passkey_step() {
  second_step_options alice 'alice password'
  mfa_step "$MFA" "$(passkey_client assert "$KEYS/$3" "$OPTIONS" "$ORIGIN" "$4" ${5:+"$5"})"
  expect_status "$1" "$2"
}

step "registration"
signup alice 'alice password'; ALICE=$TOKEN
signup bob 'bob password'; BOB=$TOKEN
http GET /signin/passkey
expect_eq "the portal may offer password-less sign-in" true "$(json .enabled)"
TOKEN=$ALICE auth_post /me/mfa/webauthn/register/begin '{}'
expect_status 200 "register/begin"
expect_eq "rp id from the settings" localhost "$(json .publicKey.rp.id)"
OPTIONS=$BODY
CRED=$(passkey_client register "$KEYS/alice" "$OPTIONS" "$ORIGIN")
TOKEN=$ALICE auth_post /me/mfa/webauthn/register/finish "$CRED"
expect_status 200 "register/finish"
expect_eq "ten recovery codes with the first factor" 10 "$(json '.recovery_codes | length')"
RECOVERY=$(json -r '.recovery_codes[0]')
ALICE=$(header token)  # a new factor ends the other tokens; this session gets a new one
TOKEN=$ALICE auth_post /me/mfa/webauthn/register/finish "$(jq -c --arg c "$RECOVERY" '. + {second_factor: $c}' <<<"$CRED")"
expect_status 400 "the same registration again: the challenge was used"
TOKEN=$BOB auth_post /me/mfa/webauthn/register/begin '{}'
BAD=$(passkey_client register "$KEYS/bob-evil" "$BODY" "http://evil.example")
TOKEN=$BOB auth_post /me/mfa/webauthn/register/finish "$BAD"
expect_status 400 "a registration from another origin is refused"
TOKEN=$BOB auth_post /me/mfa/webauthn/register/begin '{}'
TOKEN=$BOB auth_post /me/mfa/webauthn/register/finish "$(passkey_client register "$KEYS/bob" "$BODY" "$ORIGIN")"
expect_status 200 "bob registers his own passkey"
TOKEN=$ALICE auth_get /me/mfa
expect_eq "GET /me/mfa lists it" '1 ["webauthn","recovery"]' "$(json -j '(.passkeys | length), " ", (.methods | tojson)')"

step "passkey as second factor"
second_step_options alice 'alice password'
expect_eq "signin -> MFA Required with webauthn" '["webauthn","recovery"]' "$(jq -c .methods <<<"$(signin alice 'alice password'; echo "$BODY")")"
expect_eq "the options allow alice's credential" "$(<"$KEYS/alice/id")" "$(json -r '.publicKey.allowCredentials[0].id')"
mfa_step "$MFA" "$(passkey_client assert "$KEYS/alice" "$OPTIONS" "http://evil.example" 1)"
expect_status 401 "an assertion for another origin"
alice_passkey_step 401 "an assertion for another rpId" alice 1 evil.example
alice_passkey_step 401 "bob's passkey for alice's sign-in" bob 1
alice_passkey_step 200 "alice's passkey -> 200 as /signin" alice 5
USED_OPTIONS=$OPTIONS
expect_eq "the body keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
expect_eq "amr shows the hardware key" '["pwd","hwk"]' "$(jwt_payload "$(json .token)" | jq -c .amr)"
second_step_options alice 'alice password'
mfa_step "$MFA" "$(passkey_client assert "$KEYS/alice" "$USED_OPTIONS" "$ORIGIN" 6)"
expect_status 401 "an assertion on a used challenge"
alice_passkey_step 401 "a sign count that did not grow (cloned authenticator)" alice 5
alice_passkey_step 401 "a lowered sign count" alice 3

step "password-less sign-in"
http POST /signin/passkey/begin
expect_status 200 "passkey/begin"
OPTIONS=$BODY
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/alice" "$OPTIONS" "$ORIGIN" 9)"
expect_status 200 "a passkey alone signs in"
expect_eq "as alice" alice "$(json .user.username)"
expect_eq "user verified: two factors in one" '["hwk","mfa"]' "$(jwt_payload "$(json .token)" | jq -c .amr)"
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/alice" "$OPTIONS" "$ORIGIN" 10)"
expect_status 401 "its challenge works once"

step "removal"
http POST /signin/passkey/begin
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/alice" "$BODY" "$ORIGIN" 10)"
TOKEN=$(json .token) auth_delete "/me/mfa/webauthn/$(<"$KEYS/alice/id")"
expect_status 204 "DELETE /me/mfa/webauthn/{id} (with a token that shows two factors)"
signin alice 'alice password'
expect_status 200 "without a factor the password alone signs in again"
http POST /signin/passkey/begin
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/alice" "$BODY" "$ORIGIN" 11)"
expect_status 401 "the removed passkey no longer signs in"

step "a deleted user's passkey"
authctl delete bob >/dev/null || fail "authctl delete bob"
signup bob 'bob password'
http POST /signin/passkey/begin
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/bob" "$BODY" "$ORIGIN" 20)"
expect_status 401 "the old bob's passkey signs in nobody"
signin bob 'bob password'
expect_status 200 "the new bob has no factor"
NEWBOB=$TOKEN
TOKEN=$NEWBOB auth_post /me/mfa/webauthn/register/begin '{}'
TOKEN=$NEWBOB auth_post /me/mfa/webauthn/register/finish "$(passkey_client register "$KEYS/bob" "$BODY" "$ORIGIN")"
expect_status 200 "the old key can be registered again by the new bob (its index entry went with the old bob)"

finish
