# shellcheck shell=bash
# bench/lib/measure.sh - one measured wrk run and the process figures around
# it, for bench/run.sh (sourced; uses its say/die, $RAW, $LUA, BENCH_*).
#
#   run_scenario ID TITLE EXPECTED CONNECTIONS DURATION METHOD PATH [wrk args...]
#       wrk against $BASE$PATH (warm-up, then measured), with the CPU time of
#       the process groups $BACKEND_PGID and $FRONT_PGID (either may be empty),
#       the status breakdown from $ACCESS_LOG (empty: none), and $ROW_FRONT,
#       $ROW_BACKEND, $ROW_CEILING (the id of the ceiling row of the same
#       front, empty: none), $ROW_THREADS and $ROW_KEEP (the front's kept
#       connections to the backend, empty: none) as labels; $ROW_CANDIDATE:
#       the id of the ceiling row this row is another candidate for (the
#       ceiling of a front is the fastest of its candidates);
#       $ROW_ALSO_EXPECTED: other statuses that are no error (comma-separated,
#       e.g. 302 for the code flow's /authorize). Appends the
#       scenario's JSON file to SCENARIOS. The environment for the Lua script
#       (BENCH_BODY, BENCH_SIGNUP, BENCH_EXPECT, BENCH_MODE...) passes through;
#       the warm-up gets BENCH_REFRESH_FILE.warmup as its BENCH_REFRESH_FILE
#       (a refresh token works once: each run needs its own).
#   memory_json PID NAME        /proc/PID/status figures as a JSON object
#   group_memory_json PGID NAME the same, summed over a process group
#   perf_summary ID TITLE       (BENCH_PERF=1) where the CPU went

# CPU time the processes of group PGID (or of several: "PGID PGID ...") have
# used so far, in microseconds
# (processes and threads that exited meanwhile are not counted). From each
# thread's /proc/PID/task/TID/schedstat (time on the CPU, in ns, exact) when
# the kernel has it; otherwise utime + stime of /proc/PID/stat, in clock ticks
# (10 ms samples: short bursts of many processes are counted badly).
CLK_TCK=$(getconf CLK_TCK)
CPU_SOURCE=stat
read -r _cpu_ns _ _ <"/proc/$$/schedstat" 2>/dev/null && ((${_cpu_ns:-0} > 0)) && CPU_SOURCE=schedstat
# add_process_cpu STAT UTIME STIME: adds to the caller's `total` the CPU time
# (us) of the process whose /proc/PID/stat is STAT (its threads' schedstat,
# else UTIME + STIME from that file). No subshell: it runs inside the /proc
# scans, whose own CPU is counted as wrk's.
add_process_cpu() {
  local task ns
  if [[ $CPU_SOURCE == schedstat ]]; then
    for task in "${1%/stat}"/task/*/schedstat; do
      { read -r ns _ <"$task"; } 2>/dev/null || continue
      total=$((total + ns / 1000))
    done
  else
    total=$((total + ($2 + $3) * 1000000 / CLK_TCK))
  fi
}

group_cpu_us() {
  local pgid=$1
  [[ -n $pgid ]] || { echo 0; return; }
  local f st total=0 fields
  for f in /proc/[0-9]*/stat; do
    { read -r st <"$f"; } 2>/dev/null || continue
    st=${st##*) }
    read -ra fields <<<"$st"
    [[ " $pgid " == *" ${fields[2]} "* ]] || continue
    add_process_cpu "$f" "${fields[11]}" "${fields[12]}"
  done
  echo "$total"
}

# Sets CHILDREN_CPU_US to the user + system CPU time of this script's
# terminated, waited-for children (bash's `times`, second line). `times` must
# run in this shell, not in a $(...) subshell, hence the file.
children_cpu() {
  times >"$RAW/times.txt"
  CHILDREN_CPU_US=$(awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
    printf "%d\n", t * 1e6 }' "$RAW/times.txt")
}

# VmRSS etc. of PID as a JSON object (kB values).
memory_json() {
  local pid=$1 name=$2
  awk -v name="$name" -v pid="$pid" '
    /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads):/ { v[$1] = $2 }
    END {
      printf "{\"process\":\"%s\",\"pid\":%d,\"processes\":1,\"rss_kb\":%d,\"hwm_kb\":%d,\"anon_kb\":%d,\"file_kb\":%d,\"shmem_kb\":%d,\"threads\":%d}\n",
        name, pid, v["VmRSS:"], v["VmHWM:"], v["RssAnon:"], v["RssFile:"], v["RssShmem:"], v["Threads:"]
    }' "/proc/$pid/status"
}

