#!/usr/bin/env bash
# Two front nodes (two lighttpd + authd pairs on different ports) on one
# PostgreSQL with one signing key behave as one service:
#   - an account made on A signs in on B, and a token from A works on B;
#   - a role change or a deletion made elsewhere (authctl) is enforced on A
#     within one second, although A had the user in its cache;
#   - a record updated, then deleted, on B is seen so on A (GET /records/{id})
#     within one second, although A had it in its records cache;
#   - B answers guarded and capability reads on its event loops from its
#     caches (authd_reads_from_memory_total), and a role change, a sign-out
#     (revocation) and a deletion made through A's API are enforced on B
#     within one second all the same;
#   - a change whose NOTIFY is lost is served from the cache (the attack: a
#     stale role) until the LISTEN connection is dropped (pg_terminate_backend):
#     then the re-made connection clears the caches and B enforces it;
#   - 50 concurrent sign-ups of one name spread over both nodes make exactly
#     one account (the others 409);
#   - sign-ups acknowledged (201) while PostgreSQL restarts are all there
#     afterwards, none twice; while it is down the nodes answer 503 JSON.
# With PG_NODES_PGBOUNCER=1 (CTest blackbox-pgbouncer.pg_two_nodes) all of it
# runs through pgbouncer in transaction mode (pg_nodes.sh), LISTEN excepted.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

pg_nodes_database
# A role that needs a second factor: a change to it shows on a guarded read
# (403 for a token without one), so reads can tell a stale role from a fresh one.
export AUTHD_MFA_REQUIRED_ROLES=editor

pg_nodes_two

