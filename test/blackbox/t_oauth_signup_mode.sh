#!/usr/bin/env bash
# signup_mode = invite closes third-party sign-up too: without it anyone with
# an account at the provider (any GitHub user, any Google account) would
# create an account here while POST /signup is closed. An identity linked to
# an account before keeps signing in; one without an account gets
# 403 {"error":"Sign-up Closed"} and nothing is created (docs/mail.md#invitations).
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
provider_configure_authd authd-signup-mode signup-mode-secret
export AUTHD_AUDIT_LOG=$PROVIDER_DIR/audit.log
stack_start

step "sign-up open (the default): the provider's user gets an account"
oauth_signin_as sub=sub-known preferred_username=known
expect_status 200 "a new identity signs in"
expect_eq "its account" known "$(json .user.username)"
BEFORE=$(users_listed)

step "signup_mode = invite"
authd_stop
export AUTHD_SIGNUP_MODE=invite
authd_start || fail "authd did not restart with signup_mode = invite"
oauth_signin_as sub=sub-known preferred_username=known
expect_status 200 "the linked identity still signs in"
expect_eq "to its account" known "$(json .user.username)"
oauth_signin_as sub=sub-stranger preferred_username=stranger
expect_status 403 "an identity without an account is refused"
expect_json "the error" .error "Sign-up Closed"
expect_match "and why" 'invitation' "$(json .detail)"
expect_eq "no account was created" "$BEFORE" "$(users_listed)"
expect_match "audited" '"event":"oauth_signin".*"outcome":"refused"' "$(cat "$AUTHD_AUDIT_LOG")"
finish
