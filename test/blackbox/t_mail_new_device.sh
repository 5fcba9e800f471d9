#!/usr/bin/env bash
# Sign-in from a new device, told by mail through a real SMTP server
# (aiosmtpd): a sign-in that succeeds (password, or the second factor that
# completes it) from a browser without the account's device cookie
# (authd_device) mails the account's verified address the time, the IP
# address and the browser (a summary: t_sec_device_notice.sh), so that the
# owner hears of a stolen password; a right password whose second factor is
# still due is told at once.
# The browser the account was made in, or signed in from before, is known:
# no mail. Nothing goes to an unverified address (it may not be the
# owner's), nor with notify_new_device = false; no mail carries a token.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
command -v oathtool >/dev/null || { fail "oathtool is not installed (scripts/deps.sh test)"; finish; }
mail_stack_start

UA='NewDeviceTest/1.0 (X11; test)'
device_of() { header Set-Cookie | sed -n 's/^authd_device=\([^;]*\);.*/\1/p' | head -1; }
# Waits until the mailbox holds N messages, then 1 s more for any extra one.

step "sign-up gives the browser its device cookie; the address is verified"
signup alice 'alice password'
expect_status 201 "signup alice"
SIGNUP_DEVICE=$(device_of)
expect_match "sign-up sets authd_device" '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$' "$SIGNUP_DEVICE"
mail_settle 1
post /email/verify "{\"token\":\"$(mail_token "$(mail_files | tail -1)")\"}"
expect_status 200 "alice verifies her address"

step "the browser that signed up is known: no notice"
signin alice 'alice password' --cookie "authd_device=$SIGNUP_DEVICE"
expect_status 200 "signin with the sign-up's device cookie"
sleep 1
expect_eq "no notice" 1 "$(mail_count)"

step "another browser: one notice with time, address and browser, no token"
signin alice 'alice password' -A "$UA"
expect_status 200 "signin without a device cookie"
SESSION=$TOKEN
DEVICE=$(device_of)
expect_match "a new device cookie" '^[A-Za-z0-9_-]+\.' "$DEVICE"
mail_settle 2
expect_eq "one notice" 2 "$(mail_count)"
F=$(mail_files | tail -1)
expect_eq "to the verified address" test@example.com "$(mail_part "$F" to)"
expect_eq "subject" "New sign-in to your account" "$(mail_part "$F" subject)"
TEXT=$(mail_part "$F" text)
expect_match "the time" 'Time: 20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC' "$TEXT"
expect_match "the IP address" 'IP address: 127\.0\.0\.1' "$TEXT"
expect_match "the browser, not the User-Agent's text" 'Browser: unknown browser' "$TEXT"
expect_eq "no text of the User-Agent" no "$(yesno grep -qF NewDeviceTest "$F")"
expect_match "a way out" 'https://auth.example.org/forgot' "$TEXT"
leaked=no
for secret in "$SESSION" "$DEVICE" "$SIGNUP_DEVICE"; do grep -qF -- "$secret" "$F" && leaked=yes; done
expect_eq "no token in the mail" no "$leaked"

step "that browser is known now: no notice"
signin alice 'alice password' --cookie "authd_device=$DEVICE"
expect_status 200 "signin with the new device cookie"
http POST /signin -u 'alice:wrong password'
expect_status 500 "a failed sign-in"
sleep 1
expect_eq "no notice for a known browser or a failure" 2 "$(mail_count)"

step "an unverified address hears nothing"
signup carol 'carol password'
expect_status 201 "signup carol"
mail_settle 3
signin carol 'carol password'
expect_status 200 "carol signs in from another browser"
sleep 1
expect_eq "no notice to an unverified address" 3 "$(mail_count)"

step "with a second factor: told when the password was right, and once the sign-in is complete"
TOKEN=$SESSION auth_post /me/mfa/totp '{}'
expect_status 200 "POST /me/mfa/totp"
SECRET=$(json .secret)
TOKEN=$SESSION auth_post /me/mfa/totp/confirm "{\"code\":\"$(oathtool --totp -b "$SECRET")\"}"
expect_status 200 "TOTP confirmed"
RECOVERY=$(json '.recovery_codes[0]')
RECOVERY2=$(json '.recovery_codes[1]')
mail_settle 4  # mfa_added
signin alice 'alice password'
expect_status 401 "the password asks for the second factor"
MFA=$(json .mfa_token)
mail_settle 5
expect_eq "the password alone is told" "Your password was just used" "$(mail_last subject)"
post /signin/mfa "{\"mfa_token\":\"$MFA\",\"code\":\"$RECOVERY\"}"
expect_status 200 "the second factor completes it"
expect_match "a device cookie" '^[A-Za-z0-9_-]+\.' "$(device_of)"
mail_settle 6
expect_eq "the notice" "New sign-in to your account" "$(mail_last subject)"

step "notify_new_device = false: silence"
authd_stop
export AUTHD_NOTIFY_NEW_DEVICE=false
authd_start || fail "authd did not restart"
signin alice 'alice password'
expect_status 401 "password"
post /signin/mfa "{\"mfa_token\":\"$(json .mfa_token)\",\"code\":\"$RECOVERY2\"}"
expect_status 200 "second factor"
sleep 2
expect_eq "no notice when switched off" 6 "$(mail_count)"
finish
