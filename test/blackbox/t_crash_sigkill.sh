#!/usr/bin/env bash
# Crash safety under SIGKILL. authd runs under scripts/supervise-authd.sh (as
# with `make run`); CLIENTS clients sign up new users back to back while the
# FastCGI process is killed with SIGKILL KILLS times at random moments
# (1-2.5 s apart). After each kill the supervisor must bring authd back; the
# gap in service (kill -> first 401 from GET /records through lighttpd from
# the new process) is measured and must stay under MAX_GAP_MS.
# Afterwards:
#   - every user whose sign-up was answered 201 signs in (nothing answered
#     201 was lost);
#   - sign-ups caught by a kill got the front end's HTML error page (500 when
#     authd died with the request in hand, 503 while it was down), never a
#     JSON error from authd; whether such a user exists is reported, not judged
#     (the commit may have happened before the kill took the answer away);
#   - the LMDB environment checks clean (mdb_stat -e/-a/-rr, mdb_dump -a);
#   - the server serves: a new sign-up and its sign-in succeed.
# Figures: requests, 201s, answers lost to kills, users checked, gaps.
source "$(dirname "$0")/fault_lib.sh"

CLIENTS=${CRASH_CLIENTS:-4}
KILLS=${CRASH_KILLS:-5}
MAX_GAP_MS=${MAX_GAP_MS:-10000}
export SUPERVISE_BACKOFF_MIN=${SUPERVISE_BACKOFF_MIN:-0.2}
# The production hashing cost (the harness makes it cheap otherwise): the
# sign-ups a kill interrupts are mid-hash as often as in real use, and the
# number of users checked afterwards stays near 170 rather than 800.
export AUTHD_ARGON2_ITERATIONS=${AUTHD_ARGON2_ITERATIONS:-2}
stack_start_supervised

fault_out crash

# signup_client C: new users kCn1, kCn2... until $OUT/stop appears
signup_client() { signup_stream "$OUT/client.$1" "k${1}n" 0 signup_answer; }

step "sign-up traffic from $CLIENTS clients"
clients_start "$CLIENTS" signup_client
clients_go 0

gaps=()
rss_first=$(rss_kib "$(authd_child_pid)")
for ((k = 1; k <= KILLS; k++)); do
  # a random moment 1.0 .. 2.5 s after the previous restart
  sleep "$((1 + RANDOM % 2)).$((RANDOM % 10))"
  before=$(cat "$OUT"/client.* 2>/dev/null | wc -l)
  if kill_authd_and_measure_gap KILL; then
    gaps+=("$GAP_MS")
    echo "kill $k: pid $OLD_PID killed after $before sign-ups so far; pid $NEW_PID serving after ${GAP_MS} ms"
    ((GAP_MS <= MAX_GAP_MS)) && pass "kill $k: service back in ${GAP_MS} ms (<= $MAX_GAP_MS)" ||
      fail "kill $k: service back only after ${GAP_MS} ms (> $MAX_GAP_MS)"
  else
    fail "kill $k: authd did not come back"
    break
  fi
done
sleep 1
: >"$OUT/stop"
clients_wait

cat "$OUT"/client.* >"$OUT/all"
requests=$(wc -l <"$OUT/all")
created=$(count_lines "$OUT/all" ' 201 application/json$')
lost=$((requests - created))
echo "sign-ups: $requests, 201: $created, other: $lost"
awk '{ print $2, $3 }' "$OUT/all" | sort | uniq -c | awk '{ printf "  %s %s: %d\n", $2, $3, $1 }'
ok_re=' (201 application/json|(500|502|503) text/html)$'
bad=$(grep -cvE "$ok_re" "$OUT/all" || true)
expect_eq "sign-ups answered 201, or the front end's HTML 500/502/503 when caught by a kill" 0 "$bad"
((bad == 0)) || fail "unexpected sign-up answers" "$(grep -vE "$ok_re" "$OUT/all" | head)"
((created >= 20)) && pass "enough sign-ups succeeded to mean something ($created)" ||
  fail "only $created sign-ups succeeded"

step "every user answered 201 signs in"
awk '$2 == 201 && $3 == "application/json" { print $1 }' "$OUT/all" >"$OUT/created"
expect_signins "$OUT/created" "$OUT/signins" "$created" "every user answered 201 signs in after $KILLS kills"
checked=$CHECKED signed_in=$SIGNED_IN

missing=$(accounts_missing "$OUT/created")
expect_eq "authctl list has every user answered 201" 0 "$missing"
listed=$(users_listed)
echo "accounts in the store: $listed ($((listed - created)) whose sign-up answer was lost to a kill but committed)"

step "the LMDB environment checks clean"
if lmdb_check "$STATE_DIR" >"$OUT/lmdb_check"; then
  pass "mdb_stat -ef, mdb_stat -rr -a and mdb_dump -a succeed (stale reader slots cleared: ${LMDB_STALE_READERS:-?})"
else
  fail "LMDB check" "$(cat "$OUT/lmdb_check")"
fi
mdb_stat -e "$STATE_DIR" | sed 's/^/  /'

step "the server serves"
expect_eq "a new sign-up" 201 "$(signup_status after.crash 'pw-after')"
expect_eq "its sign-in" 200 "$(signin_status after.crash 'pw-after')"
restarts=$(grep -c 'authd restarted' "$STATE_DIR/authd.log" || true)
expect_eq "the supervisor restarted authd once per kill" "$KILLS" "$restarts"

max=0 sum=0
for g in "${gaps[@]}"; do ((g > max)) && max=$g; sum=$((sum + g)); done
print_figure requests "$((requests + checked + 2))"
print_figure signups_201 "$created"
print_figure answers_lost_to_kills "$lost"
print_figure errors "$((bad + checked - signed_in + missing))"
print_figure users_checked "$checked"
print_figure accounts_listed "$listed"
print_figure kills "${#gaps[@]}"
print_figure gap_ms_each "${gaps[*]}"
print_figure gap_ms_max "$max"
((${#gaps[@]} > 0)) && print_figure gap_ms_mean "$((sum / ${#gaps[@]}))"
print_figure rss_kib_first_process "$rss_first"
print_figure rss_kib_last_process "$(rss_kib "$(authd_child_pid)")"
finish
