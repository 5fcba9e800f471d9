#!/usr/bin/env bash
# Second factor with TOTP through the web server (issue 19). The codes come
# from oathtool (OATH Toolkit), an implementation independent of ours.
# Enrolment (POST /me/mfa/totp, /me/mfa/totp/confirm), GET /me/mfa, sign-in
# with MFA Required + POST /signin/mfa (same answer as /signin), recovery
# codes, mfa_required_roles (403 without a second factor, enrolment still
# reachable), authctl mfa reset (audited), account deletion. Hostile cases:
# replayed code, another user's code, mfa_token as a bearer token, mfa_token
# used twice, unknown and expired mfa_token.
export AUTHD_MFA_REQUIRED_ROLES=admin
export AUTHD_MFA_TOKEN_TTL=30
AUDIT_FILE=$(mktemp "${TMPDIR:-/tmp}/authd-mfa-audit.XXXXXX")
export AUTHD_AUDIT_LOG=$AUDIT_FILE
source "$(dirname "$0")/harness.sh"
stack_start
trap 'rm -f "$AUDIT_FILE"; stack_stop' EXIT

command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }

code_now() { oathtool --totp -b "$1"; }
code_at() { oathtool --totp -b --now="@$2" "$1"; }
mfa_step() { http POST /signin/mfa -H 'Content-Type: application/json' --data-binary "$(jq -nc --arg t "$1" --arg c "$2" '{mfa_token:$t,code:$c}')"; }
# Signs in with the password; prints the mfa_token of a 401 MFA Required.
mfa_token_of() { signin "$1" "$2"; json '.mfa_token // empty'; }

step "users without a factor are unchanged"
signup alice 'alice password'; expect_status 201 "signup alice"; ALICE=$TOKEN
signup bob 'bob password'; expect_status 201 "signup bob"; BOB=$TOKEN
signin bob 'bob password'
expect_status 200 "bob signs in with the password alone"
expect_eq "the body keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
TOKEN=$ALICE auth_get /me/mfa
expect_status 200 "GET /me/mfa"
expect_eq "no factor yet" 'false 0' "$(json -j '.totp, " ", .recovery_codes')"

step "enrolment"
TOKEN=$ALICE auth_post /me/mfa/totp '{}'
expect_status 200 "POST /me/mfa/totp"
SECRET=$(json .secret)
expect_match "a base32 secret" '^[A-Z2-7]{32}$' "$SECRET"
expect_match "an otpauth:// URI for authenticator apps" "^otpauth://totp/authd:alice\\?secret=$SECRET&issuer=authd" "$(json .otpauth_uri)"
expect_match "a QR code as SVG" '^<svg xmlns="http://www.w3.org/2000/svg"' "$(json .qr_svg)"
signin alice 'alice password'
expect_status 200 "an unconfirmed secret does not change the sign-in"
TOKEN=$ALICE auth_post /me/mfa/totp/confirm '{"code":"000000x"}'
expect_status 400 "a malformed code is refused"
TOKEN=$ALICE auth_post /me/mfa/totp/confirm "{\"code\":\"$(code_at "$SECRET" $(( $(date +%s) + 600 )))\"}"
expect_status 400 "a code far from now is refused"
http POST /me/mfa/totp/confirm -H 'Content-Type: application/json' --data-binary "{\"code\":\"$(code_now "$SECRET")\"}"
expect_status 401 "confirming needs a signed-in user"
totp_fresh_step
FIRST_CODE=$(code_now "$SECRET")
TOKEN=$ALICE auth_post /me/mfa/totp/confirm "{\"code\":\"$FIRST_CODE\"}"
expect_status 200 "the code from oathtool confirms the factor"
expect_eq "ten recovery codes" 10 "$(json '.recovery_codes | length')"
RECOVERY=$(json -r '.recovery_codes[0]')
ALICE=$(header token)  # a new factor ends the other tokens; this session gets a new one
TOKEN=$ALICE auth_get /me/mfa
expect_eq "GET /me/mfa shows the factor" 'true 10' "$(json -j '.totp, " ", .recovery_codes')"

step "sign-in asks for the second factor"
signin alice 'alice password'
expect_status 401 "password alone -> 401"
expect_eq "error MFA Required" "MFA Required" "$(json .error)"
expect_eq "methods" '["totp","recovery"]' "$(json -c .methods)"
MFA=$(json .mfa_token)
expect_ne "an mfa_token" "" "$MFA"
expect_eq "no token cookie before the second factor" "" "$(header Set-Cookie || true)"

http GET /records -H "Authorization: Bearer $MFA"
expect_status 401 "the mfa_token is no bearer token (/records)"
http GET /me -H "Authorization: Bearer $MFA"
expect_status 401 "the mfa_token is no bearer token (/me)"
http GET /me -H "Cookie: auth=$MFA"
expect_status 401 "the mfa_token is no auth cookie"

mfa_step "$MFA" "$FIRST_CODE"
expect_status 401 "the code used to confirm cannot be replayed"
expect_eq "error names the failure" "Invalid Second Factor" "$(json .error)"