# The same summed over the processes of group PGID (nginx, Apache, a Node
# cluster); VmHWM is the sum of each process's peak.
group_memory_json() {
  local pgid=$1 name=$2 f st fields files=()
  for f in /proc/[0-9]*/stat; do
    { read -r st <"$f"; } 2>/dev/null || continue
    st=${st##*) }
    read -ra fields <<<"$st"
    [[ ${fields[2]} == "$pgid" ]] && files+=("${f%/stat}/status")
  done
  ((${#files[@]})) || { echo "{\"process\":\"$name\",\"pid\":$pgid,\"processes\":0}"; return; }
  awk -v name="$name" -v pid="$pgid" -v n="${#files[@]}" '
    /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|Threads):/ { v[$1] += $2 }
    END {
      printf "{\"process\":\"%s\",\"pid\":%d,\"processes\":%d,\"rss_kb\":%d,\"hwm_kb\":%d,\"anon_kb\":%d,\"file_kb\":%d,\"shmem_kb\":%d,\"threads\":%d}\n",
        name, pid, n, v["VmRSS:"], v["VmHWM:"], v["RssAnon:"], v["RssFile:"], v["RssShmem:"], v["Threads:"]
    }' "${files[@]}" 2>/dev/null
}

# Where the CPU went during scenario ID (BENCH_PERF=1): share of samples per
# process, then the hottest symbols of each program.
perf_summary() {
  local id=$1 title=$2 data=$RAW/$1.perf.data report
  [[ -s $data ]] || { say "  perf recorded nothing (see $RAW/$id.perf.log)"; return 0; }
  mkdir -p "$BENCH_RESULTS/perf"
  report=$BENCH_RESULTS/perf/$id.txt
  (
    set +e +o pipefail
    echo "# $title: perf record -a -e cpu-clock, $(nproc) cores, while wrk ran"
    echo
    echo "## samples by process (command)"
    perf report -i "$data" --stdio --no-children --sort comm 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 15
    echo
    echo "## samples by process and object"
    perf report -i "$data" --stdio --no-children --sort comm,dso 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30
    local comm
    for comm in authd authd_ceiling authd_fast_ceil lighttpd nginx apache2 node; do  # comm: 15 characters
      echo
      echo "## $comm: hottest symbols (share of all samples)"
      perf report -i "$data" --stdio --no-children --comms "$comm" --sort dso,sym 2>/dev/null |
        grep -v '^#' | grep -v '^$' | head -n 40
    done
  ) >"$report" 2>/dev/null
  [[ -n ${BENCH_KEEP_PERF:-} ]] || rm -f "$data"
  say "  perf summary: ${report#"$ROOT"/}"
}

# Seconds a front may keep access-log lines buffered before writing them.
LOG_FLUSH_WAIT=1.2

# The status breakdown of what ACCESS_LOG gained after byte OFFSET, as a JSON
# object (common and combined formats: the status follows the quoted request).
log_statuses() {
  local offset=$1
  [[ -n $ACCESS_LOG && -f $ACCESS_LOG ]] || { echo '{}'; return; }
  tail -c +"$((offset + 1))" "$ACCESS_LOG" |
    awk -F'"' 'NF >= 3 { split($3, a, " "); n[a[1]]++ }
               END { s = ""; for (k in n) s = s (s == "" ? "" : ",") "\"" k "\":" n[k]; print "{" s "}" }'
}

# sample_anon PID FILE: writes the largest RssAnon (kB) PID had, sampled every
# 0.1 s, to FILE until killed.
sample_anon() {
  local pid=$1 file=$2 peak=0 kb
  trap 'echo "$peak" >"$file"; exit 0' TERM
  echo 0 >"$file"
  while :; do
    kb=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    ((${kb:-0} > peak)) && peak=$kb
    sleep 0.1
  done
}

SCENARIOS=()
# db_counters: the store's write counters as JSON, exact and without the
# statistics' delay, for ROW_DB=lmdb:STATE_DIR or ROW_DB=postgresql:CLUSTER
# (test/postgres/cluster.sh); null without ROW_DB:
#   write_txns  LMDB: its last transaction id (each committed write
#               transaction takes the next one); PostgreSQL: the next
#               transaction id (only a transaction that writes takes one:
#               pg_snapshot_xmax of the current snapshot, which takes none)
#   wal_bytes   PostgreSQL: the WAL insert position, in bytes
#   statements, transactions  PostgreSQL with pg_stat_statements loaded and
#               created in database authd (the scale part's cluster,
#               bench/lib/scale.sh): calls of authd's statements so far (BEGIN,
#               COMMIT, ROLLBACK and each transaction's set_config of its
#               statement timeout not counted) and of its BEGINs (every
#               transaction of authd's begins with one); exact, no delay;
#               with ROW_DB_STATEMENTS_OUT=FILE also every statement's calls
#               so far as JSON, in FILE.0 (the first call) and FILE.1
# run_scenario reads them around the measured run: write transactions (each
# one a disk flush on either store, as authd configures them) and WAL bytes
# per request, docs/performance.md's "database writes per request"; with
# ROW_DB=postgresql:DIR also the CPU time of the PostgreSQL server (the
# postmaster of DIR/data/postmaster.pid and its children: each backend leads
# a process group of its own, db_cpu_us).
db_counters() {
  case ${ROW_DB:-} in
    lmdb:*)
      mdb_stat -e "${ROW_DB#lmdb:}" 2>/dev/null |
        awk -F': *' '/Last transaction ID/ { printf "{\"write_txns\":%s}\n", $2; found = 1 } END { if (!found) print "null" }' ;;
    postgresql:*)
      local statements="'statements', null, 'transactions', null"
      if [[ ${ROW_DB_STATEMENTS:-0} == 1 ]]; then
        statements="'statements', (SELECT coalesce(sum(calls) FILTER (WHERE query !~* '^\s*(begin|commit|rollback|set|select set_config)\M'), 0)
                                    FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                                    WHERE d.datname = 'authd' AND query NOT LIKE '%pg_stat_statements%'),
                    'transactions', (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                                     WHERE d.datname = 'authd' AND query ~* '^\s*begin\M')"
      fi
      if [[ -n ${ROW_DB_STATEMENTS_OUT:-} ]]; then  # each statement's calls so far: OUT.0 before, OUT.1 after
        local which=0
        [[ -e $ROW_DB_STATEMENTS_OUT.0 ]] && which=1
        pg_psql "${ROW_DB#postgresql:}" authd -At -c \
          "SELECT coalesce(json_agg(json_build_object('id', s.queryid::text, 'calls', s.calls,
                                                       'query', left(regexp_replace(s.query, '\s+', ' ', 'g'), 160))), '[]')
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
           WHERE d.datname = 'authd' AND s.query NOT LIKE '%pg_stat_statements%'" >"$ROW_DB_STATEMENTS_OUT.$which" 2>/dev/null
      fi
      pg_psql "${ROW_DB#postgresql:}" authd -At -c \
        "SELECT json_build_object('write_txns', pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
                                  'wal_bytes', (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, $statements)" 2>/dev/null || echo null ;;
    *) echo null ;;
  esac
}

