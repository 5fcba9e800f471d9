#!/usr/bin/env bash
# Attack: step-up by enrolment (issue 23 class 2) and a password-less passkey
# sign-in without user verification (class 3). A session that shows no
# second factor (a stolen cookie, an OAuth sign-in with mfa_for_oauth off, a
# refresh family older than the enrolment) registers its own passkey and
# signs in with it as "mfa", reaching mfa_required_roles routes; or removes
# the factor that guards the account; or a passkey that only proves presence
# signs in alone. authd: once the user has an active factor, adding or
# removing one needs a token whose amr shows a second factor or a current
# code in the same request ("second_factor"); every change ends the user's
# other tokens and refresh families; a password-less sign-in needs UV.
export AUTHD_MFA_REQUIRED_ROLES=editor
export AUTHD_REFRESH_TOKEN_TTL=600
export AUTHD_WEBAUTHN_RP_ID=localhost
export AUTHD_WEBAUTHN_ORIGINS='http://localhost:@PORT@'
export AUTHD_PASSKEY_SIGNIN=true
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
need_tools python3
command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }
stack_start

passkey_keys stepup
CT='Content-Type: application/json'
shows_second_factor() { jwt_payload "$1" | jq -c '(.amr // []) | any(. == "otp" or . == "hwk" or . == "mfa")'; }

step "the first factor: free to enrol, and it ends every other session"
add_user ed 'ed password' editor || fail "authctl add ed"
signin ed 'ed password'; OTHER=$TOKEN; OTHER_REFRESH=$(cookie_of refresh)
expect_ne "setup: a refresh family" "" "$OTHER_REFRESH"
signin ed 'ed password'; ED=$TOKEN
TOKEN=$ED totp_enrol "a user without a factor starts TOTP and confirms it"
mapfile -t RECOVERY < <(json -r '.recovery_codes[]')
NEW=$(header token)
expect_ne "this session gets a new token" "" "$NEW"
expect_eq "the new token shows no second factor (enrolling is no sign-in)" false "$(shows_second_factor "$NEW")"
TOKEN=$ED auth_get /me
expect_status 401 "the enrolling session's old token ended"
TOKEN=$OTHER auth_get /me
expect_status 401 "another session's token ended"
http POST /token/refresh -H "Cookie: refresh=$OTHER_REFRESH"
expect_status 401 "a refresh family older than the enrolment ended"
TOKEN=$NEW auth_get /me
expect_status 200 "the new token works"
TOKEN=$NEW auth_get /records
expect_status 403 "an editor's token without a second factor still gets no records"

step "no step-up by enrolment: a session without a second factor cannot add or remove one"
TOKEN=$NEW auth_post /me/mfa/webauthn/register/begin '{}'
expect_status 403 "passkey registration options"
expect_eq "error MFA Required" "MFA Required" "$(json .error)"
TOKEN=$NEW auth_post /me/mfa/webauthn/register/finish '{"id":"x","response":{}}'
expect_status 403 "passkey registration"
TOKEN=$NEW auth_delete /me/mfa/totp
expect_status 403 "removing the TOTP factor"
TOKEN=$NEW auth_http DELETE /me/mfa/totp -H "$CT" --data-binary '{"second_factor":"12345678"}'
expect_status 401 "a wrong code in the same request"
TOKEN=$NEW auth_get /me/mfa
expect_eq "the factor is still there" true "$(json .totp)"

step "a current code in the same request allows a change"
TOKEN=$NEW auth_post /me/mfa/webauthn/register/begin "{\"second_factor\":\"${RECOVERY[0]}\"}"
expect_status 200 "registration options with a recovery code"
CRED=$(passkey_client register "$KEYS/ed" "$BODY" "$ORIGIN")
TOKEN=$NEW auth_post /me/mfa/webauthn/register/finish "$(jq -c --arg c "${RECOVERY[0]}" '. + {second_factor: $c}' <<<"$CRED")"
expect_status 401 "a spent recovery code does not count twice"
TOKEN=$NEW auth_post /me/mfa/webauthn/register/finish "$(jq -c --arg c "${RECOVERY[1]}" '. + {second_factor: $c}' <<<"$CRED")"
expect_status 200 "registration with a fresh recovery code"
NEWER=$(header token)
TOKEN=$NEW auth_get /me
expect_status 401 "adding a passkey ended the other tokens"
expect_eq "still no second factor in this session's token" false "$(shows_second_factor "$NEWER")"

step "a token that shows a second factor may change factors"
signin ed 'ed password'
MFA=$(json '.mfa_token // empty')
http POST /signin/mfa -H "$CT" --data-binary "{\"mfa_token\":\"$MFA\",\"code\":\"${RECOVERY[2]}\"}"
expect_status 200 "ed signs in with a second factor"
STRONG=$(json .token)
TOKEN=$STRONG auth_delete "/me/mfa/webauthn/$(<"$KEYS/ed/id")"
expect_status 204 "the passkey is removed without a code"
STRONG2=$(header token)
expect_eq "this session keeps its amr" '["pwd","otp"]' "$(jwt_payload "$STRONG2" | jq -c .amr)"
TOKEN=$NEWER auth_get /me
expect_status 401 "removing a factor ended the other tokens"
TOKEN=$STRONG2 auth_get /records
expect_status 200 "the editor with a second factor reaches the records"

step "password-less sign-in needs user verification (webauthn_user_verification is off)"
TOKEN=$STRONG2 auth_post /me/mfa/webauthn/register/begin '{}'
TOKEN=$STRONG2 auth_post /me/mfa/webauthn/register/finish "$(passkey_client register "$KEYS/ed2" "$BODY" "$ORIGIN")"
expect_status 200 "setup: ed registers a passkey"
http POST /signin/passkey/begin
expect_eq "the options ask for user verification" required "$(json -r .publicKey.userVerification)"
OPTIONS=$BODY
http POST /signin/passkey/finish -H "$CT" --data-binary "$(WEBAUTHN_NO_UV=1 passkey_client assert "$KEYS/ed2" "$OPTIONS" "$ORIGIN" 5)"
expect_status 401 "an assertion without user verification signs nobody in"
expect_eq "no cookie" "" "$(cookie_of auth)"
http POST /signin/passkey/finish -H "$CT" --data-binary "$(passkey_client assert "$KEYS/ed2" "$OPTIONS" "$ORIGIN" 6)"
expect_status 200 "control: with user verification it signs in"
expect_eq "as two factors in one" '["hwk","mfa"]' "$(jwt_payload "$(json .token)" | jq -c .amr)"
signin ed 'ed password'
MFA=$(json '.mfa_token // empty')
http POST /signin/mfa/webauthn/begin -H "$CT" --data-binary "{\"mfa_token\":\"$MFA\"}"
WEBAUTHN=$(WEBAUTHN_NO_UV=1 passkey_client assert "$KEYS/ed2" "$BODY" "$ORIGIN" 7)
http POST /signin/mfa -H "$CT" --data-binary "$(jq -nc --arg t "$MFA" --argjson w "$WEBAUTHN" '{mfa_token:$t,webauthn:$w}')"
expect_status 200 "as a second factor webauthn_user_verification governs (off: presence is enough)"

finish
