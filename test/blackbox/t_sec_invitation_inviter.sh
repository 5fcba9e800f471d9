#!/usr/bin/env bash
# Attack: an admin invitation outlived the admin who made it. An admin under
# suspicion (or a stolen admin session) invites an address of their own as
# admin; the operator demotes or deletes that admin; the link still made a
# brand-new admin account. Now an invitation is only as good as its
# inviter, on LMDB and PostgreSQL alike:
#  - demoting an admin (PUT /admin/users/{name}, authctl role) or deleting
#    one (DELETE /admin/users/{name}, authctl delete) revokes every invitation
#    they made, in the same transaction, and the audit log lists them
#    (event invitations_revoked, their ids);
#  - accepting re-checks that the inviter still exists as the same account
#    and is still an admin (400 naming why), so nothing slips between the two;
#  - invitations of other admins and of the operator (authctl invite) stay.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
mail_stack_start audit

invitation_token() {  # ADDRESS: the token of the newest invitation mail to it
  local f
  f=$(mail_to "$1") || return 1
  mail_part "$f" text | grep -oE 'invite#token=[A-Za-z0-9_-]+' | head -1 | cut -d= -f2
}
invite() {  # ADMIN_TOKEN ADDRESS ROLE: sets INVITATION_ID
  TOKEN=$1 auth_post /admin/invitations "{\"email\":\"$2\",\"role\":\"$3\"}"
  expect_status 201 "invite $2 as $3"
  INVITATION_ID=$(json .id)
}
accept() {  # TOKEN USERNAME
  post /signup/invitation "$(jq -cn --arg t "$1" --arg u "$2" '{token:$t,username:$u,password:"invited password"}')"
}
listed() { TOKEN=$ROOT auth_get /admin/invitations; jq -r '.invitations[].id' <<<"$BODY" 2>/dev/null | tr '\n' ' '; }

add_user root 'root password' admin || fail "authctl add root"
signin root 'root password'
ROOT=$TOKEN
add_user mallory 'mallory password' admin || fail "authctl add mallory"
signin mallory 'mallory password'
MALLORY=$TOKEN

step "attack: a demoted admin's invitation would make a new admin"
invite "$MALLORY" accomplice@example.org admin
MAL_ADMIN=$INVITATION_ID
MAL_ADMIN_TOKEN=$(invitation_token accomplice@example.org) || fail "no invitation mail"
invite "$MALLORY" helper@example.org user
MAL_USER=$INVITATION_ID
MAL_USER_TOKEN=$(invitation_token helper@example.org) || fail "no invitation mail"
invite "$ROOT" colleague@example.org editor
ROOT_INVITE=$INVITATION_ID
ROOT_TOKEN=$(invitation_token colleague@example.org) || fail "no invitation mail"
OPERATOR_TOKEN=$(authctl invite ops@example.org admin --no-mail --json 2>/dev/null | jq -r .link | sed 's/.*token=//')
expect_match "authctl invite prints a link" '^[A-Za-z0-9_-]{20,}$' "$OPERATOR_TOKEN"
TOKEN=$ROOT auth_put /admin/users/mallory '{"role":"user"}'
expect_status 200 "root demotes mallory"
expect_json "mallory is a user" .role user
accept "$MAL_ADMIN_TOKEN" accomplice
expect_status 400 "the demoted admin's admin invitation is refused"
expect_match "the error says it is revoked" 'revoked' "$(json .error)"
signin accomplice 'invited password'
expect_status 500 "no account was made"
accept "$MAL_USER_TOKEN" helper
expect_status 400 "the demoted admin's user invitation too"

step "the audit log lists the invitations revoked with the demotion"
LINE=$(grep '"invitations_revoked"' "$AUDIT" | grep '"mallory"' | tail -1)
expect_match "an invitations_revoked line for mallory" 'demoted' "$LINE"
expect_match "it names the admin invitation" "$MAL_ADMIN" "$LINE"
expect_match "it names the user invitation" "$MAL_USER" "$LINE"
expect_match "the actor is root" '"actor":"root"' "$LINE"
LIST=$(listed)
expect_eq "mallory's are no longer listed" no "$(yesno grep -qE "$MAL_ADMIN|$MAL_USER" <<<"$LIST")"
expect_eq "root's is still listed" yes "$(yesno grep -q "$ROOT_INVITE" <<<"$LIST")"

step "deleting an admin revokes theirs too (authctl delete)"
add_user trent 'trent password' admin || fail "authctl add trent"
signin trent 'trent password'
TRENT=$TOKEN
invite "$TRENT" friend@example.org admin
TRENT_INVITE=$INVITATION_ID
TRENT_TOKEN=$(invitation_token friend@example.org) || fail "no invitation mail"
authctl delete trent >/dev/null 2>&1 || fail "authctl delete trent"
# A new account of the same name is another inviter: nothing of the old one counts.
add_user trent 'another trent' admin || fail "authctl add trent again"
accept "$TRENT_TOKEN" friend
expect_status 400 "the deleted admin's invitation is refused"
LINE=$(grep '"invitations_revoked"' "$AUDIT" | grep '"trent"' | tail -1)
expect_match "listed in the audit log, by the operator" "deleted.*$TRENT_INVITE" "$LINE"
expect_match "the actor is authctl" '"actor":"authctl:' "$LINE"

step "the invitations of an admin still in office, and the operator's, stand"
accept "$ROOT_TOKEN" colleague
expect_status 201 "root's invitation makes its account"
expect_json "with the role root granted" .user.username colleague
accept "$OPERATOR_TOKEN" ops
expect_status 201 "authctl's invitation makes its account"
TOKEN=$ROOT auth_get /admin/users/ops
expect_json "as admin" .role admin
finish