db_pid() {  # the postmaster's pid of ROW_DB=postgresql:DIR
  [[ ${ROW_DB:-} == postgresql:* ]] || return 0
  head -n 1 "${ROW_DB#postgresql:}/data/postmaster.pid" 2>/dev/null || true
}

# CPU time (us) of process PID and its children so far (the PostgreSQL server).
db_cpu_us() {
  local pid=$1 f st fields total=0
  [[ -n $pid ]] || { echo 0; return; }
  for f in /proc/[0-9]*/stat; do
    { read -r st <"$f"; } 2>/dev/null || continue
    st=${st##*) }
    read -ra fields <<<"$st"
    [[ $f == "/proc/$pid/stat" || ${fields[1]} == "$pid" ]] || continue
    add_process_cpu "$f" "${fields[11]}" "${fields[12]}"
  done
  echo "$total"
}

run_scenario() {
  local id=$1 title=$2 expected=$3 conns=$4 duration=$5 method=$6 path=$7
  shift 7
  local out=$RAW/$id.json
  say "$title: $method $path, $conns connections, ${BENCH_WARMUP}s warm-up + ${duration}s"
  if ((BENCH_WARMUP > 0)); then
    BENCH_METHOD=$method BENCH_SIGNUP=${BENCH_SIGNUP:+${BENCH_SIGNUP}w} BENCH_WRK_THREADS=$BENCH_THREADS \
    BENCH_REFRESH_FILE=${BENCH_REFRESH_FILE:+$BENCH_REFRESH_FILE.warmup} \
      wrk -t"$BENCH_THREADS" -c"$conns" -d"${BENCH_WARMUP}s" --timeout "${BENCH_TIMEOUT}s" \
      -s "$LUA" "$@" "$BASE$path" >"$RAW/$id.warmup.txt" 2>&1 &
    WRK_PID=$!
    wait "$WRK_PID" || die "wrk (warm-up of $id) failed: $(cat "$RAW/$id.warmup.txt")"
    WRK_PID=
  fi
  [[ -z $ACCESS_LOG ]] || sleep "$LOG_FLUSH_WAIT"
  local offset=0
  [[ -z $ACCESS_LOG ]] || offset=$(stat -c %s "$ACCESS_LOG" 2>/dev/null || echo 0)
  local perf_pid="" backend_cpu0 front_cpu0 wrk_cpu0 db0 db1 db_pid db_cpu0 stat0
  db_pid=$(db_pid)
  db0=$(db_counters)
  db_cpu0=$(db_cpu_us "$db_pid")
  backend_cpu0=$(group_cpu_us "$BACKEND_PGID")
  front_cpu0=$(group_cpu_us "$FRONT_PGID")
  stat0="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat) $(date +%s%N)"
  # wrk's CPU: this shell's waited-for children from here to its end (the
  # $(...) above and below are children too: none may run in between).
  children_cpu
  wrk_cpu0=$CHILDREN_CPU_US
  if ((BENCH_PERF)); then
    perf record -a -e cpu-clock -F "${BENCH_PERF_FREQ:-499}" -o "$RAW/$id.perf.data" -- sleep "$duration" >"$RAW/$id.perf.log" 2>&1 &
    perf_pid=$!
  fi
  local sampler=
  if [[ -n ${SAMPLE_ANON_PID:-} ]]; then
    sample_anon "$SAMPLE_ANON_PID" "$RAW/$id.anon" &
    sampler=$!
  fi
  BENCH_METHOD=$method BENCH_OUT=$out BENCH_WRK_THREADS=$BENCH_THREADS \
    wrk -t"$BENCH_THREADS" -c"$conns" -d"${duration}s" --timeout "${BENCH_TIMEOUT}s" --latency \
    -s "$LUA" "$@" "$BASE$path" >"$RAW/$id.txt" 2>&1 &
  WRK_PID=$!
  local rc=0
  wait "$WRK_PID" || rc=$?
  children_cpu
  local wrk_cpu=$((CHILDREN_CPU_US - wrk_cpu0)) stat1
  ((rc == 0)) || die "wrk ($id) failed: $(cat "$RAW/$id.txt")"
  WRK_PID=
  stat1="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat) $(date +%s%N)"
  local anon_peak=null
  if [[ -n $sampler ]]; then
    kill -TERM "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    anon_peak=$(cat "$RAW/$id.anon" 2>/dev/null || echo null)
  fi
  local db_cpu=$(($(db_cpu_us "$db_pid") - db_cpu0))
  db1=$(db_counters)
  local db_kind=${ROW_DB:-}
  db_kind=${db_kind%%:*}
  local backend_cpu=$(($(group_cpu_us "$BACKEND_PGID") - backend_cpu0))
  local front_cpu=$(($(group_cpu_us "$FRONT_PGID") - front_cpu0))
  [[ -s $out ]] || die "wrk ($id) wrote no figures: $(cat "$RAW/$id.txt")"
  if [[ -n $perf_pid ]]; then
    wait "$perf_pid" || true
    perf_summary "$id" "$title"
  fi
  [[ -z $ACCESS_LOG ]] || sleep "$LOG_FLUSH_WAIT"
  local statuses
  statuses=$(log_statuses "$offset")
  jq -c --arg id "$id" --arg title "$title" --arg method "$method" --arg path "$path" \
     --argjson expected "$expected" --argjson also "[${ROW_ALSO_EXPECTED:-}]" \
     --argjson connections "$conns" --argjson statuses "$statuses" \
     --argjson backend_us "$backend_cpu" --argjson front_us "$front_cpu" --arg cpu_source "$CPU_SOURCE" \
     --argjson wrk_us "$wrk_cpu" --arg front "${ROW_FRONT:-}" --arg backend "${ROW_BACKEND:-}" \
     --arg ceiling "${ROW_CEILING:-}" --arg threads "${ROW_THREADS:-}" --arg keep "${ROW_KEEP:-}" \
     --arg users "${ROW_USERS:-}" --argjson anon_peak "${anon_peak:-null}" --arg candidate "${ROW_CANDIDATE:-}" \
     --argjson db0 "${db0:-null}" --argjson db1 "${db1:-null}" --arg db "$db_kind" --argjson db_us "$db_cpu" \
     --arg stat0 "$stat0" --arg stat1 "$stat1" --argjson clk_tck "$CLK_TCK" \
     '{id: $id, title: $title, method: $method, path: $path, expected_status: $expected,
       expected_statuses: ([$expected] + $also),
       connections: $connections, statuses: $statuses,
       front: (if $front == "" then null else $front end),
       backend: (if $backend == "" then null else $backend end),
       ceiling_id: (if $ceiling == "" then null else $ceiling end),
       candidate_of: (if $candidate == "" then null else $candidate end),
       backend_threads: (if $threads == "" then null else ($threads | tonumber) end),
       kept_connections: (if $keep == "" then null else ($keep | tonumber) end),
       users: (if $users == "" then null else ($users | tonumber) end),
       backend_anon_peak_kb: $anon_peak, cpu_source: $cpu_source} + .
      | . + {cpu_us_per_request: {
          backend: (if .requests > 0 then $backend_us / .requests else null end),
          front: (if .requests > 0 and .front != "direct" then $front_us / .requests else null end),
          wrk: (if .requests > 0 then $wrk_us / .requests else null end),
          database: (if .requests > 0 and $db == "postgresql" then $db_us / .requests else null end)}}
      | .cpu_us_per_request.total = (.cpu_us_per_request | [.backend, .front, .wrk] | map(. // 0) | add)
      # The whole machine over the measured run (/proc/stat, in clock ticks ->
      # us, over window_us of wall time: a little more than the run): busy
      # (user, nice, system, irq, softirq) and idle (+ iowait); busy minus
      # what the measured processes used is what everything else took.
      | .machine_cpu_us = (($stat0 | split(" ") | map(tonumber)) as $a | ($stat1 | split(" ") | map(tonumber)) as $b
          | {busy: (($b[0] - $a[0]) * 1e6 / $clk_tck), idle: (($b[1] - $a[1]) * 1e6 / $clk_tck),
             window_us: (($b[2] - $a[2]) / 1000), measured: ($backend_us + $front_us + $wrk_us + $db_us)})
      | .db_delta = (if $db0 and $db1 then
          {write_txns: ($db1.write_txns - $db0.write_txns),
           wal_bytes: (if $db1.wal_bytes then ($db1.wal_bytes - $db0.wal_bytes) else null end),
           statements: (if $db1.statements != null then ($db1.statements - $db0.statements) else null end),
           transactions: (if $db1.transactions != null then ($db1.transactions - $db0.transactions) else null end),
           cpu_us: (if $db == "postgresql" then $db_us else null end)}
        else null end)
      | .db_per_request = (if $db0 and $db1 and .requests > 0 then
          {store: $db, write_txns: (($db1.write_txns - $db0.write_txns) / .requests),
           wal_bytes: (if $db1.wal_bytes then ($db1.wal_bytes - $db0.wal_bytes) / .requests else null end)}
          + (if .db_delta.statements != null then {statements: (.db_delta.statements / .requests),
                                                   transactions: (.db_delta.transactions / .requests)} else {} end)
        else null end)
      # A scenario of several requests per iteration (the code flow): the same per iteration.
      | if (.lua.iterations // 0) > 0 and .lua.mode == "code" then
          .cpu_us_per_iteration = {backend: ($backend_us / .lua.iterations),
                                   front: (if .front != "direct" then $front_us / .lua.iterations else null end),
                                   wrk: ($wrk_us / .lua.iterations)}
          | .cpu_us_per_iteration.total = (.cpu_us_per_iteration | [.backend, .front, .wrk] | map(. // 0) | add)
        else . end' \
     "$out" >"$RAW/$id.scenario.json"
  SCENARIOS+=("$RAW/$id.scenario.json")
  jq -r '"  \(.requests / (.duration_us / 1e6) | floor) req/s, p50 \(.latency_us.p50) us, p99 \(.latency_us.p99) us, "
         + "statuses \(.statuses | tojson), non-2xx \(.errors.status), socket errors \(.errors | del(.status) | tojson), "
         + "CPU/request: backend \(.cpu_us_per_request.backend // 0 | floor) us, front \(.cpu_us_per_request.front // 0 | floor) us, "
         + "wrk \(.cpu_us_per_request.wrk // 0 | floor) us"
         + (if .lua then ", checked by wrk: \(.lua | del(.mode) | tojson)" else "" end)' "$RAW/$id.scenario.json" | sed 's/^/bench: /' >&2
}
