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