step "another user's code"
TOKEN=$BOB auth_post /me/mfa/totp '{}'
BOB_SECRET=$(json .secret)
totp_fresh_step
TOKEN=$BOB auth_post /me/mfa/totp/confirm "{\"code\":\"$(code_now "$BOB_SECRET")\"}"
expect_status 200 "bob enrols too"
# An mfa_token for the expiry check at the end: taken now, so that the steps
# in between count towards its 30 s instead of a sleep of their own.
MFA4_TAKEN=$(date +%s)
MFA4=$(mfa_token_of bob 'bob password')
expect_ne "bob gets an mfa_token" "" "$MFA4"
BOB_NEXT=$(code_at "$BOB_SECRET" $(( $(date +%s) + 30 )))
ALICE_NEXT=$(code_at "$SECRET" $(( $(date +%s) + 30 )))
if [[ $BOB_NEXT != "$ALICE_NEXT" ]]; then
  mfa_step "$MFA" "$BOB_NEXT"
  expect_status 401 "bob's code does not sign alice in"
fi

step "the second step answers like /signin"
mfa_step "$MFA" "$ALICE_NEXT"
expect_status 200 "the right code -> 200"
expect_eq "the body keeps the spec's shape" '["token","user"]' "$(jq -c keys <<<"$BODY")"
expect_eq "user part" '{"acl":[],"username":"alice"}' "$(json -c .user)"
T=$(json .token)
expect_eq "header token" "$T" "$(header token)"
expect_match "auth cookie" "^auth=$T; Path=/; Max-Age=[0-9]+; HttpOnly; SameSite=Lax" "$(header Set-Cookie | grep '^auth=')"
expect_eq "the token carries amr" '["pwd","otp"]' "$(jwt_payload "$T" | jq -c .amr)"
http GET /records -H "Authorization: Bearer $T"
expect_status 200 "the token works"

mfa_step "$MFA" "$(code_at "$SECRET" $(( $(date +%s) + 30 )))"
expect_status 401 "the mfa_token works once"
MFA2=$(mfa_token_of alice 'alice password')
mfa_step "$MFA2" "$ALICE_NEXT"
expect_status 401 "a used code is refused with a fresh mfa_token (replay)"
mfa_step "unknown-token" "$(code_now "$SECRET")"
expect_status 401 "an unknown mfa_token"

step "recovery codes"
mfa_step "$MFA2" "$RECOVERY"
expect_status 200 "a recovery code signs in"
MFA3=$(mfa_token_of alice 'alice password')
mfa_step "$MFA3" "$RECOVERY"
expect_status 401 "a recovery code works once"
TOKEN=$T auth_get /me/mfa
expect_eq "nine recovery codes left" 9 "$(json .recovery_codes)"

step "mfa_required_roles = admin"
add_user root 'root password' admin || fail "authctl add root"
signin root 'root password'
expect_status 200 "an admin without a factor still signs in (to enrol)"
auth_get /records
expect_status 403 "but the token without a second factor is refused"
expect_eq "the error names the reason" "MFA Required" "$(json .error)"
auth_get /admin/users
expect_status 403 "also on the admin API"
auth_get /me
expect_status 200 "GET /me stays reachable"
auth_post /me/mfa/totp '{}'
expect_status 200 "enrolment stays reachable"
ROOT_SECRET=$(json .secret)
totp_fresh_step
ROOT_CODE=$(code_now "$ROOT_SECRET")
auth_post /me/mfa/totp/confirm "{\"code\":$((10#$ROOT_CODE))}"
expect_status 200 "the admin confirms a factor (the code as a JSON number)"
MFA_ROOT=$(mfa_token_of root 'root password')
expect_ne "the admin now gets MFA Required" "" "$MFA_ROOT"
mfa_step "$MFA_ROOT" "$(code_at "$ROOT_SECRET" $(( $(date +%s) + 30 )))"
expect_status 200 "second step"
TOKEN=$(json .token) auth_delete "/records/000000000000000000000000"
expect_status 404 "the token with amr otp has the admin's capabilities"

# 31 s after the sign-in that issued it (its expiry is then + 30, then >=
# MFA4_TAKEN). Only on LMDB: the expiry is SecondFactors' check of the time
# it stored beside the token, the same whichever store keeps it, and on
# PostgreSQL the wait would be 30 s of CI spent asleep (docs/testing.md).
if [[ ${AUTHD_STORE:-lmdb} != postgresql ]]; then
  step "expired mfa_token (mfa_token_ttl = 30)"
  while (( $(date +%s) < MFA4_TAKEN + 31 )); do sleep 1; done
  mfa_step "$MFA4" "$(code_now "$BOB_SECRET")"
  expect_status 401 "an expired mfa_token is refused"
fi

step "authctl mfa reset"
out=$(authctl mfa reset alice 2>&1); rc=$?
expect_eq "authctl mfa reset exits 0" 0 "$rc"
expect_match "it says so" "removed" "$out"
signin alice 'alice password'
expect_status 200 "alice signs in with the password alone again"
expect_match "the reset is in the audit log" '"event":"mfa_reset","username":"alice"' "$(cat "$AUDIT_FILE")"
out=$(authctl mfa reset nobody 2>&1); rc=$?
expect_eq "an unknown user -> exit 1" 1 "$rc"

step "a deleted user's factors do not come back"
authctl delete bob >/dev/null || fail "authctl delete bob"
signup bob 'bob password'
signin bob 'bob password'
expect_status 200 "a new bob signs in without a factor"

finish
