#!/usr/bin/env bash
# Races on one username: 50 concurrent POST /signup of the same username (each
# its own curl process, all started before any answer) -> exactly one 201, 49
# 409, never anything else; the store then holds exactly one account of that
# name, and only the winner's password signs in. Three rounds, three names.
# Figures: requests, 201s, 409s, other statuses, accounts listed.
source "$(dirname "$0")/fault_lib.sh"
stack_start

N=${RACE_CLIENTS:-50}
ROUNDS=${RACE_ROUNDS:-3}
fault_out race
total=0 total_201=0 total_409=0 total_other=0

for ((r = 1; r <= ROUNDS; r++)); do
  user=racer$r
  step "round $r: $N concurrent sign-ups of '$user'"
  rm -f "$OUT"/*
  race_client() { echo "$1 $(signup_status "$user" "password-$r-$1")" >"$OUT/res.$1"; }
  clients_start "$N" race_client   # they fire together at clients_go
  clients_go 0.5
  clients_wait
  cat "$OUT"/res.* >"$OUT/all" 2>/dev/null
  n=$(wc -l <"$OUT/all")
  c201=$(count_lines "$OUT/all" ' 201$')
  c409=$(count_lines "$OUT/all" ' 409$')
  other=$((n - c201 - c409))
  total=$((total + n)) total_201=$((total_201 + c201)) total_409=$((total_409 + c409))
  total_other=$((total_other + other))
  echo "round $r: $n answers: $c201 x 201, $c409 x 409, $other other"
  expect_eq "round $r: every client got an answer" "$N" "$n"
  expect_eq "round $r: exactly one 201" 1 "$c201"
  expect_eq "round $r: all the others 409" $((N - 1)) "$c409"
  if ((other > 0)); then
    fail "round $r: statuses other than 201/409" "$(grep -vE ' (201|409)$' "$OUT/all" | sort -k2 | uniq -c -f1 | head)"
  fi
  listed=$(authctl list 2>/dev/null | grep -cE "^${user}[[:space:]]" || true)
  expect_eq "round $r: one account named $user in the store" 1 "$listed"
  winner=$(awk '$2 == 201 { print $1 }' "$OUT/all" | head -n 1)
  if [[ -n $winner ]]; then
    expect_eq "round $r: the winner's password signs in" 200 "$(signin_status "$user" "password-$r-$winner")"
    loser=$(( winner == 1 ? 2 : 1 ))
    expect_eq "round $r: a loser's password does not" 500 "$(signin_status "$user" "password-$r-$loser")"
  fi
done

accounts=$(users_listed)
expect_eq "store holds exactly $ROUNDS accounts" "$ROUNDS" "$accounts"
expect_eq "authd still serves" 401 "$(probe /records)"
print_figure requests "$total"
print_figure status_201 "$total_201"
print_figure status_409 "$total_409"
print_figure errors "$total_other"
print_figure accounts_listed "$accounts"
finish
