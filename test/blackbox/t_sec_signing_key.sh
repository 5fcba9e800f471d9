#!/usr/bin/env bash
# Stops offline brute-forcing of the token key (RFC 7518 §3.2, RFC 8725 §3.5): authd refuses to
# start — `authd --check` fails with a reason, and so does the server itself — when the HMAC key
# is shorter than 32 bytes, whether given inline (AUTHD_SIGNING_KEY=hex) or as a file; a key it
# generates itself is 32 bytes, mode 0600.
source "$(dirname "$0")/harness.sh"
make_temp_dir WORK key
export AUTHD_STATE_DIR=$WORK/state

# check ENV... : runs `authd --check` with the extra environment; sets RC and OUT.
check() { OUT=$(env "$@" "$AUTHD_BIN" --check 2>&1); RC=$?; }
hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# check_exits CODE|fails WHAT ENV...: runs check ENV... and checks its exit status.
check_exits() {
  local want=$1 what=$2
  shift 2
  check "$@"
  if [[ $want == fails ]]; then expect_ne "$what: --check fails" 0 "$RC"; else expect_eq "$what: --check exits $want" "$want" "$RC"; fi
}

step "inline hex keys"
check_exits 0 "control: 32-byte hex key" AUTHD_SIGNING_KEY="$(hex 32)"
check_exits fails "31-byte hex key" AUTHD_SIGNING_KEY="$(hex 31)"
expect_match "31-byte hex key: the reason names the key" 'signing_key|signing key' "$OUT"
check_exits fails "1-byte hex key" AUTHD_SIGNING_KEY="$(hex 1)"
check_exits fails "a key that is not hex" AUTHD_SIGNING_KEY="$(hex 31)zz"

step "key files"
head -c 32 /dev/urandom >"$WORK/key32"; chmod 600 "$WORK/key32"
head -c 31 /dev/urandom >"$WORK/key31"; chmod 600 "$WORK/key31"
: >"$WORK/key0"
check_exits 0 "control: 32-byte key file" AUTHD_SIGNING_KEY_FILE="$WORK/key32"
check_exits fails "31-byte key file" AUTHD_SIGNING_KEY_FILE="$WORK/key31"
expect_match "31-byte key file: the reason names the file" 'key31' "$OUT"
check_exits fails "empty key file" AUTHD_SIGNING_KEY_FILE="$WORK/key0"
expect_eq "the empty key file was not replaced" 0 "$(stat -c %s "$WORK/key0")"

step "the server itself does not start with a short key"
AUTHD_SIGNING_KEY_FILE="$WORK/key31" fcgi_spawn "$WORK/authd2.sock" "$WORK/authd.log" "$AUTHD_BIN"
PID=$SPAWNED_PID
for _ in $(seq 50); do proc_alive "$PID" || break; sleep 0.1; done
if proc_alive "$PID"; then
  fail "authd keeps running with a 31-byte key"
  kill -TERM "$PID"
else
  wait "$PID"; RC=$?
  expect_ne "authd with a 31-byte key exits non-zero" 0 "$RC"
  expect_match "authd says why" 'key31' "$(cat "$WORK/authd.log")"
fi

step "a generated key"
check
expect_eq "no key configured: --check exits 0 (a key is generated)" 0 "$RC"
expect_eq "generated key: 32 bytes" 32 "$(stat -c %s "$AUTHD_STATE_DIR/signing.key")"
expect_eq "generated key: mode 0600" 600 "$(stat -c %a "$AUTHD_STATE_DIR/signing.key")"
finish
