#!/usr/bin/env bash
# Password reset by mail, end to end through a real SMTP server (aiosmtpd):
# POST /password/forgot mails a single-use link; POST /password/reset sets
# the new password, answers like /signin and ends every other token. Stops
#  - account enumeration: existing and unknown accounts get the same status,
#    body and time (medians within 10 %);
#  - token reuse, unknown or expired tokens (400), cross-site or form posts;
#  - mail floods: per-account and per-address limits;
#  - tokens in logs: no reset token in authd's log or the audit log.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
export AUTHD_PASSWORD_RESET_ACCOUNT_LIMIT=6 AUTHD_PASSWORD_RESET_ADDRESS_LIMIT=40
# The answer time dominates the work behind it even on a loaded machine.
export AUTHD_PASSWORD_FORGOT_TIME=400 AUTHD_MAIL_RETRY_MAX=1
# The password_changed notice after a reset is t_mail_notify.sh's, the
# new-device notice of the sign-ins after it t_mail_new_device.sh's.
export AUTHD_NOTIFY_PASSWORD_CHANGED=false AUTHD_NOTIFY_NEW_DEVICE=false
mail_stack_start audit

forgot() { http POST /password/forgot -H 'Content-Type: application/json' --data-binary "$1" "${@:2}"; }
reset() { http POST /password/reset -H 'Content-Type: application/json' --data-binary "$1" "${@:2}"; }

signup alice 'alice password'
expect_status 201 "setup: signup alice (email test@example.com)"
OLD_TOKEN=$TOKEN
# The sign-up's verification mail (t_mail_verify.sh) is not this test's.
mail_wait 1 || fail "setup: the sign-up's verification mail did not arrive"
rm -f "$MAILDIR"/box/new/*
printf 'bob password' | "$AUTHCTL_BIN" add bob user >/dev/null 2>&1   # no email

step "forgot by username: 202, one mail with proper headers"
forgot '{"username":"alice"}'
expect_status 202 "forgot alice"
ANSWER=$BODY
mail_wait 1 || fail "no mail arrived"
MAIL=$(mail_files | tail -1)
expect_eq "To" "test@example.com" "$(mail_part "$MAIL" to)"
expect_match "From" '^"?authd"? <noreply@example.org>$' "$(mail_part "$MAIL" from)"
expect_eq "Subject" "Reset your password" "$(mail_part "$MAIL" subject)"
expect_match "Date" '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} ' "$(mail_part "$MAIL" date)"
expect_match "Message-ID" '^<[0-9a-f]{32}@example.org>$' "$(mail_part "$MAIL" message-id)"
expect_match "the HTML part links to the reset page" 'href="https://auth.example.org/reset#token=' "$(mail_part "$MAIL" html)"
RESET_TOKEN=$(mail_token "$MAIL")
expect_match "the link carries a token" '^[A-Za-z0-9_-]{40,}$' "$RESET_TOKEN"

step "reset: 200 like /signin, old password and old tokens end"
reset "{\"token\":\"$RESET_TOKEN\",\"new_password\":\"\"}"
expect_status 400 "an empty new password is refused by the policy"
reset "{\"token\":\"$RESET_TOKEN\",\"new_password\":\"alice new password\"}"
expect_status 200 "reset"
expect_json "answers like /signin" '.user.username' alice
NEW_TOKEN=$(json .token)
TOKEN=$OLD_TOKEN auth_get /records
expect_status 401 "the token from before the reset ends"
TOKEN=$NEW_TOKEN auth_get /records
expect_status 200 "the token of the reset works"
signin alice 'alice password'
expect_status 500 "the old password is gone"
signin alice 'alice new password'
expect_status 200 "the new password signs in"

step "a used, unknown or malformed token: 400 with a clear error"
reset "{\"token\":\"$RESET_TOKEN\",\"new_password\":\"again\"}"
expect_status 400 "the link is single-use"
expect_match "the error says why" 'unknown, used or expired' "$(json .error)"
reset '{"token":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","new_password":"x"}'
expect_status 400 "an unknown token"
reset '{"new_password":"x"}'
expect_status 400 "no token"

step "forgot by email, unknown account, account without email: the same answer"
forgot '{"email":"TEST@example.com"}'
expect_status 202 "forgot by email (any case)"
expect_eq "same body" "$ANSWER" "$BODY"
mail_wait 2 || fail "the mail asked for by email did not arrive"
forgot '{"username":"nobody"}'
expect_status 202 "unknown username"
expect_eq "same body for an unknown username" "$ANSWER" "$BODY"
forgot '{"email":"nobody@example.com"}'
expect_eq "same body for an unknown email" "$ANSWER" "$BODY"
forgot '{"username":"bob"}'
expect_status 202 "an account without an email"
expect_eq "same body for an account without an email" "$ANSWER" "$BODY"
forgot '{"username":"alice","email":"test@example.com"}'
expect_status 400 "both username and email"
forgot '{}'
expect_status 400 "neither"

step "cross-site and form posts are refused"
forgot '{"username":"alice"}' -H 'Sec-Fetch-Site: cross-site'
expect_status 403 "cross-site forgot"
http POST /password/forgot -H 'Content-Type: text/plain' --data-binary '{"username":"alice"}'
expect_status 415 "text/plain forgot: JSON only (415 before parsing)"
reset '{"token":"x","new_password":"y"}' -H 'Origin: https://evil.example'
expect_status 403 "cross-origin reset"

step "same time for existing and unknown accounts (medians within 10 %)"
known=() unknown=()
for i in $(seq 8); do
  t0=$(now_ms); forgot '{"username":"alice"}'; known+=($(($(now_ms) - t0)))
  t0=$(now_ms); forgot "{\"username\":\"nobody$i\"}"; unknown+=($(($(now_ms) - t0)))
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
MK=$(median "${known[@]}") MU=$(median "${unknown[@]}")
echo "   existing: median $MK ms (${known[*]}); unknown: median $MU ms (${unknown[*]})"
lo=$((MK < MU ? MK : MU)) hi=$((MK < MU ? MU : MK))
if ((hi * 10 <= lo * 11)); then pass "medians within 10 % ($MK vs $MU ms)"; else fail "medians differ: $MK vs $MU ms"; fi
(( lo >= 400 )) && pass "every answer waits password_forgot_time" || fail "answered in $lo ms < 400"

step "per-account limit: at most 6 mails per hour"
sleep 2
expect_eq "6 reset mails to alice this hour, none past the limit " 6 "$(mail_count)"

step "per-address limit: 429 past 40 requests an hour"
for i in $(seq 20); do forgot "{\"username\":\"x$i\"}" >/dev/null; done
expect_status 429 "the address is throttled"

step "the pages: /forgot and /reset, and the link on /login"
http GET /forgot
expect_status 200 "GET /forgot"
expect_match "the forgot page" 'Forgot your password' "$BODY"
http GET /reset
expect_status 200 "GET /reset (the same page, in its reset state)"
http GET /login
expect_match "/login links to /forgot" 'href="/forgot"' "$BODY"

step "no token in any log"
expect_not_logged "reset token" "$RESET_TOKEN"
expect_match "audit: the reset request" '"event":"password_reset_requested","username":"alice"' "$(cat "$AUDIT")"
expect_match "audit: the mail sent" '"event":"mail_password_reset","username":"alice".*"outcome":"ok"' "$(cat "$AUDIT")"
expect_match "audit: the reset" '"event":"password_reset","username":"alice".*"outcome":"ok"' "$(cat "$AUDIT")"
finish
