# bench/results.jq - assembles bench/results/latest.json from the raw figures
# bench/run.sh collected (jq -n with --arg/--argjson/--slurpfile, see there).

def ns($t; $unit):
  if $unit == "ns" then $t elif $unit == "us" then $t * 1e3
  elif $unit == "ms" then $t * 1e6 elif $unit == "s" then $t * 1e9 else $t end;
def round($d): (. * pow(10; $d) | round) / pow(10; $d);

($micro[0].benchmarks // []
  | map(select((.run_type // "iteration") == "iteration"))
  | map({name: (.run_name // .name),
         real_ns: ns(.real_time; .time_unit), cpu_ns: ns(.cpu_time; .time_unit),
         iterations, allocs: (.allocs // null), items_per_second: (.items_per_second // null),
         threads: (.threads // 1)})) as $bench
| ($bench | map({key: .name, value: .}) | from_entries) as $by
# argon2id: the measured hash/verify time (ms) and the parameters used.
| ($by["BM_PasswordHash/min_time:1.000/real_time"].real_ns // null) as $hash_ns
| ($by["BM_PasswordVerify/min_time:1.000/real_time"].real_ns // null) as $verify_ns
| ($bench | map(select(.name | startswith("BM_PasswordVerifyAllCores"))) | first | .items_per_second // null) as $verify_all_rps
| ($authd_phc | capture("\\$m=(?<m>[0-9]+),t=(?<t>[0-9]+),p=(?<p>[0-9]+)\\$")?
   // {m: null, t: null, p: null}) as $authd_params
| ($micro[0].benchmarks // [] | map(select(.name | startswith("BM_PasswordHash"))) | first
   | if . then {m: (.m_kib | tostring), t: (.t | tostring), p: (.p | tostring)} else null end) as $micro_params
| ($scenarios | map(. + {rps: (.requests / (.duration_us / 1e6))})) as $runs
| ($runs | map(select(.id == "ceiling")) | first) as $ceiling
| ($runs | map(. + {
      ratio_to_ceiling: (if $ceiling then (.rps / $ceiling.rps) else null end),
      p99_ratio_to_ceiling: (if $ceiling and $ceiling.latency_us.p99 > 0
                             then (.latency_us.p99 / $ceiling.latency_us.p99) else null end),
      fastcgi_cpu_over_ceiling_us: (if $ceiling and $ceiling.cpu_us_per_request.fastcgi != null and .cpu_us_per_request.fastcgi != null
                                    then .cpu_us_per_request.fastcgi - $ceiling.cpu_us_per_request.fastcgi else null end),
      cpu_bound_ratio: (if $ceiling and .cpu_us_per_request.total > 0 and .id != "ceiling"
                        then ($ceiling.cpu_us_per_request.total / .cpu_us_per_request.total)
                        elif .id == "ceiling" then 1 else null end),
      logged: ([.statuses[]] | add // 0),
      expected_count: (.statuses[(.expected_status | tostring)] // 0),
      unexpected_count: (([.statuses[]] | add // 0) - (.statuses[(.expected_status | tostring)] // 0))
    })) as $runs
| ($runs | map({key: .id, value: .}) | from_entries) as $run
| ($memory | map(. + {rss_mib: (.rss_kb / 1024)})) as $mem
| ($mem | map(select(.process == "authd")) | first) as $authd_mem
| (if $verify_ns then ($cores / ($verify_ns / 1e9)) else null end) as $signin_ideal
| (if $hash_ns then ($cores / ($hash_ns / 1e9)) else null end) as $signup_ideal
| {
    meta: {date: $date, commit: $commit, uncommitted_changes: $dirty, cores: $cores, cpu: $cpu,
           kernel: $kernel, loadavg_start: $loadavg_start, loadavg_end: $loadavg_end, lighttpd: $lighttpd, wrk: $wrk, build_type: $build_type},
    parameters: {fastcgi_threads: $workers, connections: $connections,
                 hash_connections: $hash_connections, wrk_threads: $threads,
                 duration_s: $duration, hash_duration_s: $hash_duration, warmup_s: $warmup},
    scenarios: $runs,
    memory: $mem,
    argon2id: {
      authd_params: $authd_params, micro_params: $micro_params,
      hash_ms: (if $hash_ns then $hash_ns / 1e6 else null end),
      verify_ms: (if $verify_ns then $verify_ns / 1e6 else null end),
      signin_ideal_rps: $signin_ideal, signup_ideal_rps: $signup_ideal,
      verify_all_cores_rps: $verify_all_rps
    },
    micro: $bench,
    targets: [
      {id: "guarded_read_throughput", what: "guarded read req/s ≥ 0.85 × ceiling (ratio)",
       value: $run.guarded_read.ratio_to_ceiling, limit: 0.85,
       met: (if $run.guarded_read.ratio_to_ceiling then $run.guarded_read.ratio_to_ceiling >= 0.85 else null end)},
      {id: "guarded_read_p99", what: "guarded read p99 ≤ 1.5 × ceiling p99 (ratio)",
       value: $run.guarded_read.p99_ratio_to_ceiling, limit: 1.5,
       met: (if $run.guarded_read.p99_ratio_to_ceiling then $run.guarded_read.p99_ratio_to_ceiling <= 1.5 else null end)},
      {id: "verify_plus_lookup", what: "token verify (in full) + user lookup < 5 µs (BM_GuardCheckUncached, µs)",
       value: (($by.BM_GuardCheckUncached.cpu_ns // null) | if . then . / 1000 else null end), limit: 5,
       met: (if $by.BM_GuardCheckUncached then $by.BM_GuardCheckUncached.cpu_ns < 5000 else null end)},
      {id: "verify_plus_lookup_cached", what: "(for reference) the same for a token seen before (BM_GuardCheck, µs)",
       value: (($by.BM_GuardCheck.cpu_ns // null) | if . then . / 1000 else null end), limit: 5,
       met: (if $by.BM_GuardCheck then $by.BM_GuardCheck.cpu_ns < 5000 else null end)},
      {id: "fastcgi_rss", what: "FastCGI process RSS < 16 MiB after the run (MiB)",
       value: ($authd_mem.rss_mib // null), limit: 16,
       met: (if $authd_mem then $authd_mem.rss_mib < 16 else null end)},
      {id: "signin_throughput", what: "sign-in req/s ≥ 0.9 × cores ÷ argon2id verify time (ratio)",
       value: (if $signin_ideal and $run.signin then $run.signin.rps / $signin_ideal else null end), limit: 0.9,
       met: (if $signin_ideal and $run.signin then ($run.signin.rps / $signin_ideal) >= 0.9 else null end)},
      {id: "signin_vs_parallel_verify", what: "(for reference) sign-in req/s ÷ verify() per second measured on all cores at once",
       value: (if $verify_all_rps and $run.signin then $run.signin.rps / $verify_all_rps else null end), limit: 0.9,
       met: (if $verify_all_rps and $run.signin then ($run.signin.rps / $verify_all_rps) >= 0.9 else null end)}
    ]
  }
