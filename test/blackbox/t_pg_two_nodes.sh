#!/usr/bin/env bash
# Two front nodes (two lighttpd + authd pairs on different ports) on one
# PostgreSQL with one signing key behave as one service:
#   - an account made on A signs in on B, and a token from A works on B;
#   - a role change or a deletion made elsewhere (authctl) is enforced on A
#     within one second, although A had the user in its cache;
#   - a record updated, then deleted, on B is seen so on A (GET /records/{id})
#     within one second, although A had it in its records cache;
#   - 50 concurrent sign-ups of one name spread over both nodes make exactly
#     one account (the others 409);
#   - sign-ups acknowledged (201) while PostgreSQL restarts are all there
#     afterwards, none twice; while it is down the nodes answer 503 JSON.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

pg_nodes_database

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
    code=$(curl --silent --noproxy '*' --max-time 15 -o "$LOG/$prefix$n.body" -w '%{http_code}' -X POST "$url/signup" \
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
expect_ne "some were refused with 503 while the database was down" 0 "$n_503"
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

finish
