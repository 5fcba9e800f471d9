#!/usr/bin/env bash
# Proves the role rule of third-party sign-in (docs/oauth.md "Roles"):
#   default (oauth_keep_role = false, the spec): every sign-in through the provider sets the
#   account's role to user, so `authctl role NAME admin` lasts only until the next one (and the
#   new token is refused for DELETE again);
#   AUTHD_OAUTH_KEEP_ROLE=true: a role set with authctl survives later third-party sign-ins
#   (the token may then DELETE), while __v still goes up on every sign-in;
#   a first sign-in always creates role user, whatever the setting.
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
provider_configure_authd authd-roles roles-secret
unset AUTHD_OAUTH_KEEP_ROLE
stack_start

signin_as() { oauth_signin_as sub="$1" preferred_username="$2"; }   # SUB USERNAME_HINT
# delete_new_record TOKEN STATUS DESC: a new record (RID, made as $TOKEN: root),
# then DELETE /records/RID with TOKEN -> STATUS.
delete_new_record() {
  RID=$(new_record)
  http DELETE "/records/$RID" -H "Authorization: Bearer $1"
  expect_status "$2" "$3"
}

# Records to try DELETE on, made by a local admin (new_record uses $TOKEN).
add_user root admin-password-1 admin
signin root admin-password-1

# --- default: role reset to user ---------------------------------------------------------------
step "default: oauth_keep_role = false"
signin_as sub-dave dave
expect_status 200 "dave's first sign-in"
FIRST_TOKEN=$(json .token)
expect_eq "first sign-in: role user" user "$(account_field dave role)"
authctl role dave admin >/dev/null
expect_eq "authctl role dave admin exits 0" 0 "$?"
expect_eq "dave is admin now" admin "$(account_field dave role)"
V_BEFORE=$(account_field dave v)
# The guard reloads the user on every call: dave's token now carries admin rights.
delete_new_record "$FIRST_TOKEN" 200 "dave (admin by authctl) may DELETE"

signin_as sub-dave dave
expect_status 200 "dave signs in again through the provider"
expect_eq "same account" dave "$(json .user.username)"
DAVE_TOKEN=$(json .token)
expect_eq "the sign-in set the role back to user" user "$(account_field dave role)"
expect_eq "__v went up" $((V_BEFORE + 1)) "$(account_field dave v)"
delete_new_record "$DAVE_TOKEN" 403 "dave (user again) may not DELETE"
http DELETE "/records/$RID" -H "Authorization: Bearer $FIRST_TOKEN"
expect_status 403 "dave's older token may not DELETE either"

# --- keep_role = true ------------------------------------------------------------------------
step "AUTHD_OAUTH_KEEP_ROLE=true"
authd_stop
export AUTHD_OAUTH_KEEP_ROLE=true
authd_start || fail "authd restarts with AUTHD_OAUTH_KEEP_ROLE=true"

authctl role dave admin >/dev/null
expect_eq "dave is admin again" admin "$(account_field dave role)"
V_BEFORE=$(account_field dave v)
signin_as sub-dave dave
expect_status 200 "dave signs in through the provider with keep_role"
DAVE_TOKEN=$(json .token)
expect_eq "keep_role: the role stays admin" admin "$(account_field dave role)"
expect_eq "keep_role: __v still goes up" $((V_BEFORE + 1)) "$(account_field dave v)"
delete_new_record "$DAVE_TOKEN" 200 "dave (still admin) may DELETE"

authctl role dave editor >/dev/null
signin_as sub-dave dave
expect_status 200 "dave signs in again as editor"
expect_eq "keep_role: editor stays editor" editor "$(account_field dave role)"

# A first sign-in never grants more than user, keep_role or not.
signin_as sub-erin erin
expect_status 200 "erin's first sign-in with keep_role"
expect_eq "keep_role: a new account is role user" user "$(account_field erin role)"
ERIN_TOKEN=$(json .token)
delete_new_record "$ERIN_TOKEN" 403 "erin (user) may not DELETE"

# --- back to the default -----------------------------------------------------------------------
step "back to the default"
authd_stop
export AUTHD_OAUTH_KEEP_ROLE=false
authd_start || fail "authd restarts with AUTHD_OAUTH_KEEP_ROLE=false"
signin_as sub-dave dave
expect_status 200 "dave signs in with keep_role off again"
expect_eq "the default resets editor to user" user "$(account_field dave role)"

# The local admin was never touched by any of this.
expect_eq "root still admin" admin "$(account_field root role)"
expect_eq "root __v 0" 0 "$(account_field root v)"

finish
