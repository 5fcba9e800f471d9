#!/usr/bin/env bash
# Proves re-authentication on every guarded call: the guard loads the user, so a role change
# made with `authctl role` takes effect on the very next request carrying the SAME token
# (user: DELETE 403 -> admin: DELETE 200 -> user again: DELETE 403; writer: create yes, update no).
source "$(dirname "$0")/harness.sh"
stack_start

CT='Content-Type: application/json'
denied_403() { expect_denied "$1" 403; }

printf '%s' 'boss password' | authctl add boss admin >/dev/null 2>&1
expect_eq "setup: authctl add boss admin" 0 "$?"
signin boss 'boss password'; expect_eq "setup: signin boss" 200 "$STATUS"
BOSS="Authorization: Bearer $(json .token)"
http POST /records -H "$BOSS" -H "$CT" --data-binary '{"title":"r1"}'; expect_eq "setup: r1" 201 "$STATUS"; R1=$(json ._id)
http POST /records -H "$BOSS" -H "$CT" --data-binary '{"title":"r2"}'; expect_eq "setup: r2" 201 "$STATUS"; R2=$(json ._id)

signup dave 'dave password'; expect_eq "setup: signup dave" 201 "$STATUS"
signin dave 'dave password'; expect_eq "setup: signin dave" 200 "$STATUS"
DAVE="Authorization: Bearer $(json .token)"

http DELETE "/records/$R1" -H "$DAVE"
denied_403 "dave (user) DELETE"
http GET "/records/$R1" -H "$DAVE"
expect_eq "r1 still there after the refused DELETE" 200 "$STATUS"

authctl role dave admin >/dev/null 2>&1
expect_eq "authctl role dave admin exits 0" 0 "$?"
http DELETE "/records/$R1" -H "$DAVE"
expect_eq "same token after promotion to admin: DELETE 200" 200 "$STATUS"
http GET "/records/$R1" -H "$DAVE"
expect_eq "r1 gone" 404 "$STATUS"

authctl role dave user >/dev/null 2>&1
expect_eq "authctl role dave user exits 0" 0 "$?"
http DELETE "/records/$R2" -H "$DAVE"
denied_403 "same token after demotion to user: DELETE"
http POST /records -H "$DAVE" -H "$CT" --data-binary '{"title":"by dave"}'
denied_403 "same token after demotion to user: POST"
http GET "/records/$R2" -H "$DAVE"
expect_eq "r2 still there" 200 "$STATUS"

authctl role dave writer >/dev/null 2>&1
expect_eq "authctl role dave writer exits 0" 0 "$?"
http POST /records -H "$DAVE" -H "$CT" --data-binary '{"title":"by dave"}'
expect_eq "same token as writer: POST 201" 201 "$STATUS"
http PUT "/records/$R2" -H "$DAVE" -H "$CT" --data-binary '{"title":"dave was here"}'
denied_403 "same token as writer: PUT"

authctl role dave editor >/dev/null 2>&1
expect_eq "authctl role dave editor exits 0" 0 "$?"
http PUT "/records/$R2" -H "$DAVE" -H "$CT" --data-binary '{"title":"dave was here"}'
expect_eq "same token as editor: PUT 200" 200 "$STATUS"
http DELETE "/records/$R2" -H "$DAVE"
denied_403 "same token as editor: DELETE"

# a fresh sign-in reports the same account
signin dave 'dave password'
expect_eq "dave can still sign in" 200 "$STATUS"
expect_eq "signin username" dave "$(json .user.username)"

finish
