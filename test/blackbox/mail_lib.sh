# shellcheck shell=bash
# test/blackbox/mail_lib.sh - a real SMTP server for the mail tests: Debian's
# python3-aiosmtpd (/usr/bin/python3: a pyenv python lacks it) run as its own process, delivering into a Maildir the
# test reads (no SMTP code of our own). Source it after harness.sh.
#
#   smtp_pick            sets SMTP_PORT (free) and MAILDIR (fresh), exports
#                        AUTHD_SMTP_URL, AUTHD_SMTP_FROM, AUTHD_PUBLIC_URL
#   smtp_start / smtp_stop   the server on SMTP_PORT (stop: TERM, wait)
#   mail_count           messages delivered so far
#   mail_wait N [SECS]   waits until at least N messages arrived (default 20 s)
#   mail_files           the message files, oldest first
#   mail_part FILE WHAT  subject, to, from, date, message-id, text, html (decoded)
#   mail_token FILE      the token=... of the message's link
#   mail_last WHAT       mail_part of the newest message
#   mail_settle N        mail_wait N (a failure if they do not come), then 1 s more
#   expect_not_logged WHAT SECRET  a check that SECRET is in no log of authd's
#                        ($STATE_DIR/*.log) nor in $AUDIT when that is set
#   mail_to ADDRESS      the newest message to ADDRESS (waits up to 20 s for one)
#   mail_stack_start [audit]  smtp_pick, smtp_start, then stack_start (exits if
#                        one fails); with audit, AUTHD_AUDIT_LOG and AUDIT name
#                        $MAILDIR/audit.log

smtp_pick() {
  SMTP_PORT=$(pick_port) || return 1
  MAILDIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-mail.XXXXXX") || return 1
  at_exit smtp_cleanup
  export AUTHD_SMTP_URL=smtp://127.0.0.1:$SMTP_PORT
  export AUTHD_SMTP_FROM='authd <noreply@example.org>'
  export AUTHD_PUBLIC_URL=https://auth.example.org
}

smtp_start() {
  setsid /usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$SMTP_PORT" -c aiosmtpd.handlers.Mailbox "$MAILDIR/box" \
    </dev/null >>"$MAILDIR/smtpd.log" 2>&1 &
  SMTP_PID=$!
  wait_for_port "$SMTP_PORT" "$SMTP_PID" 10
}

smtp_stop() {
  [[ -n ${SMTP_PID:-} ]] || return 0
  kill -TERM "$SMTP_PID" 2>/dev/null
  wait "$SMTP_PID" 2>/dev/null
  SMTP_PID=
}

smtp_cleanup() {
  smtp_stop
  [[ -n ${MAILDIR:-} ]] && rm -rf "$MAILDIR"
}

mail_files() { ls -tr "$MAILDIR"/box/new/* 2>/dev/null; }
mail_count() { mail_files | wc -l; }

mail_wait() {
  local want=$1 secs=${2:-20} i
  for ((i = 0; i < secs * 10; i++)); do
    (($(mail_count) >= want)) && return 0
    sleep 0.1
  done
  return 1
}

mail_part() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import email, email.policy, sys
with open(sys.argv[1], 'rb') as f:
    m = email.message_from_binary_file(f, policy=email.policy.default)
what = sys.argv[2]
if what in ('text', 'html'):
    body = m.get_body(preferencelist=('plain',) if what == 'text' else ('html',))
    print(body.get_content() if body else '', end='')
else:
    print(m.get(what, ''), end='')
PY
}

mail_token() { mail_part "$1" text | grep -oE 'token=[A-Za-z0-9_-]+' | head -1 | cut -d= -f2; }

mail_last() { mail_part "$(mail_files | tail -1)" "$1"; }
mail_settle() { mail_wait "$1" || fail "only $(mail_count) of $1 mails arrived"; sleep 1; }

expect_not_logged() {
  local f leaked=0
  for f in "$STATE_DIR"/*.log ${AUDIT:+"$AUDIT"}; do
    [[ -f $f ]] && grep -q -- "$2" "$f" && { fail "$1 is in $f"; leaked=1; }
  done
  ((leaked == 0)) && pass "no $1 in the logs"
}

mail_to() {
  local i f
  for ((i = 0; i < 200; i++)); do
    for f in $(mail_files | tac); do
      [[ $(mail_part "$f" to) == "$1" ]] && { echo "$f"; return 0; }
    done
    sleep 0.1
  done
  return 1
}

mail_stack_start() {
  smtp_pick || exit 1
  smtp_start || { echo "cannot start aiosmtpd"; exit 1; }
  if [[ ${1:-} == audit ]]; then
    export AUTHD_AUDIT_LOG=$MAILDIR/audit.log
    AUDIT=$AUTHD_AUDIT_LOG
  fi
  stack_start
}
