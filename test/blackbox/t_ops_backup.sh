#!/usr/bin/env bash
# authctl backup under load, restore into a fresh state directory: every
# user whose sign-up had completed before the backup started signs in from
# the restored store, which is a complete LMDB (mdb_stat reads it). restore
# refuses a non-empty store without --force, and a file that is no backup.
source "$(dirname "$0")/harness.sh"
export AUTHD_ARGON2_MEMORY_KIB=1024 AUTHD_ARGON2_ITERATIONS=1
stack_start
WORK=$(mktemp -d)
at_exit rm -rf "$WORK"

basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
signup_loop() {  # $1: prefix; appends each name to $WORK/done once its 201 came back
  local i
  for i in $(seq 1 60); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
      --data-binary "{\"username\":\"$1$i\",\"password\":\"pw $1$i\",\"fullname\":\"F\",\"email\":\"e@example.com\"}" "$BASE_URL/signup")
    [[ $code == 201 ]] && echo "$1$i" >>"$WORK/done"
  done
}
pids=()
for p in a b c d; do signup_loop "$p" & pids+=($!); done
sleep 1
cp "$WORK/done" "$WORK/before"          # completed before the backup started
authctl backup "$WORK/backup.mdb" >/dev/null 2>"$WORK/backup.err"
expect_eq "backup under load: exit 0" 0 "$?"
wait "${pids[@]}"
expect_ne "some sign-ups completed before the backup" 0 "$(wc -l <"$WORK/before")"
expect_eq "backup file mode 0600" 600 "$(stat -c %a "$WORK/backup.mdb")"
authctl backup "$WORK/backup.mdb" >/dev/null 2>&1
expect_ne "backup refuses to overwrite a file" 0 "$?"
expect_eq "mdb_stat reads the backup" 0 "$(mdb_stat -n "$WORK/backup.mdb" >/dev/null 2>&1; echo $?)"

step "restore into a fresh state directory"
authd_stop
OLD_STATE=$AUTHD_STATE_DIR
export AUTHD_STATE_DIR=$WORK/restored
authctl restore "$WORK/backup.mdb" >/dev/null 2>"$WORK/restore.err"
expect_eq "restore into an empty directory: exit 0" 0 "$?"
authctl restore "$WORK/backup.mdb" >/dev/null 2>"$WORK/restore2.err"
expect_ne "restore over a non-empty store without --force: refused" 0 "$?"
expect_match "the refusal says --force" 'force' "$(cat "$WORK/restore2.err")"
echo 'not a database' >"$WORK/junk"
authctl restore "$WORK/junk" --force >/dev/null 2>&1
expect_ne "restore of a file that is no backup: refused" 0 "$?"
authctl restore "$WORK/backup.mdb" --force >/dev/null 2>&1
expect_eq "restore --force: exit 0" 0 "$?"
authd_start
missing=0
while read -r name; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "$(basic "$name:pw $name")" -d "" "$BASE_URL/signin")
  [[ $code == 200 ]] || { missing=$((missing + 1)); echo "not restored: $name ($code)"; }
done <"$WORK/before"
expect_eq "every user signed up before the backup signs in after the restore" 0 "$missing"
restored_count=$(authctl list | tail -n +2 | wc -l)
expect_eq "the restored store holds no more than the original" yes "$([[ $restored_count -le $(wc -l <"$WORK/done") ]] && echo yes || echo no)"
export AUTHD_STATE_DIR=$OLD_STATE
finish
