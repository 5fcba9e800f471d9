#!/usr/bin/env bash
# Migration from the Express app: a mongoexport of its users collection with
# bcrypt hashes made here by a real bcrypt (Debian python3-bcrypt, run with
# /usr/bin/python3) is imported keeping _id and role; its users sign in with
# their passwords, and the bcrypt hash is replaced by argon2id at that first
# sign-in. Bad lines are reported with their numbers and nothing is imported
# (or --skip-bad skips them, saying which). export -> import into a fresh
# store round-trips users (hashes, roles, links) and records.
# Attack (issue 23, class 9): an imported bcrypt hash of cost 31 would make
# every anonymous sign-in attempt for that name burn days of CPU, cost 4 is
# cheap to guess: only costs 8 to 14 are imported; another is a bad line named
# with its cost.
source "$(dirname "$0")/harness.sh"
stack_start
WORK=$(mktemp -d)
at_exit rm -rf "$WORK"
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signin() { http POST /signin -H "$(basic "$1:$2")"; }
exported_hash() { authctl export | jq -r --arg u "$1" 'select(.type == "user" and .username == $u) | .password'; }

/usr/bin/python3 -c 'import bcrypt' 2>/dev/null || { fail "/usr/bin/python3 has no bcrypt (Debian python3-bcrypt)"; finish; }
/usr/bin/python3 - "$WORK/users.json" <<'PY'
import bcrypt, json, sys
users = [("6561a1b2c3d4e5f6a7b8c9d0", "ana", "ana's express password", "admin", b"$2b$"),
         ("6561a1b2c3d4e5f6a7b8c9d1", "ben", "ben password", "user", b"$2a$"),
         ("6561a1b2c3d4e5f6a7b8c9d2", "cy@example.com", "p\u00e4ssw\u00f6rd", "editor", b"$2b$")]
with open(sys.argv[1], "w") as out:
    for oid, name, password, role, prefix in users:
        salt = bcrypt.gensalt(rounds=8, prefix=prefix[1:3])
        hashed = bcrypt.hashpw(password.encode(), salt).decode()
        out.write(json.dumps({"_id": {"$oid": oid}, "username": name, "password": hashed, "role": role, "__v": 0}) + "\n")
    for cost, name in ((4, "cheap"), (15, "dear")):
        hashed = bcrypt.hashpw(b"pw", bcrypt.gensalt(rounds=4)).decode().replace("$04$", "$%02d$" % cost)
        with open(sys.argv[1] + "." + name, "w") as other:
            other.write(json.dumps({"username": name, "password": hashed, "role": "user"}) + "\n")
PY
expect_eq "made 3 mongoexport lines" 3 "$(wc -l <"$WORK/users.json")"
expect_match "hashes are bcrypt" '^\$2a\$08\$' "$(jq -r 'select(.username=="ben") | .password' "$WORK/users.json")"

step "all or nothing"
cp "$WORK/users.json" "$WORK/bad.json"
printf '%s\n' '{"username":"dee","password":"plaintext!","role":"user"}' 'not json' \
  '{"username":"eve","password":"","role":"emperor"}' >>"$WORK/bad.json"
cat "$WORK/users.json.cheap" "$WORK/users.json.dear" >>"$WORK/bad.json"
authctl import "$WORK/bad.json" >/dev/null 2>"$WORK/bad.err"
expect_ne "import with bad lines: non-zero exit" 0 "$?"
expect_match "line 4 reported (not a hash)" 'line 4: password is not' "$(cat "$WORK/bad.err")"
expect_match "line 5 reported (bad JSON)" 'line 5: ' "$(cat "$WORK/bad.err")"
expect_match "line 6 reported (role)" "line 6: unknown role 'emperor'" "$(cat "$WORK/bad.err")"
expect_match "line 7 reported (bcrypt cost 4)" 'line 7: password is a bcrypt hash of cost 4: only costs 8 to 14' "$(cat "$WORK/bad.err")"
expect_match "line 8 reported (bcrypt cost 15)" 'line 8: password is a bcrypt hash of cost 15: only costs 8 to 14' "$(cat "$WORK/bad.err")"
expect_eq "nothing imported" 0 "$(authctl list | grep -Ewc 'ana|ben|dee')"
authctl import "$WORK/bad.json" --skip-bad >"$WORK/skip.out" 2>"$WORK/skip.err"
expect_eq "--skip-bad: exit 0" 0 "$?"
expect_match "--skip-bad says what it skipped" 'skipped line 4' "$(cat "$WORK/skip.err")"
expect_match "--skip-bad names the bcrypt cost it skipped" 'skipped line 8: .*cost 15' "$(cat "$WORK/skip.err")"
expect_match "--skip-bad summary" 'imported 3 users.*skipped 5 bad lines' "$(cat "$WORK/skip.out")"
expect_eq "no user of a refused cost came in" 0 "$(authctl list | grep -Ewc 'cheap|dear')"
authctl import "$WORK/users.json" >/dev/null 2>"$WORK/again.err"
expect_ne "importing the same users again: refused (usernames taken)" 0 "$?"
expect_match "names the taken username" "line 1: username 'ana' already exists" "$(cat "$WORK/again.err")"

