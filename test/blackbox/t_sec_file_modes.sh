#!/usr/bin/env bash
# Stops other local users from reading the user database or the signing key (CWE-276, CWE-732):
# the state directory is 0700 (created so, or tightened when it exists with looser modes) and
# data.mdb, lock.mdb and signing.key are 0600 — even when authd or authctl runs with umask 000.
source "$(dirname "$0")/harness.sh"
stack_start

mode() { stat -c %a "$1" 2>/dev/null || echo missing; }
check_state() { # DESC DIR
  local desc=$1 dir=$2 f
  expect_eq "$desc: the directory is 0700" 700 "$(mode "$dir")"
  for f in data.mdb lock.mdb signing.key; do
    expect_eq "$desc: $f is 0600" 600 "$(mode "$dir/$f")"
  done
}

authd_stop
umask 000
step "a state directory authd creates, under umask 000"
export AUTHD_STATE_DIR=$STATE_DIR/fresh
authd_start || fail "authd starts with a fresh state directory"
signup alice pw; expect_eq "signup alice in fresh" 201 "$STATUS"
check_state "created" "$AUTHD_STATE_DIR"

step "an existing state directory with loose modes is tightened"
authd_stop
mkdir -m 0777 "$STATE_DIR/loose"
chmod 0777 "$STATE_DIR/loose"
expect_eq "setup: the directory starts 0777" 777 "$(mode "$STATE_DIR/loose")"
export AUTHD_STATE_DIR=$STATE_DIR/loose
authd_start || fail "authd starts with a loose state directory"
signup bob pw; expect_eq "signup bob in loose" 201 "$STATUS"
check_state "tightened" "$AUTHD_STATE_DIR"

step "authctl refuses a state directory that does not exist (it creates no store by mistake)"
export AUTHD_STATE_DIR=$STATE_DIR/byctl
add_user carol 'carol password' user >/dev/null 2>&1
expect_ne "authctl add on a missing state directory fails" 0 "$?"
expect_eq "... and creates nothing" missing "$(mode "$AUTHD_STATE_DIR")"

step "authctl, first on a new (empty, 0777) state directory, creates the same modes"
mkdir -m 0777 "$AUTHD_STATE_DIR"
add_user carol 'carol password' user
expect_eq "authctl add: exit 0" 0 "$?"
expect_eq "authctl: the directory is 0700" 700 "$(mode "$AUTHD_STATE_DIR")"
expect_eq "authctl: data.mdb is 0600" 600 "$(mode "$AUTHD_STATE_DIR/data.mdb")"
expect_eq "authctl: lock.mdb is 0600" 600 "$(mode "$AUTHD_STATE_DIR/lock.mdb")"
if [[ -e $AUTHD_STATE_DIR/signing.key ]]; then
  expect_eq "authctl: signing.key is 0600" 600 "$(mode "$AUTHD_STATE_DIR/signing.key")"
fi
finish
