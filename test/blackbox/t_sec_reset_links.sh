#!/usr/bin/env bash
# Attack: a password reset link mailed to the account's OLD address (a
# mailbox the owner gave up, or one an attacker reads) still reset the
# password after the account had moved to a new, verified address: whoever
# held the old mailbox took the account over. Mailed links now live only as
# long as what they were mailed for, on LMDB and PostgreSQL alike:
#  - the address changes (PUT /me/email, verified by the new address): every
#    pending reset and verification link of the account ends, and a reset
#    link is refused unless it went to the account's current address;
#  - the password changes (PUT /me/password, or a reset): every pending
#    reset and verification link ends;
#  - an admin signs the account out (POST /admin/users/{name}/signout, the
#    way to disable an account) or deletes it: the same.
# Each refused link answers 400 with the usual error and changes nothing.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
export AUTHD_PASSWORD_FORGOT_TIME=0 AUTHD_PASSWORD_RESET_ACCOUNT_LIMIT=50 AUTHD_EMAIL_VERIFY_ACCOUNT_LIMIT=50
export AUTHD_PASSWORD_RESET_ADDRESS_LIMIT=0
# Notices are other tests' (t_mail_notify.sh, t_mail_new_device.sh): one mail per request here.
export AUTHD_NOTIFY_PASSWORD_CHANGED=false AUTHD_NOTIFY_EMAIL_CHANGED=false AUTHD_NOTIFY_NEW_DEVICE=false
mail_stack_start

forgot() { post /password/forgot "{\"username\":\"$1\"}"; expect_status 202 "forgot $1"; }
reset() { post /password/reset "{\"token\":\"$1\",\"new_password\":\"$2\"}"; }
# The one mail that arrives after the mailbox was emptied: its To in
# MAIL_TO, its link's token in MAIL_TOKEN; the mailbox is emptied again.
next_mail() {  # WHAT [VAR]: sets MAIL_TO, MAIL_TOKEN and VAR (the token too)
  MAIL_TO= MAIL_TOKEN=
  [[ -z ${2:-} ]] || printf -v "$2" ''
  mail_wait 1 || { fail "no mail arrived ($1)"; return 1; }
  local f
  f=$(mail_files | tail -1)
  MAIL_TO=$(mail_part "$f" to)
  MAIL_TOKEN=$(mail_token "$f")
  rm -f "$MAILDIR"/box/new/*
  [[ -z ${2:-} ]] || printf -v "$2" '%s' "$MAIL_TOKEN"
}
# A verified address for USER (the sign-up's mail to test@example.com).
verified_user() {
  rm -f "$MAILDIR"/box/new/*
  signup "$1" "$1 password"
  expect_status 201 "signup $1"
  next_mail "$1's sign-up" || return 1
  post /email/verify "{\"token\":\"$MAIL_TOKEN\"}"
  expect_status 200 "$1 verifies test@example.com"
}
expect_refused() {  # TOKEN WHAT
  reset "$1" 'attacker password'
  expect_status 400 "$2: the reset link is refused"
  expect_match "$2: the usual error" 'unknown, used or expired' "$(json .error)"
}

add_user root 'root password' admin || fail "authctl add root"
signin root 'root password'
ROOT=$TOKEN

step "attack: a reset link to the old address, after the account moved to a new verified one"
verified_user alice
ALICE=$TOKEN
forgot alice
next_mail "reset to the old address" OLD_LINK
expect_eq "the link went to the old address" test@example.com "$MAIL_TO"
forgot alice
next_mail "a second reset to the old address" OLD_LINK2
TOKEN=$ALICE auth_put /me/email '{"email":"alice@example.net","password":"alice password"}'
expect_status 202 "alice asks to move to alice@example.net"
next_mail "verification of the new address" VERIFY
expect_eq "the new address's link" alice@example.net "$MAIL_TO"
post /email/verify "{\"token\":\"$VERIFY\"}"
expect_status 200 "the new address verifies: the account moved"
expect_refused "$OLD_LINK" "mailed to the old address"
expect_refused "$OLD_LINK2" "the other one mailed to the old address"
signin alice 'alice password'
expect_status 200 "alice's password is unchanged"
forgot alice
next_mail "reset to the new address" NEW_LINK
expect_eq "a new request goes to the new address" alice@example.net "$MAIL_TO"
reset "$NEW_LINK" 'alice second password'
expect_status 200 "the link to the current address works"
ALICE=$(json .token)

step "a change of password ends pending reset and verification links"
forgot alice
next_mail "reset before the change" PENDING_RESET
TOKEN=$ALICE auth_put /me/email '{"email":"alice@example.info","password":"alice second password"}'
expect_status 202 "alice asks to move to alice@example.info"
next_mail "verification before the change" PENDING_VERIFY
TOKEN=$ALICE auth_put /me/password '{"current_password":"alice second password","new_password":"alice third password"}'
expect_status 200 "PUT /me/password"
expect_refused "$PENDING_RESET" "after PUT /me/password"
post /email/verify "{\"token\":\"$PENDING_VERIFY\"}"
expect_status 400 "after PUT /me/password: the verification link is refused"
signin alice 'alice third password'
expect_status 200 "the changed password stands"
expect_json "the address did not move" .user.username alice
TOKEN=$(json .token) auth_get /me
expect_json "still alice@example.net" .email alice@example.net

step "a reset ends the other pending links"
forgot alice
next_mail "first reset" FIRST
forgot alice
next_mail "second reset" SECOND
reset "$FIRST" 'alice fourth password'
expect_status 200 "the first link resets"
expect_refused "$SECOND" "after another reset"

step "an admin's sign-out of the account (disabling it) ends its pending links"
verified_user bob
BOB=$TOKEN
forgot bob
next_mail "bob's reset" BOB_RESET
TOKEN=$BOB auth_put /me/email '{"email":"bob@example.net","password":"bob password"}'
expect_status 202 "bob asks to move"
next_mail "bob's verification" BOB_VERIFY
TOKEN=$ROOT auth_post /admin/users/bob/signout '{}'
expect_status 204 "the admin signs bob out"
expect_refused "$BOB_RESET" "after the admin's sign-out"
post /email/verify "{\"token\":\"$BOB_VERIFY\"}"
expect_status 400 "after the admin's sign-out: the verification link is refused"
signin bob 'bob password'
expect_status 200 "bob's password is unchanged"

step "deleting the account ends its links: a new account of the same name gets none of them"
forgot bob
next_mail "bob's reset before the deletion" BOB_RESET
TOKEN=$ROOT auth_delete /admin/users/bob
expect_status 200 "the admin deletes bob"
add_user bob 'new bob password' user || fail "authctl add bob again"
expect_refused "$BOB_RESET" "after the deletion"
signin bob 'new bob password'
expect_status 200 "the new bob's password stands"
finish
