#!/usr/bin/env bash
# Proves account linking of third-party sign-in (docs/oauth.md "Account linking"): accounts are linked
# by provider + subject, never by a bare username.
#   - a local password account alice exists; a provider user whose preferred_username is alice
#     gets another account, alice.default (the single unnamed provider is "default"); local alice
#     still signs in with her password and her role, __v and _id are untouched;
#   - another subject with the same hint gets alice.default.2; the first subject comes back to
#     alice.default; a role given to local alice is not touched by these sign-ins;
#   - sign-up cannot take a name a provider account holds (409);
#   - `authctl delete` of a linked account: its tokens stop working, and the next sign-in of that
#     subject creates a fresh account (new _id, __v 0) rather than reviving the old link;
#   - four completions of one new subject at the same moment make one account (__v 3);
#   - hints are reduced to username characters (A-Z a-z 0-9 . _ @ + -), at most 40 of them; no
#     hint at all -> "default_user".
source "$(dirname "$0")/harness.sh"
source "$(dirname "$0")/oauth_provider.sh"

provider_start
provider_configure_authd authd-linking linking-secret
stack_start

# --- a local password account ------------------------------------------------------------------
step "local alice"
signup alice alice-local-pw
expect_status 201 "signup alice"
ALICE_ID=$(account_field alice id)
ALICE_V=$(account_field alice v)
ALICE_ROLE=$(account_field alice role)

# --- provider user with the same name ------------------------------------------------------------
step "provider user named alice"
oauth_signin_as sub=sub-a1 preferred_username=alice name='Alice Remote' email=alice@remote.test
expect_status 200 "provider alice signs in"
expect_eq "provider alice gets alice.default" alice.default "$(json .user.username)"
A1_TOKEN=$(json .token)
expect_eq "local alice: _id unchanged" "$ALICE_ID" "$(account_field alice id)"
expect_eq "local alice: __v unchanged" "$ALICE_V" "$(account_field alice v)"
expect_eq "local alice: role unchanged" "$ALICE_ROLE" "$(account_field alice role)"
expect_ne "alice.default is another account" "$ALICE_ID" "$(account_field alice.default id)"

http POST /signin -u 'alice:alice-local-pw'
expect_status 200 "local alice still signs in with her password"
expect_eq "local alice signs in as alice" alice "$(json .user.username)"
http POST /signin -u 'alice.default:alice-local-pw'
expect_ne "alice's password does not open alice.default" 200 "$STATUS"

# The provider's token belongs to alice.default, not to alice: making local alice admin does not
# give it admin rights.
authctl role alice admin >/dev/null
http DELETE /records/0123456789abcdef01234567 -H "Authorization: Bearer $A1_TOKEN"
expect_status 403 "alice.default's token does not carry local alice's admin role"
ALICE_V=$(account_field alice v)

step "another subject with the same hint"
oauth_signin_as sub=sub-a2 preferred_username=alice
expect_status 200 "second provider alice signs in"
expect_eq "second provider alice gets alice.default.2" alice.default.2 "$(json .user.username)"

step "the first subject again"
oauth_signin_as sub=sub-a1 preferred_username=alice
expect_status 200 "first provider alice again"
expect_eq "first subject comes back to alice.default" alice.default "$(json .user.username)"
expect_eq "alice.default __v 1" 1 "$(account_field alice.default v)"
expect_eq "alice.default.2 __v 0" 0 "$(account_field alice.default.2 v)"
expect_eq "local alice: still admin (sign-ins of others never touch her)" admin "$(account_field alice role)"
expect_eq "local alice: __v unchanged by the sign-ins" "$ALICE_V" "$(account_field alice v)"
expect_eq "local alice: _id unchanged" "$ALICE_ID" "$(account_field alice id)"
expect_eq "three accounts: alice, alice.default, alice.default.2" 3 "$(accounts | wc -l)"

step "sign-up cannot take a provider account's name"
signup alice.default takeover-pw-1
expect_status 409 "signup alice.default"
expect_eq "alice.default still has no password" no \
  "$(http POST /signin -u 'alice.default:takeover-pw-1'; [[ $STATUS == 200 ]] && echo yes || echo no)"

