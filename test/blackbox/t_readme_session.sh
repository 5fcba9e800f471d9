#!/usr/bin/env bash
# README.md's "A session with curl", run as written: the first ```sh block under
# that heading is taken from README.md and run by bash, with one line changed,
# `B=http://127.0.0.1:8080`, to this stack's address (make run's port is not
# free here), from a directory where `build/authctl` is the authctl under test.
# Its answers must be the ones its comments promise: signup 201, the guarded
# read 200 [], POST /records 403 for role user, DELETE 403 Access Denied, then
# `build/authctl role alice admin`, the record created (201, an _id) and DELETE
# with the same token 200.
source "$(dirname "$0")/harness.sh"
stack_start

SESSION=$(awk '/^## A session with curl/ { in_section = 1; next }
               in_section && /^## / { exit }
               in_section && /^```sh$/ { in_block = 1; next }
               in_section && in_block && /^```$/ { exit }
               in_block { print }' "$SOURCE_DIR/README.md")
expect_match "README.md has the session's block" 'build/authctl role alice admin' "$SESSION"
expect_eq "the session sets B to make run's address" 1 "$(grep -c '^B=http://127.0.0.1:8080$' <<<"$SESSION")"
SESSION=$(sed "s|^B=http://127.0.0.1:8080\$|B=$BASE_URL|" <<<"$SESSION")

WORK=$(mktemp -d)
at_exit rm -rf "$WORK"
mkdir "$WORK/build"
ln -s "$AUTHCTL_BIN" "$WORK/build/authctl"
# -e -o pipefail: a command of the block that fails (authctl, jq, curl) stops it.
OUT=$(cd "$WORK" && bash -e -o pipefail -c "$SESSION" 2>"$WORK/err")
expect_eq "the session runs to its end, every command succeeding" 0 "$?"
expect_eq "no command of the session complains (curl's progress meter aside)" "" \
  "$(grep -E 'authctl:|jq:|curl:|not found' "$WORK/err")"
# The status lines of its five `curl -i`, in order (a body without a final
# newline runs into the next status line).
expect_eq "1 signup 201, 3 GET 200 and POST 403, 4 DELETE 403, 5 DELETE 200" "201 200 403 403 200" \
  "$(grep -oE 'HTTP/[0-9.]+ [0-9]{3}' <<<"$OUT" | cut -d' ' -f2 | paste -sd' ')"
expect_match "1 signup: role user" '"role":"user"' "$OUT"
expect_match "3 the guarded read: []" $'\r\n\r\n\\[\\]' "$OUT"
expect_match "4 DELETE as user: Access Denied" '\{"error":"Access Denied"\}' "$OUT"

# What the session left: alice an admin, her record deleted.
expect_match "5 authctl made alice an admin" 'admin' "$(authctl show alice 2>&1)"
http POST /signin -u 'alice:correct horse' -d ''
expect_status 200 "alice signs in with the session's password"
http GET /records -H "Authorization: Bearer $(json .token)"
expect_eq "5 the record the session created is gone" 0 "$(json 'length')"

finish
