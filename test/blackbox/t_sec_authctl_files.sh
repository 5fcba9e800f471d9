#!/usr/bin/env bash
# Attack (SECURITY.md, issue 41 class 13): `authctl export FILE` created FILE
# with mode 0666 less the umask, followed a symlink planted at FILE (writing
# every password hash, and now every second factor, wherever it pointed: a
# file of the operator's, or a place another user reads) and only then
# narrowed the mode; restore copied through a fixed name in the state
# directory. Every file authctl writes (export, backup, restore's copy, the
# signing key, the EdDSA key ring, the audit log it appends to) is created
# exclusively, never through a link, with its final mode even under umask
# 000: a link at FILE is replaced (export) or refused (backup), its target
# untouched. No web server: authctl on a state directory of its own.
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export AUTHD_STATE_DIR=$(mktemp -d)
trap 'rm -rf "$AUTHD_STATE_DIR"' EXIT
WORK=$AUTHD_STATE_DIR/work
mkdir -m 0700 "$WORK"
umask 000
mode() { stat -c %a "$1" 2>&1; }
victim() { printf 'the operator'"'"'s own file\n' >"$WORK/victim"; chmod 0644 "$WORK/victim"; VICTIM_SUM=$(sha256sum <"$WORK/victim"); }
untouched() { expect_eq "$1: the link's target is untouched (content, mode 644)" "$VICTIM_SUM 644" "$(sha256sum <"$WORK/victim") $(mode "$WORK/victim")"; }

step "files made under umask 000"
printf 'alice password' | authctl add alice admin >/dev/null
expect_eq "authctl add: exit 0" 0 "$?"
expect_eq "the signing key authctl made: mode 600" 600 "$(mode "$AUTHD_STATE_DIR/signing.key")"
authctl export "$WORK/plain.jsonl"
expect_eq "export to a new file: exit 0" 0 "$?"
expect_eq "export: mode 600" 600 "$(mode "$WORK/plain.jsonl")"
expect_eq "export: the user is in it" alice "$(jq -r 'select(.type=="user") | .username' "$WORK/plain.jsonl")"
authctl backup "$WORK/plain.mdb" >/dev/null
expect_eq "backup to a new file: exit 0" 0 "$?"
expect_eq "backup: mode 600" 600 "$(mode "$WORK/plain.mdb")"
AUTHD_TOKEN_ALGORITHM=EdDSA authctl key rotate >/dev/null
expect_eq "key rotate (EdDSA): exit 0" 0 "$?"
expect_eq "every key file: mode 600" "" "$(find "$AUTHD_STATE_DIR/keys" -type f ! -perm 0600 ! -name .lock)"
expect_eq "no temporary file left in the work directory" "plain.jsonl plain.mdb" "$(ls -A "$WORK" | tr '\n' ' ' | sed 's/ $//')"

step "a link at FILE is never written through"
victim
ln -s "$WORK/victim" "$WORK/export.jsonl"
authctl export "$WORK/export.jsonl"
expect_eq "export over a link: exit 0" 0 "$?"
untouched "export"
expect_eq "export: the link itself replaced by a regular file of mode 600" "regular file 600" \
  "$(stat -c '%F %a' "$WORK/export.jsonl")"
expect_eq "export: the export is in it" alice "$(jq -r 'select(.type=="user") | .username' "$WORK/export.jsonl")"
ln -s "$WORK/created-by-export" "$WORK/dangling.jsonl"
authctl export "$WORK/dangling.jsonl"
expect_eq "export over a dangling link: nothing made where it points" no \
  "$([[ -e $WORK/created-by-export ]] && echo yes || echo no)"

ln -s "$WORK/victim" "$WORK/backup.mdb"
authctl backup "$WORK/backup.mdb" >/dev/null 2>"$WORK/backup.err"
expect_ne "backup over a link: refused" 0 "$?"
expect_match "backup: says it exists" 'already exists' "$(cat "$WORK/backup.err")"
untouched "backup"
ln -s "$WORK/victim" "$WORK/next.mdb.partial"   # the name earlier releases wrote to first
authctl backup "$WORK/next.mdb" >/dev/null
expect_eq "backup beside a planted NAME.partial link: exit 0" 0 "$?"
untouched "backup beside NAME.partial"
expect_eq "backup: mode 600" 600 "$(mode "$WORK/next.mdb")"

step "restore"
RESTORED=$WORK/restored
mkdir -m 0700 "$RESTORED"
ln -s "$WORK/victim" "$RESTORED/data.mdb.restore"   # the name earlier releases copied through
AUTHD_STATE_DIR=$RESTORED authctl restore "$WORK/plain.mdb" >/dev/null
expect_eq "restore: exit 0" 0 "$?"
untouched "restore"
expect_eq "restored data.mdb: a regular file of mode 600" "regular file 600" "$(stat -c '%F %a' "$RESTORED/data.mdb")"
expect_eq "the restored store has alice" 1 "$(AUTHD_STATE_DIR=$RESTORED authctl list 2>&1 | grep -c '^alice ')"

step "the audit log"
ln -s "$WORK/victim" "$WORK/audit.log"
printf 'bob password' | AUTHD_AUDIT_LOG=$WORK/audit.log authctl add bob user >/dev/null 2>"$WORK/audit.err"
expect_ne "an audit_log that is a link: refused" 0 "$?"
untouched "audit log"
rm "$WORK/audit.log"
printf 'bob password' | AUTHD_AUDIT_LOG=$WORK/audit.log authctl add bob user >/dev/null
expect_eq "a new audit log: mode 600" 600 "$(mode "$WORK/audit.log")"
finish
