#!/usr/bin/env bash
# Security notices by mail, through a real SMTP server (aiosmtpd): a
# password changed or reset, a second factor added or removed reach the
# account's verified address, so that the owner hears of a takeover.
# Nothing goes to an unverified address (it may not be the owner's), and
# each notice is switched off by its setting (notify_*).
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
export AUTHD_PASSWORD_FORGOT_TIME=50 AUTHD_MAIL_RETRY_MAX=1
# Sign-ins here come from curl without a device cookie: their notice is t_mail_new_device.sh's.
export AUTHD_NOTIFY_NEW_DEVICE=false
command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }
mail_stack_start

CT='Content-Type: application/json'
subjects() { for f in $(mail_files); do echo "$(mail_part "$f" to) $(mail_part "$f" subject)"; done; }
# Waits until the mailbox holds N messages, then 1 s more for any extra one.

step "an unverified address hears nothing"
signup alice 'alice password'
expect_status 201 "signup alice"
mail_settle 1
VTOKEN=$(mail_token "$(mail_files | tail -1)")
auth_put /me/password '{"current_password":"alice password","new_password":"alice password 2"}'
expect_status 200 "password changed while the address is unverified"
TOKEN=$(json .token)
sleep 1
expect_eq "no notice to the unverified address" 1 "$(mail_count)"
rm -f "$MAILDIR"/box/new/*

step "verified: the password change is told"
# The change of password ended the sign-up's link (t_sec_reset_links.sh): a new one.
post /email/verify "{\"token\":\"$VTOKEN\"}"
expect_status 400 "the link from before the password change is refused"
post /email/verify/resend '{"username":"alice"}'
expect_status 202 "a new link"
mail_settle 1
post /email/verify "{\"token\":\"$(mail_token "$(mail_files | tail -1)")\"}"
expect_status 200 "alice verifies her address"
auth_put /me/password '{"current_password":"alice password 2","new_password":"alice password 3"}'
expect_status 200 "password changed"
TOKEN=$(json .token)
mail_settle 2
expect_match "password_changed to the verified address" 'test@example.com Your password was changed' "$(subjects)"
expect_match "the notice links to /forgot" 'https://auth.example.org/forgot' "$(mail_last text)"

step "a second factor added, then removed"
auth_post /me/mfa/totp '{}'
expect_status 200 "POST /me/mfa/totp"
SECRET=$(json .secret)
auth_post /me/mfa/totp/confirm "{\"code\":\"$(oathtool --totp -b "$SECRET")\"}"
expect_status 200 "TOTP confirmed"
TOKEN=$(header token)
RECOVERY=$(json '.recovery_codes[0]')
mail_settle 3
expect_match "mfa_added" 'test@example.com A second factor was added' "$(subjects)"
auth_http DELETE /me/mfa/totp -H "$CT" --data-binary "{\"second_factor\":\"$RECOVERY\"}"
expect_status 204 "TOTP removed"
TOKEN=$(header token)
mail_settle 4
expect_match "mfa_removed" 'test@example.com A second factor was removed' "$(subjects)"

step "a reset is told too"
post /password/forgot '{"username":"alice"}'
expect_status 202 "forgot"
mail_settle 5
RTOKEN=$(mail_token "$(mail_files | tail -1)")
post /password/reset "{\"token\":\"$RTOKEN\",\"new_password\":\"alice password 4\"}"
expect_status 200 "reset"
mail_settle 6
expect_eq "the last mail: password_changed" "Your password was changed" "$(mail_last subject)"

step "notify_password_changed = false: silence"
authd_stop
export AUTHD_NOTIFY_PASSWORD_CHANGED=false
authd_start || fail "authd did not restart"
signin alice 'alice password 4'
expect_status 200 "signin"
auth_put /me/password '{"current_password":"alice password 4","new_password":"alice password 5"}'
expect_status 200 "password changed"
sleep 2
expect_eq "no notice when switched off" 6 "$(mail_count)"
finish
