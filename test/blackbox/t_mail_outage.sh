#!/usr/bin/env bash
# The mail server down: 50 password resets are asked for while no SMTP server
# listens. Every request answers 202 as fast as with the server up (mail
# never blocks a request); once the server is back every mail arrives, each
# exactly once (50 distinct tokens, 50 messages), and the outbox empties.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
export AUTHD_PASSWORD_RESET_ACCOUNT_LIMIT=100 AUTHD_PASSWORD_RESET_ADDRESS_LIMIT=1000
export AUTHD_PASSWORD_FORGOT_TIME=50 AUTHD_MAIL_RETRY_MAX=2
export AUTHD_METRICS_ALLOW=127.0.0.1/32
smtp_pick || exit 1
stack_start
forgot() { http POST /password/forgot -H 'Content-Type: application/json' --data-binary "$1"; }
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
metric() { curl -s --noproxy '*' "$BASE_URL/metrics" | awk -v n="$1" '$1 == n { print $2 }'; }

# Made by the operator: a sign-up would queue a verification mail too.
printf 'alice password' | authctl add alice user --email test@example.com >/dev/null 2>&1 \
  && pass "setup: alice (authctl add, with an email)" || fail "setup: authctl add alice"

step "50 resets with the mail server down"
down=() bad=0
for i in $(seq 50); do
  t0=$(now_ms); forgot '{"username":"alice"}'; down+=($(($(now_ms) - t0)))
  [[ $STATUS == 202 ]] || bad=$((bad + 1))
done
expect_eq "all 50 answered 202" 0 "$bad"
expect_eq "the outbox holds 50 messages" 50 "$(metric authd_mail_outbox_depth)"
FAILED_SENDS=$(metric authd_mail_failed_total)
((FAILED_SENDS > 0)) && pass "failed attempts are counted ($FAILED_SENDS)" || fail "authd_mail_failed_total is $FAILED_SENDS"

step "the server comes back: every mail once"
smtp_start || fail "cannot start aiosmtpd"
mail_wait 50 30 || fail "only $(mail_count) of 50 mails arrived"
sleep 3  # a duplicate would come now
expect_eq "exactly 50 messages" 50 "$(mail_count)"
tokens=$(for f in $(mail_files); do mail_token "$f"; done | sort -u | wc -l)
expect_eq "50 distinct reset links" 50 "$tokens"
expect_eq "the outbox is empty" 0 "$(metric authd_mail_outbox_depth)"
expect_eq "50 sent" 50 "$(metric authd_mail_sent_total)"

step "requests were not slower while the server was down"
up=()
for i in $(seq 15); do
  t0=$(now_ms); forgot '{"username":"nobody"}'; up+=($(($(now_ms) - t0)))
done
MD=$(median "${down[@]}") MU=$(median "${up[@]}")
echo "   server down: median $MD ms; server up: median $MU ms"
if ((MD <= MU * 3 / 2 + 30)); then pass "down ($MD ms) not slower than up ($MU ms)"; else fail "down $MD ms vs up $MU ms"; fi
finish
