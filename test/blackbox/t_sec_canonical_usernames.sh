#!/usr/bin/env bash
# Attack: a look-alike account. Someone registers "Admin" or "ALICE" next to
# "admin" and "alice", and is taken for them by people, logs and admins; or
# the real owner, typing her name in another case, is refused and retries
# into a lock-out. Usernames are unique under their canonical form (ASCII
# case-folded; only ASCII characters are allowed, so NFC changes nothing),
# sign-in matches by it, and every answer keeps the name as registered.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
stack_start

step "a name taken in one case is taken in every case"
signup Alice 'alice password'
expect_status 201 "sign-up as Alice"
expect_json "the answer keeps the name as registered" .user.username Alice
for variant in alice ALICE aLiCe; do
  signup "$variant" 'mallory password'
  expect_status 409 "sign-up as $variant: taken"
done
printf 'pw-admin-1' | authctl add admin admin >/dev/null || fail "authctl add admin"
printf 'pw-admin-2' | authctl add Admin user >/dev/null 2>&1
expect_ne "authctl add Admin next to admin: refused" 0 "$?"
expect_eq "one admin account" 1 "$(authctl list | grep -ic '^admin\b')"

step "sign-in matches the canonical form and answers the registered name"
for typed in Alice alice ALICE; do
  signin "$typed" 'alice password'
  expect_status 200 "sign-in as $typed"
  expect_json "sign-in as $typed: user.username" .user.username Alice
  http GET /records -H "$(bearer "$TOKEN")"
  expect_status 200 "the token of a sign-in as $typed works"
done
signin alice 'wrong password'
expect_status 500 "a wrong password in another case is still Invalid Login"
expect_json "Invalid Login" .error "Invalid Login"

finish
