#!/usr/bin/env bash
# Two nodes on one PostgreSQL send each mail once: 40 password resets asked
# on both nodes while the SMTP server is down pile up in the shared outbox;
# when it comes back both senders race for them, and every message arrives
# exactly once (40 messages, 40 distinct links) and the outbox empties.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"
source "$_HARNESS_DIR/mail_lib.sh"

pg_nodes_database

export AUTHD_PASSWORD_RESET_ACCOUNT_LIMIT=100 AUTHD_PASSWORD_RESET_ADDRESS_LIMIT=1000
export AUTHD_PASSWORD_FORGOT_TIME=0 AUTHD_MAIL_RETRY_MAX=1
export AUTHD_METRICS_ALLOW=127.0.0.1/32
smtp_pick || exit 1

pg_nodes_two
forgot() { http POST "$1/password/forgot" -H 'Content-Type: application/json' --data-binary '{"username":"alice"}'; }
metric() { curl -s --noproxy '*' "$1/metrics" | awk -v n="$2" '$1 == n { print $2 }'; }

http POST "$A/signup" -H 'Content-Type: application/json' \
  --data-binary '{"username":"alice","password":"alice-password-1","fullname":"A","email":"alice@example.com"}'
expect_status 201 "setup: signup alice on A"
# The sign-up queued alice's verification mail (t_mail_verify.sh): one more message below.

step "40 resets on both nodes with the mail server down"
bad=0
for i in $(seq 20); do
  forgot "$A"; [[ $STATUS == 202 ]] || bad=$((bad + 1))
  forgot "$B"; [[ $STATUS == 202 ]] || bad=$((bad + 1))
done
expect_eq "all 40 answered 202" 0 "$bad"
expect_eq "one outbox for both nodes: 40 messages + the verification" 41 "$(metric "$A" authd_mail_outbox_depth)"

step "the server comes back: both senders race, every mail once"
smtp_start || fail "cannot start aiosmtpd"
mail_wait 41 40 || fail "only $(mail_count) of 41 mails arrived"
sleep 3
expect_eq "exactly 41 messages" 41 "$(mail_count)"
tokens=$(for f in $(mail_files); do mail_token "$f"; done | sort -u | wc -l)
expect_eq "41 distinct links (40 resets, 1 verification)" 41 "$tokens"
expect_eq "the outbox is empty" 0 "$(metric "$B" authd_mail_outbox_depth)"
SA=$(metric "$A" authd_mail_sent_total) SB=$(metric "$B" authd_mail_sent_total)
echo "   sent by A: $SA, by B: $SB"
expect_eq "the two senders together sent 41" 41 "$((SA + SB))"
finish
