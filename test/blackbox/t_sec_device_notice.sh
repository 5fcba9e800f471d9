#!/usr/bin/env bash
# Attack: the new-device notice copied the client's User-Agent (any printable
# text up to 200 characters) into a genuine security mail, so whoever signed
# in from a new browser wrote phishing text and links in authd's own voice to
# the owner ("Browser: ... call +1 555 or visit https://evil.example").
# And the mail came only after a complete sign-in: a stolen password stopped
# by the second factor, or a third-party sign-in, told the owner nothing.
# Now, through a real SMTP server (aiosmtpd):
#  - the notice names the browser and system from a fixed list ("Firefox on
#    Windows"), else "unknown browser": no text or URL of the client's;
#  - a right password from a new device with the second factor still due
#    mails the owner at once ("Your password was just used"), once per
#    device (address and browser) and hour;
#  - a third-party sign-in (GET /oauth) from a new device is told too; the
#    browser that started it with its device cookie is known (the cookie
#    travels in the state, since the provider's redirect back is cross-site).
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
source "$_HARNESS_DIR/oauth_provider.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
export AUTHD_PASSWORD_FORGOT_TIME=0 AUTHD_NOTIFY_MFA_ADDED=false
need_tools oathtool
provider_start
provider_configure_authd authd-notice notice-secret
mail_stack_start

newest() { mail_files | tail -1; }
PHISH='Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/121.0 URGENT: your account is locked, call +1-555-0100 or visit https://evil.example/unlock'

step "setup: alice with a verified address"
signup alice 'alice password'
expect_status 201 "signup alice"
mail_settle 1
post /email/verify "{\"token\":\"$(mail_token "$(newest)")\"}"
expect_status 200 "alice verifies her address"

step "attack: a User-Agent full of phishing text and a link"
signin alice 'alice password' -A "$PHISH"
expect_status 200 "a sign-in from a new browser"
ALICE=$TOKEN
mail_settle 2
F=$(newest)
expect_eq "the new-device notice" "New sign-in to your account" "$(mail_part "$F" subject)"
TEXT=$(mail_part "$F" text)
expect_match "the browser, summarised" 'Browser: Firefox on Windows' "$TEXT"
for bad in evil.example URGENT 555-0100 'Win64' 'Mozilla'; do
  expect_eq "no '$bad' from the User-Agent in the mail" no "$(yesno grep -qF -- "$bad" "$F")"
done
expect_eq "every link is the site's own" "" \
  "$(mail_part "$F" text | grep -oE 'https?://[^ ]+' | grep -v '^https://auth\.example\.org')"
signin alice 'alice password' -A 'NotABrowser/1.0 <a href="https://evil.example">click</a>'
expect_status 200 "another new browser, unknown"
mail_settle 3
TEXT=$(mail_part "$(newest)" text)
expect_match "an unknown browser says so" 'Browser: unknown browser$' "$(grep Browser: <<<"$TEXT")"
expect_eq "nothing of its text" no "$(yesno grep -qF evil.example "$(newest)")"

step "a right password with the second factor due: told at once, once per device and hour"
TOKEN=$ALICE totp_enrol "TOTP confirmed"
STOLEN='Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36'
signin alice 'alice password' -A "$STOLEN"
expect_status 401 "the password is right, the second factor is due"
mail_settle 4
F=$(newest)
expect_eq "the owner is told now" "Your password was just used" "$(mail_part "$F" subject)"
expect_match "with the browser" 'Browser: Chrome on Linux' "$(mail_part "$F" text)"
expect_match "and what to do" 'change it at once: https://auth.example.org/forgot' "$(mail_part "$F" text)"
signin alice 'alice password' -A "$STOLEN"
expect_status 401 "again from the same device"
signin alice 'alice password' -A "$STOLEN"
expect_status 401 "and again"
sleep 2
expect_eq "once per device and hour" 4 "$(mail_count)"
signin alice 'alice password' -A 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1'
expect_status 401 "from another device"
mail_settle 5
expect_match "another device, another notice" 'Browser: Safari on iOS' "$(mail_part "$(newest)" text)"
signin alice 'wrong password' -A 'Mozilla/5.0 (Macintosh) Firefox/120.0'
sleep 2
expect_eq "a wrong password mails nothing" 5 "$(mail_count)"

step "a third-party sign-in from a new device is told"
oauth_signin_as sub=sub-olga preferred_username=olga name=Olga email=olga@example.test email_verified:=true
expect_status 200 "olga's account is made by a third-party sign-in"
expect_match "it gets a device cookie" 'authd_device' "$(cat "$OAUTH_JAR")"
mail_settle 5
expect_eq "a new account has no device to be new to" 5 "$(mail_count)"
post /email/verify/resend '{"username":"olga"}'
expect_status 202 "olga asks for a verification link"
mail_settle 6
post /email/verify "{\"token\":\"$(mail_token "$(newest)")\"}"
expect_status 200 "olga verifies olga@example.test"
oauth_signin_as sub=sub-olga preferred_username=olga name=Olga email=olga@example.test email_verified:=true
expect_status 200 "olga signs in through the provider from a new browser"
mail_settle 7
F=$(newest)
expect_eq "to olga" olga@example.test "$(mail_part "$F" to)"
expect_eq "the new-device notice" "New sign-in to your account" "$(mail_part "$F" subject)"

step "the browser that started with its device cookie is known"
provider_set_identity sub=sub-olga preferred_username=olga name=Olga email=olga@example.test email_verified:=true
oauth_start
expect_status 302 "GET /oauth with the device cookie"
# The provider's redirect back is cross-site: a browser sends no SameSite=Strict cookie with it.
sed -i '/authd_device/d' "$OAUTH_JAR"
oauth_authorize
oauth_callback
expect_status 200 "the sign-in completes"
sleep 2
expect_eq "no notice for a known browser" 7 "$(mail_count)"
finish
