#!/usr/bin/env bash
# A full database: with AUTHD_MAP_SIZE_MB=1 an admin fills the LMDB map with
# large records until a write is refused. Then:
#   - POST /records and POST /signup answer 507 with a JSON error (and the
#     refused sign-up created nothing);
#   - reads keep working: GET /records, GET /records/{id}, a guarded call with
#     an existing token, sign-in with the right password (200) and with a
#     wrong one (500 Invalid Login), authctl list;
#   - authd keeps running, starts again on the full map (reads work, writes
#     still 507), and the environment checks clean (mdb_stat, mdb_dump).
# Figures: records written, requests, 507s, errors.
source "$(dirname "$0")/fault_lib.sh"
export AUTHD_MAP_SIZE_MB=1
stack_start

setup_user alice 'alice password'
ALICE=$TOKEN
add_user filler 'admin password' admin
ADMIN=$(signin_token filler 'admin password')
expect_ne "setup: admin token" "" "$ADMIN"

step "fill the 1 MiB map: records of 40 KiB, then 4 KiB, 400 and 40 bytes, each until refused"
written=0 last='' first_id=''
for size in 30000 3000 300 30; do
  blob=$(head -c "$size" /dev/urandom | base64 -w0)
  printf '{"blob":"%s"}' "$blob" >"$STATE_DIR/blob.json"
  n=0
  for ((i = 1; i <= 400; i++)); do
    http POST /records -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
      --data-binary "@$STATE_DIR/blob.json"
    last=$STATUS
    [[ $STATUS == 201 ]] || break
    n=$((n + 1))
    first_id=${first_id:-$(json ._id)}
  done
  echo "  records of ~$((size * 4 / 3)) bytes: $n written, then $last"
  written=$((written + n))
  [[ $last == 507 ]] || break
done
echo "records written before the map was full: $written (then $last)"
((written >= 5)) && pass "the map took $written records before filling up" || fail "only $written records fit"
expect_eq "POST /records on a full map: 507" 507 "$last"
expect_match "507 body is JSON" '^application/json' "$(header Content-Type)"
expect_ne "507 body has an error text" "" "$(json '.error // empty')"
echo "507 body: $BODY"

step "sign-ups until the map is full for them too"
signed=0 refused=
for ((i = 1; i <= 300; i++)); do
  signup "fill$i" pw
  [[ $STATUS == 201 ]] || { refused=fill$i; break; }
  signed=$((signed + 1))
done
echo "sign-ups accepted after the records filled the map: $signed (then $STATUS)"
expect_status 507 "a sign-up on a full map"
expect_match "signup 507 is JSON" '^application/json' "$(header Content-Type)"
expect_ne "signup 507 has an error text" "" "$(json '.error // empty')"
echo "507 body: $BODY"
[[ -n $refused ]] && expect_eq "the refused sign-up created nothing" 500 "$(signin_status "$refused" pw)"
((signed > 0)) && expect_eq "the last accepted sign-up signs in" 200 "$(signin_status "fill$signed" pw)"
n507=0
for i in 1 2 3 4 5; do
  [[ $(signup_status "more$i" pw) == 507 ]] && n507=$((n507 + 1))
done
expect_eq "five more sign-ups: all 507" 5 "$n507"

step "reads keep working"
http GET /records -H "Authorization: Bearer $ADMIN"
expect_status 200 "GET /records"
expect_eq "GET /records lists every record written" "$written" "$(json 'length')"
http GET "/records/$first_id" -H "Authorization: Bearer $ALICE"
expect_status 200 "GET /records/{id} as alice (role user)"
expect_eq "alice signs in (right password)" 200 "$(signin_status alice 'alice password')"
http POST /signin -u 'alice:wrong password'
expect_status 500 "a wrong password still answers Invalid Login"
expect_json "Invalid Login body" .error "Invalid Login"
expect_eq "alice's token passes a guarded route" 200 "$(status_of GET /records -H "Authorization: Bearer $ALICE")"
expect_match "authctl list works" 'alice' "$(authctl list 2>&1)"
expect_eq "authd still runs" yes "$(authd_alive && echo yes || echo no)"

step "authd restarts on a full map and still serves reads"
authd_stop
if authd_start; then
  pass "authd starts again on the full map"
  expect_eq "after the restart: alice signs in" 200 "$(signin_status alice 'alice password')"
  expect_eq "after the restart: sign-up still 507" 507 "$(signup_status again pw)"
else
  fail "authd does not start on a full map" "$(tail -n 5 "$STATE_DIR/authd.log")"
fi

step "the environment checks clean"
if lmdb_check "$STATE_DIR" >"$STATE_DIR/lmdb_check"; then
  pass "mdb_stat -ef, mdb_stat -rr -a and mdb_dump -a succeed"
else
  fail "LMDB check" "$(cat "$STATE_DIR/lmdb_check")"
fi
mdb_stat -e "$STATE_DIR" | grep -E 'Map size|Max pages|Number of pages used' | sed 's/^/  /'

print_figure records_written "$written"
print_figure signups_accepted_after_fill "$signed"
print_figure requests "$((written + signed + 22))"
print_figure status_507 "$((n507 + 2))"
print_figure errors "$FAILED"
finish
