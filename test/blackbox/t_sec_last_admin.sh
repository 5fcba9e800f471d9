#!/usr/bin/env bash
# Attacks and accidents this stops (issue 23, class 10):
#  - an admin demotes or deletes the last admin (by mistake, or a stolen
#    admin session does it on purpose): nobody can administer the site any
#    more. Two admins demoting each other at the same moment must not leave
#    none either (the check and the write are one transaction). Only authctl,
#    on the machine, may do it, with --force.
#  - a refused capability check whose audit line does not say whose valid
#    token was refused: the record hides who probed.
#  - a 429 that names the wrong limit (the sign-up limit answered "too many
#    failed sign-ins"): each limit says which it is.
export AUTHD_SIGNUP_ADDRESS_LIMIT=3
export AUTHD_SIGNIN_USER_THRESHOLD=2 AUTHD_SIGNIN_FIRST_DELAY=60
source "$(dirname "$0")/harness.sh"
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

admin_token() { signin "$1" "pw-$1" >/dev/null; json .token; }
set_role() { http PUT "/admin/users/$2" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' --data-binary "{\"role\":\"$3\"}"; }
admins() { accounts | awk '$2 == "admin"' | wc -l; }

add_user root pw-root admin
ROOT=$(admin_token root)
expect_ne "setup: root signed in" "" "$ROOT"

step "the last admin cannot be demoted or deleted through the API"
set_role "$ROOT" root editor
expect_status 409 "demoting the last admin"
expect_match "says why" 'last admin' "$(json .error)"
http DELETE /admin/users/root -H "Authorization: Bearer $ROOT"
expect_status 409 "deleting the last admin"
expect_eq "root is still admin" admin "$(account_field root role)"
expect_eq "the refusal is audited" 1 \
  "$(jq -c 'select(.event=="role_changed" and .outcome=="refused" and .username=="root" and .actor=="root")' "$AUTHD_AUDIT_LOG" | wc -l)"

step "two admins demoting each other at once leave one"
for round in 1 2 3 4 5; do
  add_user "adm$round" "pw-adm$round" admin
  OTHER=$(admin_token "adm$round")
  set_role "$ROOT" root admin >/dev/null  # root is admin at the start of each round
  curl -s -o /dev/null -X PUT "$BASE_URL/admin/users/adm$round" -H "Authorization: Bearer $ROOT" \
    -H 'Content-Type: application/json' --data-binary '{"role":"user"}' &
  a=$!
  curl -s -o /dev/null -X DELETE "$BASE_URL/admin/users/root" -H "Authorization: Bearer $OTHER" &
  b=$!
  wait "$a" "$b"
  expect_eq "round $round: exactly one admin left" 1 "$(admins)"
  # Put the pair back: root admin again (by authctl if root was deleted), adm demoted.
  if ! account_field root role >/dev/null; then add_user root pw-root admin; fi
  authctl role root admin >/dev/null
  authctl role "adm$round" user --force >/dev/null
  ROOT=$(admin_token root)
done

step "authctl keeps the last admin unless --force"
expect_eq "setup: root is the only admin" 1 "$(admins)"
authctl role root user >/dev/null 2>"$AUDIT_DIR/role.err"
expect_ne "authctl role: refused" 0 "$?"
expect_match "authctl says why and how" 'last admin.*--force' "$(cat "$AUDIT_DIR/role.err")"
authctl delete root >/dev/null 2>&1
expect_ne "authctl delete: refused" 0 "$?"
expect_eq "root is still admin" admin "$(account_field root role)"
authctl role root editor --force >/dev/null
expect_eq "authctl role --force: done" editor "$(account_field root role)"
expect_eq "the forced change is audited as such" 1 \
  "$(jq -c 'select(.event=="role_changed" and .outcome=="ok" and .username=="root" and (.reason|test("forced")))' "$AUTHD_AUDIT_LOG" | wc -l)"

step "a refused capability check names whose token it was"
add_user reader pw-reader user
READER=$(admin_token reader)
http POST /records -H "Authorization: Bearer $READER" -H 'Content-Type: application/json' --data-binary '{"title":"x"}'
expect_status 403 "role user cannot create"
RID=$(header X-Request-Id)
expect_eq "the denied line names reader" reader \
  "$(jq -r --arg id "$RID" 'select(.event=="denied" and .request_id==$id) | .username' "$AUTHD_AUDIT_LOG")"

step "each 429 names its limit"
for n in 1 2 3; do signup "limit$n" "limit password $n" >/dev/null; done
signup limit4 'limit password 4'
expect_status 429 "the sign-up limit"
expect_match "sign-up limit: its own words" '^too many sign-ups from this address; retry in [0-9]+ s$' "$(json .detail)"
for n in 1 2 3; do signin reader "wrong $n" >/dev/null; done
signin reader 'still wrong'
expect_status 429 "the sign-in throttle"
expect_match "sign-in throttle: its own words" '^too many failed sign-ins for this account; retry in [0-9]+ s$' "$(json .detail)"
finish