# --- deletion ----------------------------------------------------------------------------------
step "authctl delete of a linked account"
OLD_ID=$(account_field alice.default id)
authctl delete alice.default >/dev/null
expect_eq "authctl delete alice.default exits 0" 0 "$?"
http GET /records -H "Authorization: Bearer $A1_TOKEN"
expect_status 401 "the deleted account's token stops working"
oauth_signin_as sub=sub-a1 preferred_username=alice
expect_status 200 "the subject signs in again after the deletion"
expect_eq "a fresh account under the first free name" alice.default "$(json .user.username)"
expect_ne "the fresh account has a new _id" "$OLD_ID" "$(account_field alice.default id)"
expect_eq "the fresh account has __v 0" 0 "$(account_field alice.default v)"
http GET /records -H "Authorization: Bearer $A1_TOKEN"
expect_status 401 "the old token does not work for the re-created account"

# A local account that takes the name of a deleted provider account is not linked to it.
authctl delete alice.default.2 >/dev/null
signup alice.default.2 squatter-pw-1
expect_status 201 "a local account takes the freed name alice.default.2"
SQUAT_ID=$(account_field alice.default.2 id)
oauth_signin_as sub=sub-a2 preferred_username=alice
expect_status 200 "the second subject signs in again"
expect_ne "it does not get the local squatter's account" alice.default.2 "$(json .user.username)"
expect_eq "it gets the next free name" alice.default.3 "$(json .user.username)"
expect_eq "the squatter's account is untouched (__v 0)" 0 "$(account_field alice.default.2 v)"
expect_eq "the squatter's account is untouched (_id)" "$SQUAT_ID" "$(account_field alice.default.2 id)"

# --- two first sign-ins of one subject at once ------------------------------------------------------
step "concurrent first sign-ins of one subject"
provider_set_identity sub=sub-race preferred_username=racer
CALLBACKS=()
RACERS=()
for i in 1 2 3 4; do
  http GET /oauth -c "$PROVIDER_DIR/race-$i"
  AUTHORIZE_URL=$(header Location)
  oauth_authorize
  CALLBACKS+=("$CALLBACK_URL")
done
for i in 1 2 3 4; do
  curl -s --noproxy '*' --max-time 10 -o "$PROVIDER_DIR/race-$i.body" -w '%{http_code}' \
    -b "$PROVIDER_DIR/race-$i" "${CALLBACKS[$((i - 1))]}" >"$PROVIDER_DIR/race-$i.status" &
  RACERS+=($!)
done
wait "${RACERS[@]}"   # not a bare `wait`: the provider is a background job too
for i in 1 2 3 4; do
  expect_eq "concurrent completion $i: 200" 200 "$(cat "$PROVIDER_DIR/race-$i.status")"
  expect_eq "concurrent completion $i: the one account" racer "$(jq -r .user.username "$PROVIDER_DIR/race-$i.body")"
done
expect_eq "exactly one account for the subject" 1 "$(accounts | awk '$1 ~ /^racer/' | wc -l)"
expect_eq "it was created once and updated three times (__v 3)" 3 "$(account_field racer v)"

# --- hints -------------------------------------------------------------------------------------
step "username hints"
oauth_signin_as sub=sub-odd preferred_username='Zoe Smith!<script>'
expect_status 200 "an odd hint"
expect_eq "odd hint reduced to username characters" ZoeSmithscript "$(json .user.username)"
LONG=$(printf 'x%.0s' {1..60})
oauth_signin_as sub=sub-long preferred_username="$LONG"
expect_status 200 "a 60-character hint"
# Long hints are cut so that even "<base>.<provider>.<n>" fits 64 characters: 64 - len(".default.") - 4 = 51.
expect_eq "long hint cut to 51 characters" "${LONG:0:51}" "$(json .user.username)"
oauth_signin_as sub=sub-nohint
expect_status 200 "no hint at all"
expect_eq "no hint -> default_user" default_user "$(json .user.username)"
oauth_signin_as sub=sub-nohint2
expect_eq "no hint, second subject -> default_user.default" default_user.default "$(json .user.username)"

finish
