# shellcheck shell=bash
# bench/lib/pairs.sh - paired rounds for bench/run.sh (sourced; uses fcgi_row,
# $SCENARIOS, the *_BIN paths and BENCH_*).
#
# On a 2-core machine that wrk, the front server and the FastCGI program
# share, one row of the guarded read moves by a fifth between two runs a
# minute apart, so a ratio of two rows measured minutes apart says little.
# A paired round measures the front's ceiling and authd back to back, on a
# fresh front server each, for BENCH_PAIR_DURATION seconds; BENCH_PAIRS rounds
# alternate which goes first (a slow drift of the machine then favours
# neither). results.jq takes the median of the rounds' ratios (rows
# ID_pairK, not ceiling candidates themselves).
#
#   paired_rounds FRONT CEILING_ID AUTHD_ID AUTHD_THREADS KEEP [FRONT ARGS]
#       FRONT's ceiling is the fastest of CEILING_ID's candidates measured so
#       far in this run (the same program, threads and processes); authd runs
#       with AUTHD_THREADS threads as in row AUTHD_ID.

# The id of the fastest row measured so far that is CEILING_ID or a candidate for it.
fastest_candidate() {
  (( ${#SCENARIOS[@]} )) || return 0
  jq -rs --arg c "$1" 'map(select(.id == $c or .candidate_of == $c))
                       | max_by(.requests / (.duration_us / 1e6)) | .id // empty' "${SCENARIOS[@]}"
}

# The program argument of fcgi_row that runs row ID's ceiling again, and its
# threads (processes for a pool), as "PROGRAM THREADS".
candidate_program() {
  local backend threads
  backend=$(jq -r .backend "$RAW/$1.scenario.json")
  threads=$(jq -r .backend_threads "$RAW/$1.scenario.json")
  case $backend in
    "ceiling (libfcgi threads)") echo "$CEILING_BIN $threads" ;;
    "ceiling (libfcgi pool)") echo "pool:$threads $threads" ;;
    "ceiling (epoll)" | "ceiling (epoll, one loop)") echo "$FAST_CEILING_BIN $threads" ;;
    *) return 1 ;;
  esac
}

paired_rounds() {
  local front=$1 ceiling_id=$2 authd_id=$3 authd_threads=$4 keep=$5 fastest program threads k
  shift 5
  ((BENCH_PAIRS > 0)) || return 0
  fastest=$(fastest_candidate "$ceiling_id")
  [[ -n $fastest ]] || { say "no ceiling row for $front: no paired rounds"; return 0; }
  read -r program threads < <(candidate_program "$fastest") || die "row $fastest is not a ceiling"
  say "$front: $BENCH_PAIRS paired rounds of $fastest and $authd_id, ${BENCH_PAIR_DURATION}s each"
  for ((k = 1; k <= BENCH_PAIRS; k++)); do
    if ((k % 2)); then
      pair_ceiling_row "$k" "$@"
      pair_authd_row "$k" "$@"
    else
      pair_authd_row "$k" "$@"
      pair_ceiling_row "$k" "$@"
    fi
  done
}

# The two halves of round K (paired_rounds' locals are in scope). An empty
# ceiling id keeps a round's rows out of the ceiling's candidates.
pair_ceiling_row() {
  local k=$1
  shift
  BENCH_DURATION=$BENCH_PAIR_DURATION fcgi_row "${ceiling_id}_pair$k" "$front: ceiling ($fastest), round $k" \
    "$front" "" "$program" "$threads" "$keep" "$BENCH_CONNECTIONS" "$@"
}
pair_authd_row() {
  local k=$1
  shift
  BENCH_DURATION=$BENCH_PAIR_DURATION fcgi_row "${authd_id}_pair$k" "$front: authd, round $k" \
    "$front" "" "$AUTHD_BIN" "$authd_threads" "$keep" "$BENCH_CONNECTIONS" "$@"
}
