#!/usr/bin/env bash
# Verified email, end to end through a real SMTP server (aiosmtpd): sign-up
# mails a single-use link, the link leads to the page that posts its token,
# POST /email/verify marks the address verified; PUT /me/email changes the
# address only once the new one is verified, and tells the old one. Stops
#  - sign-in with an address nobody confirmed while require_verified_email
#    is on (403 {"error":"Email Not Verified"});
#  - token reuse, unknown tokens (400); a GET of the link that spends the
#    token (a mail scanner, a prefetch): it only leads to the page;
#  - moving an account's address without its password, or before the new
#    address confirmed it;
#  - account enumeration through the resend route (the same answer).
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
export AUTHD_PASSWORD_FORGOT_TIME=100 AUTHD_MAIL_RETRY_MAX=1 AUTHD_EMAIL_VERIFY_ACCOUNT_LIMIT=4
# The mails counted here are links; the new-device notice is t_mail_new_device.sh's.
export AUTHD_NOTIFY_NEW_DEVICE=false
mail_stack_start audit


step "sign-up: the email is stored unverified and mailed a link"
signup alice 'alice password'
expect_status 201 "signup alice (email test@example.com)"
auth_get /me
expect_json "GET /me shows the email" .email test@example.com
expect_json "unverified" .email_verified false
mail_wait 1 || fail "no verification mail arrived"
MAIL=$(mail_files | tail -1)
expect_eq "To" "test@example.com" "$(mail_part "$MAIL" to)"
expect_eq "Subject" "Confirm your email address" "$(mail_part "$MAIL" subject)"
LINK=$(mail_part "$MAIL" text | grep -oE 'https://auth\.example\.org/email/verify\?token=[A-Za-z0-9_-]+' | head -1)
expect_match "the link: <public_url>/email/verify?token=" '^https://auth.example.org/email/verify\?token=[A-Za-z0-9_-]{40,}$' "$LINK"
VTOKEN=${LINK##*token=}

step "the link leads to the page; a GET spends nothing"
http GET "/email/verify?token=$VTOKEN"
expect_status 303 "GET of the link"
expect_eq "to the page, the token in the fragment" "../verify.html#token=$VTOKEN" "$(header Location)"
http GET "/email/verify?token=$VTOKEN" -L
expect_status 200 "the browser lands on the page"
expect_match "the verify page" 'Confirm your email address' "$BODY"
auth_get /me
expect_json "still unverified after the GETs" .email_verified false

step "require_verified_email: 403 before verification"
authd_stop
export AUTHD_REQUIRE_VERIFIED_EMAIL=true
authd_start || fail "authd did not restart"
signin alice 'alice password'
expect_status 403 "alice's address is not verified"
expect_eq "the error" '{"error":"Email Not Verified"}' "$BODY"
signin alice 'wrong password'
expect_status 500 "a wrong password still says only Invalid Login"
add_user bob 'bob password' user
signin bob 'bob password'
expect_status 200 "an account without an email is not refused (nothing to verify)"
signup carol 'carol password'
expect_status 201 "sign-up still answers 201"
expect_json "but without a token" '.token // "none"' none
expect_json "it says the address is unverified" .email_verified false
mail_wait 2 || fail "carol's verification mail did not arrive"

step "POST /email/verify: 200 once, then 400"
post /email/verify '{"token":"'"$VTOKEN"'"}' -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "a cross-site post is refused"
post /email/verify '{"token":"'"$VTOKEN"'"}'
expect_status 200 "the token verifies"
expect_json "the address" .email test@example.com
expect_json "verified" .email_verified true
post /email/verify '{"token":"'"$VTOKEN"'"}'
expect_status 400 "the link is single-use"
expect_match "the error says why" 'unknown, used or expired' "$(json .error)"
post /email/verify '{"token":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}'
expect_status 400 "an unknown token"
post /email/verify '{}'
expect_status 400 "no token"
signin alice 'alice password'
expect_status 200 "alice signs in once verified"
ALICE=$TOKEN
auth_get /me
expect_json "GET /me: verified" .email_verified true

step "resend: the same answer whoever asks, a link for the unverified"
BEFORE=$(mail_count)
post /email/verify/resend '{"username":"carol"}'
expect_status 202 "resend for carol"
ANSWER=$BODY
post /email/verify/resend '{"username":"nobody"}'
expect_status 202 "resend for an unknown account"
expect_eq "same body for an unknown account" "$ANSWER" "$BODY"
post /email/verify/resend '{"username":"alice"}'
expect_eq "same body for a verified account" "$ANSWER" "$BODY"
mail_wait $((BEFORE + 1)) || fail "carol's new link did not arrive"
sleep 1
expect_eq "one mail: carol's (none for nobody or alice)" $((BEFORE + 1)) "$(mail_count)"
for i in 1 2 3 4; do post /email/verify/resend '{"username":"carol"}' >/dev/null; done
sleep 2
expect_eq "at most 4 verification mails per account and hour (sign-up + 3)" $((BEFORE + 3)) "$(mail_count)"

step "PUT /me/email: the password, then the new address's own link"
TOKEN=$ALICE auth_put /me/email '{"email":"alice@example.net"}'
expect_status 400 "without the password"
TOKEN=$ALICE auth_put /me/email '{"email":"alice@example.net","password":"wrong"}'
expect_status 500 "a wrong password"
TOKEN=$ALICE auth_put /me/email '{"email":"not an address","password":"alice password"}'
expect_status 400 "a malformed address"
TOKEN=$ALICE auth_put /me/email '{"email":"alice@example.net","password":"alice password"}'
expect_status 202 "the change is asked"
TOKEN=$ALICE auth_get /me
expect_json "the account keeps its address meanwhile" .email test@example.com
expect_json "still verified" .email_verified true
expect_json "the new one is pending" .email_pending alice@example.net
NEW=$(mail_to alice@example.net) || fail "no mail to the new address"
NTOKEN=$(mail_token "$NEW")
COUNT=$(mail_count)
post /email/verify '{"token":"'"$NTOKEN"'"}'
expect_status 200 "the new address verifies"
expect_json "the new address" .email alice@example.net
TOKEN=$ALICE auth_get /me
expect_json "GET /me: the new address" .email alice@example.net
expect_json "verified" .email_verified true
mail_wait $((COUNT + 1)) || fail "no mail to the old address"
OLD=$(mail_files | tail -1)
expect_eq "to the old address" test@example.com "$(mail_part "$OLD" to)"
expect_eq "the old address is told" "Your email address was changed" "$(mail_part "$OLD" subject)"
expect_match "naming the new one" 'alice@example.net' "$(mail_part "$OLD" text)"

step "the admin API and authctl show it"
add_user root 'root password' admin
signin root 'root password'
auth_get /admin/users/alice
expect_json "admin: email" .email alice@example.net
expect_json "admin: email_verified" .email_verified true
expect_json "authctl show --json" .email_verified "$(authctl show alice --json 2>/dev/null | jq -r .email_verified)"

step "no token in the logs (the one of a link never opened)"
expect_not_logged "verification token" "$NTOKEN"
expect_match "audit: verified" '"event":"email_verified","username":"alice".*"outcome":"ok"' "$(cat "$AUDIT")"
expect_match "audit: refused sign-in" '"event":"signin_refused","username":"alice"' "$(cat "$AUDIT")"
finish
