#!/usr/bin/env bash
# mfa_for_oauth = true (issue 19): third-party sign-in (GET /oauth, against the
# OpenID Connect provider of test/oauth) of a user with a second factor
# answers 401 MFA Required like POST /signin; POST /signin/mfa finishes with
# a token whose amr is ["fed","otp"]. Users without a factor are unchanged.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"
need_tools oathtool

provider_start
provider_configure_authd authd-mfa mfa-secret
export AUTHD_MFA_FOR_OAUTH=true
stack_start

step "without a factor: unchanged"
oauth_signin_as sub=sub-olga preferred_username=olga name='Olga' email=olga@example.test
expect_status 200 "third-party sign-in"
T=$(json .token)

step "with a factor: MFA Required"
TOKEN=$T totp_enrol "olga enrols an authenticator app and confirms it"
oauth_signin_as sub=sub-olga preferred_username=olga name='Olga' email=olga@example.test
expect_status 401 "the same third-party sign-in -> 401"
expect_eq "MFA Required" "MFA Required" "$(json .error)"
MFA=$(json .mfa_token)
expect_eq "no token cookie yet" "" "$(header Set-Cookie | grep '^auth=' || true)"
http POST /signin/mfa -H 'Content-Type: application/json' \
  --data-binary "{\"mfa_token\":\"$MFA\",\"code\":\"$(oathtool --totp -b --now="@$(( $(date +%s) + 30 ))" "$SECRET")\"}"
expect_status 200 "the second step"
expect_eq "as olga" olga "$(json .user.username)"
expect_eq "amr: federated + one-time password" '["fed","otp"]' "$(jwt_payload "$(json .token)" | jq -c .amr)"

finish
