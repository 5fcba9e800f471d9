#!/usr/bin/env bash
# Attack: someone on the path to the mail server strips STARTTLS from its
# EHLO answer. With smtp_starttls = auto and no smtp_user, libcurl went on in
# clear, so reset and invitation links (admin invitations included) crossed
# the network readable. Now TLS is required unless the SMTP server is on
# loopback, or the operator sets smtp_allow_plaintext:
#  - a server off loopback that offers no STARTTLS gets no mail: the outbox
#    keeps it, the log says why, authd_mail_plaintext_refused_total counts it;
#  - smtp_allow_plaintext = true sends it (the operator's stated choice);
#  - smtp_starttls = off with a server off loopback is refused at start-up
#    unless smtp_allow_plaintext;
#  - a server on loopback (127.0.0.1) takes mail in clear, as before.
# The server off loopback is a real aiosmtpd (no STARTTLS) on 10.255.255.1,
# an address of this machine that is not loopback: the test runs in a network
# namespace of its own (unshare -n, as root) so the host's network is untouched.
if [[ -z ${TEST_NETNS:-} ]]; then
  ((EUID == 0)) || { echo "FAIL: t_sec_mail_plaintext.sh needs root (a network namespace with a non-loopback address)"; exit 1; }
  exec unshare --net env TEST_NETNS=1 bash "$0" "$@"
fi
ip link set lo up && ip addr add 10.255.255.1/32 dev lo ||
  { echo "FAIL: cannot add 10.255.255.1 in the test's network namespace"; exit 1; }
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/mail_lib.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1 AUTHD_MAIL_RETRY_MAX=1
export AUTHD_PASSWORD_FORGOT_TIME=0 AUTHD_METRICS_ALLOW=127.0.0.1/32
smtp_pick || exit 1
REMOTE=10.255.255.1
# The same aiosmtpd as mail_lib.sh, on the non-loopback address (no --tlscert: no STARTTLS offered).
setsid /usr/bin/python3 -m aiosmtpd -n -l "$REMOTE:$SMTP_PORT" -c aiosmtpd.handlers.Mailbox "$MAILDIR/box" \
  </dev/null >>"$MAILDIR/smtpd.log" 2>&1 &
REMOTE_PID=$!
stop_remote() { kill -TERM "$REMOTE_PID" 2>/dev/null; wait "$REMOTE_PID" 2>/dev/null; }
at_exit stop_remote
for ((i = 0; i < 100; i++)); do (: <"/dev/tcp/$REMOTE/$SMTP_PORT") 2>/dev/null && break; sleep 0.1; done
export AUTHD_SMTP_URL=smtp://$REMOTE:$SMTP_PORT
stack_start
metric() { curl -s --noproxy '*' "$BASE_URL/metrics" | awk -v n="$1" '$1 == n { print $2 }'; }
forgot() { http POST /password/forgot -H 'Content-Type: application/json' --data-binary '{"username":"alice"}'; }
printf 'alice password' | authctl add alice user --email test@example.com >/dev/null 2>&1 ||
  fail "setup: authctl add alice"

step "attack: a server off loopback without STARTTLS gets no reset link"
forgot
expect_status 202 "the reset is asked (the answer never depends on mail)"
for ((i = 0; i < 50; i++)); do
  (($(metric authd_mail_plaintext_refused_total) > 0)) && break
  sleep 0.1
done
sleep 1
expect_eq "no mail reached the server" 0 "$(mail_count)"
expect_eq "the server saw no message" no "$(yesno grep -q 'token=' "$MAILDIR/smtpd.log")"
REFUSED=$(metric authd_mail_plaintext_refused_total)
((REFUSED > 0)) && pass "authd_mail_plaintext_refused_total counts it ($REFUSED)" ||
  fail "authd_mail_plaintext_refused_total is '$REFUSED'"
expect_eq "the outbox keeps the message" 1 "$(metric authd_mail_outbox_depth)"
LOG=$(grep 'offers no STARTTLS' "$STATE_DIR/authd.log" | tail -1)
expect_match "the log says why" "smtp://$REMOTE:$SMTP_PORT offers no STARTTLS and TLS is required" "$LOG"
expect_match "and what the way out gives up" 'smtp_allow_plaintext = true accepts mail readable on the network' "$LOG"
expect_match "and that the message stays" 'stays in the outbox' "$LOG"
expect_eq "no link in the log" no "$(yesno grep -q 'token=' "$STATE_DIR/authd.log")"

step "smtp_starttls = off off loopback: refused at start-up"
authd_stop
export AUTHD_SMTP_STARTTLS=off
if authd_start 2>"$MAILDIR/start.err"; then
  fail "authd started with smtp_starttls = off and a server off loopback"
else
  pass "authd refuses to start"
fi
expect_match "saying why" 'smtp_starttls = off sends mail in clear to smtp://10\.255\.255\.1' \
  "$(cat "$STATE_DIR/authd.log" "$MAILDIR/start.err" 2>/dev/null)"
unset AUTHD_SMTP_STARTTLS

step "smtp_allow_plaintext = true: the operator's choice, the kept message goes"
export AUTHD_SMTP_ALLOW_PLAINTEXT=true
authd_start || fail "authd did not start with smtp_allow_plaintext"
mail_wait 1 30 || fail "the kept message did not arrive"
expect_eq "it arrived once" 1 "$(mail_count)"
expect_match "the reset link" '^[A-Za-z0-9_-]{40,}$' "$(mail_token "$(mail_files | tail -1)")"
for ((i = 0; i < 50; i++)); do [[ $(metric authd_mail_outbox_depth) == 0 ]] && break; sleep 0.1; done
expect_eq "the outbox is empty" 0 "$(metric authd_mail_outbox_depth)"
unset AUTHD_SMTP_ALLOW_PLAINTEXT

step "a server on loopback takes mail in clear, as before"
authd_stop
LOCAL_PORT=$(pick_port)
setsid /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$LOCAL_PORT" -c aiosmtpd.handlers.Mailbox "$MAILDIR/box" \
  </dev/null >>"$MAILDIR/smtpd.log" 2>&1 &
LOCAL_PID=$!
stop_local() { kill -TERM "$LOCAL_PID" 2>/dev/null; wait "$LOCAL_PID" 2>/dev/null; }
at_exit stop_local
wait_for_port "$LOCAL_PORT" "$LOCAL_PID" 10 || fail "the loopback server did not start"
export AUTHD_SMTP_URL=smtp://127.0.0.1:$LOCAL_PORT
authd_start || fail "authd did not start"
forgot
expect_status 202 "another reset"
mail_wait 2 30 || fail "the mail to the loopback server did not arrive"
expect_eq "delivered" 2 "$(mail_count)"
expect_eq "nothing refused since the restart" 0 "$(metric authd_mail_plaintext_refused_total)"
finish