step "the Express users sign in; _id and role kept; bcrypt becomes argon2id"
expect_eq "ana keeps _id and role" 1 "$(authctl list | grep -Ec '^ana +admin +6561a1b2c3d4e5f6a7b8c9d0')"
expect_eq "cy keeps role editor" 1 "$(authctl list | grep -Ec '^cy@example.com +editor +6561a1b2c3d4e5f6a7b8c9d2')"
signin ben 'wrong password'
expect_status 500 "ben with a wrong password"
expect_match "ben's hash still bcrypt after a failure" '^\$2a\$' "$(exported_hash ben)"
signin ben 'ben password'
expect_status 200 "ben signs in with his Express password"
expect_match "ben's hash is now argon2id" '^\$argon2id\$' "$(exported_hash ben)"
signin ben 'ben password'
expect_status 200 "ben signs in again (argon2id)"
signin "ana" "ana's express password"
expect_status 200 "ana ($2b$) signs in"
ANA=$(json .token)
signin "cy@example.com" "pässwörd"
expect_status 200 "cy (UTF-8 password) signs in"
http GET /admin/users -H "Authorization: Bearer $ANA"
expect_status 200 "ana is admin after the import"

step "bulk lines: argon2id PHC hashes"
HASH=$(exported_hash ben)
printf '{"username":"bulk1","password":"%s","role":"writer"}\n' "$HASH" | authctl import - >/dev/null
expect_eq "import from stdin: exit 0" 0 "$?"
signin bulk1 'ben password'
expect_status 200 "bulk1 signs in with the PHC hash's password"

step "export -> import round trip into a fresh store"
http POST /records -H "Authorization: Bearer $ANA" -H 'Content-Type: application/json' --data-binary '{"title":"kept"}'
RECORD_ID=$(json ._id)
authctl export "$WORK/export.jsonl"
expect_eq "export: exit 0" 0 "$?"
expect_eq "export file mode 0600" 600 "$(stat -c %a "$WORK/export.jsonl")"
expect_eq "export has 4 users" 4 "$(jq -c 'select(.type=="user")' "$WORK/export.jsonl" | wc -l)"
expect_eq "export has the record" 1 "$(jq -c --arg id "$RECORD_ID" 'select(.type=="record" and .record._id==$id)' "$WORK/export.jsonl" | wc -l)"
authd_stop
OLD=$AUTHD_STATE_DIR
export AUTHD_STATE_DIR=$WORK/fresh
if [[ ${AUTHD_STORE:-lmdb} == postgresql ]]; then pg_bb_fresh_database; fi
expect_import "import of the export" "$WORK/export.jsonl" 'imported 4 users and 1 records'
authd_start
signin ben 'ben password'
expect_status 200 "ben signs in from the fresh store"
signin ana "ana's express password"
expect_status 200 "ana signs in from the fresh store"
http GET "/records/$RECORD_ID" -H "Authorization: Bearer $(json .token)"
expect_json "the record came along" .title kept
authctl export | jq -c 'del(.created_at, .updated_at)' | sort >"$WORK/second.jsonl"
jq -c 'del(.created_at, .updated_at)' "$WORK/export.jsonl" | sort >"$WORK/first.jsonl"
# ben and ana signed in again: argon2id rehash happened only for bcrypt users, already done.
expect_eq "a second export equals the first" "" "$(diff "$WORK/first.jsonl" "$WORK/second.jsonl" | head -5)"
export AUTHD_STATE_DIR=$OLD
finish