signup_body() { printf '{"username":"%s","password":"%s","fullname":"Test Person","email":"test@example.com"}' "$1" "$2"; }
signup() { http POST "$1/signup" -H 'Content-Type: application/json' --data-binary "$(signup_body "$2" "$3")"; }
basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
create_record() { http POST "$1/records" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' --data-binary '{"t":1}'; }
status_of() { curl --silent --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' "$@"; }

step "sign up on A, sign in on B, A's token on B"
signup "$A" alice 'alice-password-1'
expect_status 201 "sign-up on A"
TOKEN_A=$(json .token)
http POST "$B/signin" -H "$(basic alice:alice-password-1)"
expect_status 200 "sign-in on B with the account made on A"
TOKEN_B=$(json .token)
http GET "$B/records" -H "Authorization: Bearer $TOKEN_A"
expect_status 200 "A's token on B"
http GET "$A/records" -H "Authorization: Bearer $TOKEN_B"
expect_status 200 "B's token on A"

step "a record made on B is read on A"
printf 'writer-password-1' | authctl add wendy writer >/dev/null 2>&1
expect_eq "authctl add wendy writer" 0 "$?"
http POST "$B/signin" -H "$(basic wendy:writer-password-1)"
WENDY=$(json .token)
create_record "$B" "$WENDY"
expect_status 201 "record created on B"
ID=$(json ._id)
http GET "$A/records/$ID" -H "Authorization: Bearer $WENDY"
expect_status 200 "the record is read on A"

# Polls every 50 ms for up to 1 s until `curl ARGS` answers WANT; prints the
# milliseconds it took, or "timeout".
within_1s() {
  local want=$1 start=$EPOCHREALTIME now got
  shift
  while :; do
    got=$(status_of "$@")
    now=$EPOCHREALTIME
    local ms=$(( (${now/./} - ${start/./}) / 1000 ))
    if [[ $got == "$want" ]]; then echo "$ms"; return 0; fi
    ((ms > 1000)) && { echo "timeout (last $got)"; return 1; }
    sleep 0.05
  done
}

step "a record updated, then deleted, on B is seen so on A within 1 s"
printf 'admin-password-1' | authctl add adam admin >/dev/null 2>&1
expect_eq "authctl add adam admin" 0 "$?"
http POST "$B/signin" -H "$(basic adam:admin-password-1)"
ADAM=$(json .token)
for i in 1 2 3; do status_of -H "Authorization: Bearer $ADAM" "$A/records/$ID" >/dev/null; done  # A caches it
http PUT "$B/records/$ID" -H "Authorization: Bearer $ADAM" -H 'Content-Type: application/json' --data-binary '{"t":"changed on B"}'
expect_status 200 "record updated on B"
took=""
start=$EPOCHREALTIME
while :; do
  body=$(curl --silent --noproxy '*' --max-time 10 -H "Authorization: Bearer $ADAM" "$A/records/$ID")
  ms=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
  [[ $(jq -r '.t // empty' <<<"$body" 2>/dev/null) == "changed on B" ]] && { took=$ms; break; }
  ((ms > 1000)) && { took="timeout (last $body)"; break; }
  sleep 0.05
done
expect_match "the update made on B is read on A within 1 s (took $took ms)" '^[0-9]+$' "$took"
http DELETE "$B/records/$ID" -H "Authorization: Bearer $ADAM"
expect_status 200 "record deleted on B"
took=$(within_1s 404 -H "Authorization: Bearer $ADAM" "$A/records/$ID")
expect_match "the deletion made on B is seen on A within 1 s (took $took ms)" '^[0-9]+$' "$took"

step "role changes made with authctl are enforced on A within 1 s"
for i in 1 2 3; do status_of -H "Authorization: Bearer $TOKEN_A" "$A/records" >/dev/null; done  # A caches alice
expect_eq "alice (user) may not create on A" 403 \
  "$(status_of -X POST -H "Authorization: Bearer $TOKEN_A" -H 'Content-Type: application/json' -d '{"t":1}' "$A/records")"
authctl role alice writer >/dev/null 2>&1
took=$(within_1s 201 -X POST -H "Authorization: Bearer $TOKEN_A" -H 'Content-Type: application/json' -d '{"t":2}' "$A/records")
expect_match "promotion to writer enforced on A within 1 s (took $took ms)" '^[0-9]+$' "$took"
authctl role alice user >/dev/null 2>&1
took=$(within_1s 403 -X POST -H "Authorization: Bearer $TOKEN_A" -H 'Content-Type: application/json' -d '{"t":3}' "$A/records")
expect_match "demotion to user enforced on A within 1 s (took $took ms)" '^[0-9]+$' "$took"

step "a deletion is enforced on A within 1 s"
for i in 1 2 3; do status_of -H "Authorization: Bearer $TOKEN_A" "$A/records" >/dev/null; done
authctl delete alice >/dev/null 2>&1
expect_eq "authctl delete alice" 0 "$?"
took=$(within_1s 401 -H "Authorization: Bearer $TOKEN_A" "$A/records")
expect_match "deleted user's token refused on A within 1 s (took $took ms)" '^[0-9]+$' "$took"
took=$(within_1s 401 -H "Authorization: Bearer $TOKEN_B" "$B/records")
expect_match "and on B (took $took ms)" '^[0-9]+$' "$took"

# The reads B answered on its event loops from its caches so far.
from_memory() {
  curl --silent --noproxy '*' --max-time 10 "$B/metrics" |
    awk '/^authd_reads_from_memory_total\{outcome="answered"\}/ { print $2 }'
}
# N reads with curl ARGS that B must answer 200 from memory: prints how many did.
reads_from_memory() {
  local n=$1 before after ok=0 i
  shift
  before=$(from_memory)
  for ((i = 0; i < n; i++)); do [[ $(status_of "$@") == 200 ]] && ok=$((ok + 1)); done
  after=$(from_memory)
  ((ok == n)) || { echo "only $ok of $n answered 200"; return; }
  echo $((after - before))
}

step "B answers cached reads on its event loops; role change, sign-out and deletion on A reach it within 1 s"
printf 'carol-password-1' | authctl add carol user >/dev/null 2>&1
expect_eq "authctl add carol user" 0 "$?"
http POST "$A/signin" -H "$(basic carol:carol-password-1)"
CAROL1=$(json .token)
http POST "$A/signin" -H "$(basic carol:carol-password-1)"
CAROL2=$(json .token)
create_record "$A" "$WENDY"
expect_status 201 "a record made on A"
ID2=$(json ._id)
for i in 1 2 3; do  # B caches carol, the list and the record
  status_of -H "Authorization: Bearer $CAROL1" "$B/records" >/dev/null
  status_of -H "Authorization: Bearer $CAROL1" "$B/records/$ID2" >/dev/null
done
expect_eq "20 guarded reads on B, all answered on its event loops" 20 \
  "$(reads_from_memory 20 -H "Authorization: Bearer $CAROL1" "$B/records")"
expect_eq "20 capability reads on B, all answered on its event loops" 20 \
  "$(reads_from_memory 20 -H "Authorization: Bearer $CAROL1" "$B/records/$ID2")"
http PUT "$A/admin/users/carol" -H "Authorization: Bearer $ADAM" -H 'Content-Type: application/json' \
  --data-binary '{"role":"editor"}'
expect_status 200 "carol made editor on A"
took=$(within_1s 403 -H "Authorization: Bearer $CAROL1" "$B/records")
expect_match "the role that needs a second factor enforced on B within 1 s (took $took ms)" '^[0-9]+$' "$took"
http PUT "$A/admin/users/carol" -H "Authorization: Bearer $ADAM" -H 'Content-Type: application/json' \
  --data-binary '{"role":"user"}'
took=$(within_1s 200 -H "Authorization: Bearer $CAROL1" "$B/records")
expect_match "and back to user on B within 1 s (took $took ms)" '^[0-9]+$' "$took"
expect_eq "B answers from its caches again" 10 "$(reads_from_memory 10 -H "Authorization: Bearer $CAROL1" "$B/records")"
http POST "$A/signout" -H "Authorization: Bearer $CAROL1"
expect_status 204 "carol's first token signed out on A"
took=$(within_1s 401 -H "Authorization: Bearer $CAROL1" "$B/records")
expect_match "the signed-out token refused on B within 1 s (took $took ms)" '^[0-9]+$' "$took"
expect_eq "her other token still works on B" 200 "$(status_of -H "Authorization: Bearer $CAROL2" "$B/records")"
http DELETE "$A/admin/users/carol" -H "Authorization: Bearer $ADAM"
expect_status 200 "carol deleted on A"
took=$(within_1s 401 -H "Authorization: Bearer $CAROL2" "$B/records/$ID2")
expect_match "the deleted user's token refused on B within 1 s (took $took ms)" '^[0-9]+$' "$took"

step "a lost NOTIFY: the cache is cleared when the LISTEN connection is made again"
printf 'dave-password-1' | authctl add dave user >/dev/null 2>&1
http POST "$A/signin" -H "$(basic dave:dave-password-1)"
DAVE=$(json .token)
for i in 1 2 3; do status_of -H "Authorization: Bearer $DAVE" "$B/records" >/dev/null; done
expect_eq "B answers dave's reads from its caches" 5 "$(reads_from_memory 5 -H "Authorization: Bearer $DAVE" "$B/records")"
# A change no node hears of: the trigger that NOTIFYs is off for its transaction.
pg_psql "$PG" authd -c "BEGIN" -c "ALTER TABLE users DISABLE TRIGGER users_notify" \
  -c "UPDATE users SET role = 'editor' WHERE username = 'dave'" -c "ALTER TABLE users ENABLE TRIGGER users_notify" \
  -c "COMMIT" >/dev/null
expect_eq "dave made editor without a NOTIFY" editor \
  "$(pg_psql "$PG" authd -At -c "SELECT role FROM users WHERE username = 'dave'")"
sleep 0.3
expect_eq "with the NOTIFY lost, B still answers from its cache (the stale role)" 200 \
  "$(status_of -H "Authorization: Bearer $DAVE" "$B/records")"
listeners() { pg_psql "$PG" authd -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'authd listen'"; }
expect_eq "one LISTEN connection per node" 2 "$(listeners)"
pg_psql "$PG" authd -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'authd listen'" >/dev/null
took=$(within_1s 403 -H "Authorization: Bearer $DAVE" "$B/records")
expect_match "LISTEN connection terminated: B clears its caches and enforces the new role within 1 s (took $took ms)" \
  '^[0-9]+$' "$took"
for ((i = 0; i < 50; i++)); do [[ $(listeners) == 2 ]] && break; sleep 0.1; done
expect_eq "both nodes listen again" 2 "$(listeners)"
authctl role dave user >/dev/null 2>&1
took=$(within_1s 200 -H "Authorization: Bearer $DAVE" "$B/records")
expect_match "a change heard on the new connection reaches B within 1 s (took $took ms)" '^[0-9]+$' "$took"
expect_eq "and B answers from its caches again" 10 "$(reads_from_memory 10 -H "Authorization: Bearer $DAVE" "$B/records")"

step "50 concurrent sign-ups of one name over both nodes: one account"
RACE=$(mktemp -d)
racers=()
for i in $(seq 1 50); do
  node=$A; ((i % 2)) && node=$B
  curl --silent --noproxy '*' --max-time 30 -o /dev/null -w '%{http_code}\n' -X POST "$node/signup" \
    -H 'Content-Type: application/json' --data-binary "$(signup_body racer "racer-password-$i")" \
    >"$RACE/$i" &
  racers+=($!)
done
wait "${racers[@]}"   # not a bare `wait`: the nodes are background jobs too
created=$(cat "$RACE"/* | grep -c '^201$')
refused=$(cat "$RACE"/* | grep -c '^409$')
expect_eq "exactly one 201" 1 "$created"
expect_eq "the 49 others 409" 49 "$refused"
expect_eq "one racer in the database" 1 "$(pg_psql "$PG" authd -At -c "SELECT count(*) FROM users WHERE username = 'racer'")"
rm -rf "$RACE"

step "sign-ups acknowledged while PostgreSQL restarts are all kept, none twice"
LOG=$(mktemp -d)
at_exit rm -rf "$LOG"
signup_loop() { # NODE_URL PREFIX SECONDS
  local url=$1 prefix=$2 end=$((SECONDS + $3)) n=0 code
  while ((SECONDS < end)); do
    n=$((n + 1))
    code=$(curl --silent --noproxy '*' --max-time 15 -o "$LOG/$prefix$n.body" -w '%{http_code} %{time_total}' -X POST "$url/signup" \
      -H 'Content-Type: application/json' --data-binary "$(signup_body "$prefix$n" "restart-password-$n")")
    echo "$prefix$n $code" >>"$LOG/$prefix.log"
    sleep 0.02
  done
}
signup_loop "$A" ua 8 &
LOOP_A=$!
signup_loop "$B" ub 8 &
LOOP_B=$!
sleep 2
pg_cluster_stop "$PG" fast
sleep 1
pg_cluster_start "$PG" || fail "PostgreSQL came back"
wait "$LOOP_A" "$LOOP_B"
cat "$LOG"/ua.log "$LOG"/ub.log >"$LOG/all"
acked=$(awk '$2 == 201 { print $1 }' "$LOG/all" | sort)
n_acked=$(grep -c . <<<"$acked")
n_503=$(awk '$2 == 503' "$LOG/all" | wc -l)
other=$(awk '$2 != 201 && $2 != 503' "$LOG/all")
echo "sign-ups: $(wc -l <"$LOG/all") sent, $n_acked acknowledged, $n_503 answered 503"
expect_ne "some sign-ups were acknowledged" 0 "$n_acked"
if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
  # pgbouncer may hold a transaction while it reconnects to the server
  # (query_wait_timeout) instead of failing it: the outage then shows as a
  # sign-up that waited for the database to come back, not as a 503.
  held=$(awk '$3 >= 0.8' "$LOG/all" | wc -l)
  expect_ne "the outage was seen: sign-ups refused with 503 ($n_503) or held by pgbouncer until the database was back ($held)" \
    0 "$((n_503 + held))"
else
  expect_ne "some were refused with 503 while the database was down" 0 "$n_503"
fi
expect_eq "no answer but 201 or 503" "" "$other"
bad_503=0
for f in $(awk '$2 == 503 { print $1 }' "$LOG/all"); do
  jq -e '.error | type == "string"' "$LOG/$f.body" >/dev/null 2>&1 || bad_503=$((bad_503 + 1))
done
expect_eq "every 503 has a JSON error body" 0 "$bad_503"
stored=$(pg_psql "$PG" authd -At -c "SELECT username FROM users WHERE username ~ '^u[ab][0-9]+\$' ORDER BY 1")
missing=$(comm -23 <(sort <<<"$acked") <(sort <<<"$stored"))
expect_eq "every acknowledged sign-up is in the database" "" "$missing"
expect_eq "no username twice" "" "$(pg_psql "$PG" authd -At -c "SELECT username FROM users GROUP BY 1 HAVING count(*) > 1")"
# ... and each one signs in (on the other node than it was made on).
bad=0
for u in $acked; do
  n=${u#u?}
  node=$B; [[ $u == ub* ]] && node=$A
  code=$(status_of -X POST -H "$(basic "$u:restart-password-$n")" -H "Content-Length: 0" "$node/signin")
  [[ $code == 200 ]] || { bad=$((bad + 1)); ((bad < 4)) && echo "sign-in of $u on $node: $code"; }
done
expect_eq "every acknowledged account signs in after the restart" 0 "$bad"

if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
  step "all of it went through pgbouncer in transaction mode"
  expect_eq "pgbouncer's pool_mode" transaction "$(pg_pgbouncer_show CONFIG | awk -F'|' '$1 == "pool_mode" { print $2 }')"
  xacts=$(pg_pgbouncer_show STATS | awk -F'|' '$1 == "authd" { print $2 }')
  expect_match "pgbouncer carried the nodes' transactions ($xacts)" '^[0-9]{3,}$' "$xacts"
fi

finish
