#!/usr/bin/env bash
# Concurrent sign-ups of distinct users: CLIENTS clients (separate processes)
# each sign up USERS_PER_CLIENT new users back to back, all at the same time.
# Every sign-up must answer 201 (nothing else: no 5xx, no lost answer); then
# every user that got a 201 signs in with its password (200), the store lists
# exactly those accounts, and tokens from the sign-ins pass a guarded route.
# Figures: requests, 201s, errors, users checked, accounts listed.
source "$(dirname "$0")/fault_lib.sh"
stack_start

CLIENTS=${RACE_CLIENTS:-8}
PER=${USERS_PER_CLIENT:-15}
fault_out distinct

# signup_client C: PER sign-ups of new users cCu1, cCu2..., one after the other
signup_client() { signup_stream "$OUT/client.$1" "c${1}u" "$PER" signup_status; }

step "$CLIENTS clients x $PER sign-ups each, concurrently"
clients_start "$CLIENTS" signup_client
clients_go 0.3
t0=$(now_ms)
clients_wait
elapsed=$(($(now_ms) - t0))
cat "$OUT"/client.* >"$OUT/all"
requests=$(wc -l <"$OUT/all")
ok=$(count_lines "$OUT/all" ' 201$')
errors=$((requests - ok))
echo "$requests sign-ups in ${elapsed} ms: $ok x 201, $errors other"
expect_eq "every sign-up was answered" $((CLIENTS * PER)) "$requests"
expect_eq "every sign-up answered 201" "$requests" "$ok"
((errors == 0)) || fail "sign-ups that did not answer 201" "$(grep -v ' 201$' "$OUT/all" | head)"

step "every user that got a 201 signs in (4 in parallel)"
awk '$2 == 201 { print $1 }' "$OUT/all" >"$OUT/created"
expect_signins "$OUT/created" "$OUT/signins" "$ok" "every created user signs in"
checked=$CHECKED signed_in=$SIGNED_IN

listed=$(users_listed)
expect_eq "the store lists exactly the created accounts" "$ok" "$listed"
missing=$(accounts_missing "$OUT/created")
expect_eq "no created account is missing from authctl list" 0 "$missing"

token=$(signin_token c1u1 pw-c1u1)
expect_eq "a token from a sign-in passes a guarded route" 200 \
  "$(status_of GET /records -H "Authorization: Bearer $token")"

print_figure requests $((requests + checked))
print_figure signups_201 "$ok"
print_figure errors "$((errors + checked - signed_in))"
print_figure users_checked "$checked"
print_figure accounts_listed "$listed"
print_figure signup_wall_ms "$elapsed"
finish
