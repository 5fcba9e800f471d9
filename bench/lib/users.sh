# shellcheck shell=bash
# bench/lib/users.sh - "flat with many users" for bench/run.sh (sourced):
# for each count in BENCH_USER_COUNTS, a fresh store built with
# `authctl import FILE` (JSON lines {"username","password","role"}, every
# user with the same precomputed argon2id hash, that of $PASSWORD, plus the
# benchmark's record), authd on it behind lighttpd, then the guarded read,
# sign-in (a user in the middle of the store) and sign-up. Records the import
# time and the size of data.mdb (USERS_META, JSON lines) and, at the largest
# count, authd's memory after the guarded read and after sign-up (MEMORY) and
# its largest RssAnon during each run (sampled every 0.1 s).
#
#   users_phase EXPORT_FILE   EXPORT_FILE: `authctl export` of the main
#                             store (benchuser's hash and the record)

USERS_META=()

# users_lines COUNT PHC: COUNT user lines u0000000, u0000001, ... on stdout.
users_lines() {
  awk -v n="$1" -v phc="$2" 'BEGIN {
    for (i = 0; i < n; i++) printf "{\"username\":\"u%07d\",\"password\":\"%s\",\"role\":\"user\"}\n", i, phc
  }'
}

users_phase() {
  local export_file=$1 phc n largest=0 dir file t0 t1 import_s middle token basic data_kb
  phc=$(jq -r 'select(.type == "user" and .username == "benchuser") | .password' "$export_file")
  [[ $phc == '$argon2id$'* ]] || die "authctl export gave no argon2id hash for benchuser"
  for n in $BENCH_USER_COUNTS; do ((n > largest)) && largest=$n; done
  start_front lighttpd
  say "many users: lighttpd (pid $FRONT_PID) on $BASE; stores of $BENCH_USER_COUNTS users"
  for n in $BENCH_USER_COUNTS; do
    dir=$STATE/users-$n
    file=$STATE/users-$n.jsonl
    mkdir -p "$dir"
    { users_lines "$n" "$phc"; jq -c 'select(.type == "record")' "$export_file"; } >"$file"
    t0=$EPOCHREALTIME
    AUTHD_STATE_DIR=$dir/db "$AUTHCTL_BIN" import "$file" >"$dir/import.log" 2>&1 ||
      { cat "$dir/import.log" >&2; die "authctl import of $n users failed"; }
    t1=$EPOCHREALTIME
    import_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    rm -f "$file"
    data_kb=$(du -k "$dir/db/data.mdb" | cut -f1)
    say "  $n users: authctl import took $import_s s ($(cat "$dir/import.log")), data.mdb $((data_kb / 1024)) MiB"
    USERS_META+=("{\"users\":$n,\"import_s\":$import_s,\"data_kb\":$data_kb}")

    FCGI_STATE_DIR=$dir/db start_fcgi "$AUTHD_BIN" "$dir/authd.log" "$BENCH_WORKERS"
    wait_for_status /records 401
    middle=$(printf 'u%07d' $((n / 2)))
    token=$(curl --silent --noproxy '*' --max-time 10 -u "$middle:$PASSWORD" -d '' "$BASE/signin" | jq -r '.token // empty')
    [[ -n $token ]] || die "sign-in of $middle in the store of $n users failed"
    basic=$(printf '%s' "$middle:$PASSWORD" | base64 -w0)
    check 200 GET /records -H "Authorization: Bearer $token"

    local sample=
    ((n == largest)) && sample=$FCGI_PID
    SAMPLE_ANON_PID=$sample BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND=authd ROW_USERS=$n \
    ROW_THREADS=$BENCH_WORKERS ROW_KEEP='' ROW_CEILING=ceiling \
      run_scenario "users_${n}_read" "guarded read, $n users" 200 "$BENCH_CONNECTIONS" "$BENCH_USERS_DURATION" \
      GET /records -H "Authorization: Bearer $token"
    ((n == largest)) && MEMORY+=("$(memory_json "$FCGI_PID" "authd, $n users, after the guarded read")")
    SAMPLE_ANON_PID=$sample BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND=authd ROW_USERS=$n \
    ROW_THREADS=$BENCH_WORKERS ROW_KEEP='' ROW_CEILING='' \
      run_scenario "users_${n}_signin" "sign-in, $n users" 200 "$BENCH_HASH_CONNECTIONS" "$BENCH_USERS_HASH_DURATION" \
      POST /signin -H "Authorization: Basic $basic"
    BENCH_SIGNUP=m${n}x$$ SAMPLE_ANON_PID=$sample BACKEND_PGID=$FCGI_PID FRONT_PGID=$FRONT_PID ROW_FRONT=lighttpd ROW_BACKEND=authd \
    ROW_USERS=$n ROW_THREADS=$BENCH_WORKERS ROW_KEEP='' ROW_CEILING='' \
      run_scenario "users_${n}_signup" "sign-up, $n users" 201 "$BENCH_HASH_CONNECTIONS" "$BENCH_USERS_HASH_DURATION" \
      POST /signup
    ((n == largest)) && MEMORY+=("$(memory_json "$FCGI_PID" "authd, $n users, after sign-up")")
    stop_fcgi
    [[ $BENCH_KEEP_STATE == 1 ]] || rm -rf "$dir/db"
  done
  stop_front
}
