#!/usr/bin/env bash
# Database faults on the PostgreSQL store, through the real front end:
#   - PostgreSQL down when authd starts: authd starts anyway, routes that need
#     the store answer 503 JSON (with Retry-After), and it recovers by itself
#     once PostgreSQL is up (the schema is created then);
#   - every connection of authd killed by the server: the next requests work
#     (dropped connections are replaced);
#   - a table locked by someone else: no request waits longer than
#     database_statement_timeout_ms (here 500 ms), it answers 503 instead.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

pg_nodes_database
pg_cluster_stop "$PG" || exit 1

export AUTHD_DATABASE_STATEMENT_TIMEOUT_MS=500
signup() { http POST "$A/signup" -H 'Content-Type: application/json' \
  --data-binary "{\"username\":\"$1\",\"password\":\"$1-password\",\"fullname\":\"F\",\"email\":\"f@example.com\"}"; }
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }

step "PostgreSQL down at start"
pg_node_start a || exit 1
A=${NODE_URL[a]}
pass "authd started without its database"
signup early
expect_status 503 "sign-up while the database is down"
expect_json "503 body is a JSON error" '.error|type' string
expect_match "Retry-After on the 503" '^[0-9]+$' "$(header Retry-After)"
http POST "$A/signin" -H "$(basic early:early-password)"
expect_status 503 "sign-in while the database is down"
expect_json "its body is a JSON error" '.error|type' string
http GET "$A/records"
expect_status 401 "routes that need no store still answer (no token: 401)"

step "PostgreSQL comes up: authd recovers by itself"
pg_cluster_start "$PG" || exit 1
deadline=$((SECONDS + 10))
while signup late; [[ $STATUS == 503 ]] && ((SECONDS < deadline)); do sleep 0.2; done
expect_status 201 "sign-up works again within 10 s"
TOKEN=$(json .token)
expect_eq "the schema was created" 1 "$(pg_psql "$PG" authd -At -c "SELECT count(*) FROM users")"
expect_match "authd logged the outage" 'postgresql: cannot connect' "$(cat "${NODE_DIR[a]}/authd.log")"

step "every connection killed by the server"
pg_psql "$PG" postgres -At -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = 'authd'" >/dev/null
signup after_kill
expect_status 201 "the next sign-up works (connections replaced)"
http GET "$A/records" -H "Authorization: Bearer $TOKEN"
expect_status 200 "a guarded read works"

step "a locked table: no request waits longer than the statement timeout"
LOCKED=$(mktemp)
at_exit rm -f "$LOCKED"
( pg_psql "$PG" authd -c "BEGIN" -c "LOCK TABLE users IN ACCESS EXCLUSIVE MODE" \
    -c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null 2>&1; echo done >"$LOCKED" ) &
LOCKER=$!
sleep 0.5
start=$EPOCHREALTIME
signup while_locked
ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
expect_status 503 "sign-up against a locked table"
expect_json "its body is a JSON error" '.error|type' string
expect_eq "answered within 1.5 s (took $ms ms)" yes "$( ((ms < 1500)) && echo yes || echo no)"
start=$EPOCHREALTIME
# (A user in the cache would sign in without the table; one not in it needs it.)
http POST "$A/signin" -H "$(basic stranger:stranger-password)"
ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
expect_status 503 "sign-in of a user not in the cache against a locked table"
expect_eq "answered within 1.5 s (took $ms ms)" yes "$( ((ms < 1500)) && echo yes || echo no)"
wait "$LOCKER"
signup after_lock
expect_status 201 "sign-up once the lock is gone"

finish
