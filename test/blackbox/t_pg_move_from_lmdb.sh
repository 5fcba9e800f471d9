#!/usr/bin/env bash
# Moving a site from LMDB to PostgreSQL (docs/scaling-out.md): `authctl
# export` on the LMDB store, `authctl import` into an empty PostgreSQL
# database, then authd on PostgreSQL. Every user (hash, role, _id, __v), and
# every record arrives; passwords still sign in, a signed-out-everywhere
# user's old tokens stay ended, and tokens issued before the move keep
# working (same signing key).
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/../postgres/cluster.sh"
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1   # hashing is not what this test is about
unset AUTHD_STORE
stack_start

step "a site on LMDB"
signup alice 'alice password' admin
ALICE=$TOKEN
signup bob 'bob password'
BOB_OLD=$TOKEN
http POST /signout/all -H "$(bearer "$BOB_OLD")"
expect_status 204 "bob signs out everywhere on LMDB"
http POST /records -H "$(bearer "$ALICE")" -H 'Content-Type: application/json' --data-binary '{"title":"kept"}'
expect_status 201 "a record"
RECORD_ID=$(json ._id)
printf 'carol password' | authctl add carol editor >/dev/null || fail "authctl add carol"
WORK=$STATE_DIR/move
mkdir -p "$WORK"
authctl export "$WORK/site.jsonl"
expect_eq "export on LMDB: exit 0" 0 "$?"
authctl list | sort >"$WORK/lmdb.list"
authd_stop

step "into PostgreSQL"
PG=$(pg_cluster_new) || _harness_die "cannot create a PostgreSQL cluster"
at_exit pg_cluster_remove "$PG"
pg_cluster_start "$PG" || _harness_die "PostgreSQL did not start"
pg_create_db "$PG" authd || _harness_die "cannot create the database"
export AUTHD_STORE=postgresql
AUTHD_DATABASE_URL=$(pg_url "$PG" authd)
export AUTHD_DATABASE_URL
expect_import "import into PostgreSQL" "$WORK/site.jsonl" 'imported 3 users and 1 records'
expect_eq "the same users, roles, _id and __v" "" "$(authctl list | sort | diff "$WORK/lmdb.list" - | head -5)"
authd_start

step "the site on PostgreSQL"
expect_match "authd runs on PostgreSQL" 'postgresql' "$(grep -o 'state in .*' "$STATE_DIR/authd.log" | tail -1)"
signin alice 'alice password'
expect_status 200 "alice signs in with her password"
signin carol 'carol password'
expect_status 200 "carol (made by authctl) signs in"
http GET "/records/$RECORD_ID" -H "$(bearer "$ALICE")"
expect_status 200 "alice's token from before the move works"
expect_json "the record came along" .title kept
http GET /records -H "$(bearer "$BOB_OLD")"
expect_status 401 "bob's token ended before the move stays ended"
signin bob 'bob password'
expect_status 200 "bob signs in again"
finish
