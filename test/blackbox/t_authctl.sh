#!/usr/bin/env bash
# Proves the admin command on the LMDB of a RUNNING server: `add USER ROLE` (password on
# stdin) then `list` shows user and role and the user signs in via /signin; `role` changes the
# role; `add` of an existing name, `role` with an unknown role or unknown user, `add` with an
# unknown role and `delete` of an unknown user all fail non-zero and change nothing; `delete`
# removes the account; the server keeps serving throughout.
source "$(dirname "$0")/harness.sh"
stack_start

# list_has USER ROLE: some line of `authctl list` names both USER and ROLE as whole words
list_has() { authctl list 2>/dev/null | grep -Ew "$1" | grep -qEw "$2"; }
list_names() { authctl list 2>/dev/null | grep -qEw "$1"; }

signup alice 'alice password'; expect_eq "setup: signup alice" 201 "$STATUS"
signin alice 'alice password'; expect_eq "setup: signin alice" 200 "$STATUS"
ATOK=$(json .token)

# --- add + list + signin -------------------------------------------------------------------
printf '%s' 'erin password' | authctl add erin editor >/dev/null 2>&1
expect_eq "add erin editor: exit 0" 0 "$?"
authctl list >/dev/null 2>&1
expect_eq "list: exit 0" 0 "$?"
expect_eq "list shows erin with editor" yes "$(yesno list_has erin editor)"
expect_eq "list shows the signed-up alice with user" yes "$(yesno list_has alice user)"
expect_eq "list does not show a user that does not exist" no "$(yesno list_names zed)"
signin erin 'erin password'
expect_eq "erin (added by authctl) signs in" 200 "$STATUS"
expect_eq "erin signin username" erin "$(json .user.username)"
ETOK=$(json .token)
http POST /records -H "Authorization: Bearer $ETOK" -H 'Content-Type: application/json' --data-binary '{"t":1}'
expect_eq "erin has the editor capability create" 201 "$STATUS"
signin erin 'wrong password'
expect_eq "erin with a wrong password: 500" 500 "$STATUS"

# a password given with a trailing newline (echo pw | authctl add ...) is the line without it
echo 'fred password' | authctl add fred writer >/dev/null 2>&1
expect_eq "add fred writer (echo): exit 0" 0 "$?"
signin fred 'fred password'
expect_eq "fred signs in with the password without the newline" 200 "$STATUS"

# --- failures change nothing -------------------------------------------------------------------
printf '%s' 'other password' | authctl add erin admin >/dev/null 2>&1
expect_eq "add existing erin: non-zero exit" yes "$(yesno test $? -ne 0)"
expect_eq "after failed add: erin still editor" yes "$(yesno list_has erin editor)"
expect_eq "after failed add: erin not admin" no "$(yesno list_has erin admin)"
signin erin 'erin password'
expect_eq "after failed add: original password still signs in" 200 "$STATUS"
signin erin 'other password'
expect_eq "after failed add: new password does not sign in" 500 "$STATUS"

printf '%s' 'alice again' | authctl add alice user >/dev/null 2>&1
expect_eq "add existing (signed-up) alice: non-zero exit" yes "$(yesno test $? -ne 0)"

authctl role erin superuser >/dev/null 2>&1
expect_eq "role with unknown role: non-zero exit" yes "$(yesno test $? -ne 0)"
expect_eq "after failed role: erin still editor" yes "$(yesno list_has erin editor)"
authctl role erin Admin >/dev/null 2>&1
expect_eq "role with wrongly-cased role Admin: non-zero exit" yes "$(yesno test $? -ne 0)"

authctl role nosuchuser admin >/dev/null 2>&1
expect_eq "role of an unknown user: non-zero exit" yes "$(yesno test $? -ne 0)"
expect_eq "role of an unknown user: no such user appears" no "$(yesno list_names nosuchuser)"

printf '%s' 'gina password' | authctl add gina overlord >/dev/null 2>&1
expect_eq "add with unknown role: non-zero exit" yes "$(yesno test $? -ne 0)"
expect_eq "add with unknown role: gina not listed" no "$(yesno list_names gina)"
signin gina 'gina password'
expect_eq "add with unknown role: gina cannot sign in" 500 "$STATUS"

authctl delete nosuchuser >/dev/null 2>&1
expect_eq "delete unknown user: non-zero exit" yes "$(yesno test $? -ne 0)"

# --- role change --------------------------------------------------------------------------------
# authd has just read alice for a guarded request (LMDB: kept until the next
# commit); authctl's change, another process's commit, is seen at once.
http POST /records -H "Authorization: Bearer $ATOK" -H 'Content-Type: application/json' --data-binary '{"t":2}'
expect_eq "alice (user) may not create" 403 "$STATUS"
authctl role alice writer >/dev/null 2>&1
expect_eq "role alice writer: exit 0" 0 "$?"
expect_eq "list shows alice with writer" yes "$(yesno list_has alice writer)"
http POST /records -H "Authorization: Bearer $ATOK" -H 'Content-Type: application/json' --data-binary '{"t":2}'
expect_eq "alice now may create" 201 "$STATUS"

# --- delete --------------------------------------------------------------------------------------
authctl delete erin >/dev/null 2>&1
expect_eq "delete erin: exit 0" 0 "$?"
expect_eq "list no longer shows erin" no "$(yesno list_names erin)"
signin erin 'erin password'
expect_eq "deleted erin cannot sign in" 500 "$STATUS"
authctl delete erin >/dev/null 2>&1
expect_eq "delete erin twice: non-zero exit" yes "$(yesno test $? -ne 0)"
printf '%s' 'new erin password' | authctl add erin user >/dev/null 2>&1
expect_eq "re-add erin after delete: exit 0" 0 "$?"
signin erin 'new erin password'
expect_eq "re-added erin signs in" 200 "$STATUS"

# --- the server kept running ----------------------------------------------------------------------
expect_eq "authd process still alive" yes "$(yesno kill -0 "$AUTHD_PID")"
http GET /records -H "Authorization: Bearer $ATOK"
expect_eq "server still serves guarded routes" 200 "$STATUS"
signin alice 'alice password'
expect_eq "server still signs in" 200 "$STATUS"

finish
