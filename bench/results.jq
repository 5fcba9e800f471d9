# bench/results.jq - assembles bench/results/latest.json from the raw figures
# bench/run.sh collected (jq -n with --arg/--argjson/--slurpfile, see there).

def ns($t; $unit):
  if $unit == "ns" then $t elif $unit == "us" then $t * 1e3
  elif $unit == "ms" then $t * 1e6 elif $unit == "s" then $t * 1e9 else $t end;
def round($d): (. * pow(10; $d) | round) / pow(10; $d);
def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;

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
# Rows ID_pairK: round K of the paired rounds (bench/lib/pairs.sh).
| ($scenarios | map(. + {rps: (.requests / (.duration_us / 1e6)),
                         pair_round: ((.id | capture("_pair(?<k>[0-9]+)$") | .k | tonumber) // null)})) as $runs0
| ($runs0 | map({key: .id, value: .}) | from_entries) as $by_id
# The ceiling of a front server: the fastest of its candidates measured in
# this run (the row named by ceiling_id and every row that is candidate_of it).
| ($runs0 | map(select(.ceiling_id != null and (.id == .ceiling_id or .candidate_of == .ceiling_id)))
   | group_by(.ceiling_id) | map({key: .[0].ceiling_id, value: max_by(.rps)}) | from_entries) as $true_ceiling
| ($runs0 | map(($true_ceiling[.ceiling_id // ""] // null) as $ceiling | . + {
      true_ceiling_id: ($ceiling.id // null),
      ratio_to_ceiling: (if $ceiling then (.rps / $ceiling.rps) else null end),
      p99_ratio_to_ceiling: (if $ceiling and $ceiling.latency_us.p99 > 0
                             then (.latency_us.p99 / $ceiling.latency_us.p99) else null end),
      backend_cpu_over_ceiling_us: (if $ceiling and $ceiling.cpu_us_per_request.backend != null and .cpu_us_per_request.backend != null
                                    then .cpu_us_per_request.backend - $ceiling.cpu_us_per_request.backend else null end),
      cpu_bound_ratio: (if $ceiling and .cpu_us_per_request.total > 0
                        then ($ceiling.cpu_us_per_request.total / .cpu_us_per_request.total) else null end),
      logged: ([.statuses[]] | add // 0),
      # expected_statuses: the expected status and any other that is no error (the code flow's 302).
      expected_count: (. as $s | [(.expected_statuses // [.expected_status])[] | $s.statuses[tostring] // 0] | add),
      # 499: nginx's "client closed the request": what was still waiting when wrk stopped.
      cut_off_count: (.statuses["499"] // 0),
      unexpected_count: (. as $s | ([.statuses[]] | add // 0)
                         - ([(.expected_statuses // [.expected_status])[] | $s.statuses[tostring] // 0] | add)
                         - (.statuses["499"] // 0)),
      socket_errors: (.errors.connect + .errors.read + .errors.write + .errors.timeout)
    })) as $runs
| ($runs | map({key: .id, value: .}) | from_entries) as $run
| ($memory | map(. + {rss_mib: ((.rss_kb // 0) / 1024)})) as $mem
| ($mem | map(select(.process == "authd after sign-up")) | first) as $authd_mem
| (if $verify_ns then ($cores / ($verify_ns / 1e9)) else null end) as $signin_ideal
| (if $hash_ns then ($cores / ($hash_ns / 1e9)) else null end) as $signup_ideal
# The guarded read on every front and peer, in this order.
| (["ceiling", "ceiling_pool", "ceiling_fast", "ceiling_fast1", "guarded_read", "eddsa_guarded_read", "pg_guarded_read",
    "pg_pgbouncer_guarded_read",
    "nginx_ceiling", "nginx_ceiling_pool", "nginx_ceiling_fast", "nginx_ceiling_fast1", "nginx_authd", "nginx_authd1",
    "nginx_many",
    "apache_ceiling", "apache_ceiling_pool", "apache_ceiling_fast", "apache_ceiling_fast1", "apache_authd",
    "express_direct", "express_nginx", "fastify_direct", "fastify_nginx"]
   | map($run[.] // empty)) as $summary
# Many users: one row per store size, with the ratio of each figure to the smallest store's.
| ($users_meta | sort_by(.users)) as $sizes
| ($sizes | map(.users as $n | . + {
      read: $run["users_\($n)_read"], signin: $run["users_\($n)_signin"], signup: $run["users_\($n)_signup"]})) as $users0
| ($users0 | first) as $smallest
| ($users0 | map(. + {
      read_ratio: (if .read and $smallest.read then .read.rps / $smallest.read.rps else null end),
      signin_ratio: (if .signin and $smallest.signin then .signin.rps / $smallest.signin.rps else null end),
      signup_ratio: (if .signup and $smallest.signup then .signup.rps / $smallest.signup.rps else null end)})) as $users
| ($users | last) as $largest
| ($mem | map(select(.process | test("^authd, [0-9]+ users"))) | map(.anon_kb)
   + ([$largest.read, $largest.signin, $largest.signup] | map(select(. != null) | .backend_anon_peak_kb // empty))
   | max) as $largest_anon_kb
| ($largest.read.backend_anon_peak_kb // null) as $largest_read_anon_kb
| ([$run.guarded_read, $run.nginx_authd, $run.apache_authd] | map(select(. != null)) | max_by(.rps)) as $best
# Per front server: its ceiling (the fastest candidate), the epoll responder,
# and authd's guarded read, with each one's CPU time per request.
# The epoll responder: the faster of its two runs (a loop per core, one loop);
# `same`: its run with as many loops as authd's row (like for like).
| ([{front: "lighttpd", ceiling: "ceiling", fast: ["ceiling_fast", "ceiling_fast1"], same: "ceiling_fast", authd: "guarded_read"},
    {front: "nginx", ceiling: "nginx_ceiling", fast: ["nginx_ceiling_fast", "nginx_ceiling_fast1"], same: "nginx_ceiling_fast", authd: "nginx_authd"},
    {front: "nginx", ceiling: "nginx_ceiling", fast: ["nginx_ceiling_fast", "nginx_ceiling_fast1"], same: "nginx_ceiling_fast1", authd: "nginx_authd1"},
    {front: "apache", ceiling: "apache_ceiling", fast: ["apache_ceiling_fast", "apache_ceiling_fast1"], same: "apache_ceiling_fast", authd: "apache_authd"}]
   | map(($true_ceiling[.ceiling] // null) as $c | (.fast | map($run[.] // empty) | max_by(.rps)) as $f
     | ($run[.same] // null) as $s
     | ($run[.authd] // null) as $a
     | select($c != null or $a != null)
     | {front, authd_backend: ($a.backend // null), fast_row: ($f.id // null),
        ceiling_row: ($c.id // null), ceiling_backend: ($c.backend // null), ceiling_rps: ($c.rps // null),
        ceiling_cpu_us: ($c.cpu_us_per_request.backend // null),
        fast_rps: ($f.rps // null), fast_cpu_us: ($f.cpu_us_per_request.backend // null),
        authd_row: ($a.id // null), authd_rps: ($a.rps // null), authd_cpu_us: ($a.cpu_us_per_request.backend // null),
        authd_vs_ceiling: (if $a and $c then $a.rps / $c.rps else null end),
        authd_cpu_vs_ceiling: (if $a and $c and ($c.cpu_us_per_request.backend // 0) > 0
                               then $a.cpu_us_per_request.backend / $c.cpu_us_per_request.backend else null end),
        authd_cpu_vs_fast: (if $a and $f and ($f.cpu_us_per_request.backend // 0) > 0
                            then $a.cpu_us_per_request.backend / $f.cpu_us_per_request.backend else null end),
        same_loops_row: ($s.id // null), same_loops_cpu_us: ($s.cpu_us_per_request.backend // null),
        authd_cpu_vs_same_loops: (if $a and $s and ($s.cpu_us_per_request.backend // 0) > 0
                                  then $a.cpu_us_per_request.backend / $s.cpu_us_per_request.backend else null end)})) as $ceilings
# Paired rounds: per front, its ceiling and authd back to back, each round's
# ratios and their median.
| ([{front: "lighttpd", ceiling: "ceiling", authd: "guarded_read"},
    {front: "nginx", ceiling: "nginx_ceiling", authd: "nginx_authd"},
    {front: "apache", ceiling: "apache_ceiling", authd: "apache_authd"}]
   | map(. as $f
     | [range(1; 100) as $k | {k: $k, c: $run["\($f.ceiling)_pair\($k)"], a: $run["\($f.authd)_pair\($k)"]}
        | select(.c != null and .a != null)
        | {round: .k, first: (if .k % 2 == 1 then "ceiling" else "authd" end),
           ceiling_row: .c.id, ceiling_backend: .c.backend, ceiling_rps: .c.rps,
           ceiling_cpu_us: .c.cpu_us_per_request.backend, authd_row: .a.id, authd_rps: .a.rps,
           authd_cpu_us: .a.cpu_us_per_request.backend, ratio: (.a.rps / .c.rps),
           cpu_ratio: (if (.c.cpu_us_per_request.backend // 0) > 0 and .a.cpu_us_per_request.backend != null
                       then .a.cpu_us_per_request.backend / .c.cpu_us_per_request.backend else null end),
           clean: (.a.errors.status + .a.socket_errors + .a.unexpected_count == 0)}] as $rounds
     | select($rounds | length > 0)
     | {front: $f.front, ceiling_backend: $rounds[0].ceiling_backend, rounds: $rounds,
        median_ratio: ($rounds | map(.ratio) | median),
        median_cpu_ratio: ($rounds | map(.cpu_ratio // empty) | median),
        min_ratio: ($rounds | map(.ratio) | min), max_ratio: ($rounds | map(.ratio) | max)})) as $pairs
| ($pairs | map({key: .front, value: .}) | from_entries) as $pair
# The OpenID provider behind nginx (bench/lib/oidc.sh, issue 43): each row's
# rate (code exchange: whole flows per second, two requests each) against its
# target, met only when every answer was the expected one.
| ([{id: "oidc_client_credentials", what: "client_credentials grant", unit: "grants/s", target: 2400,
     anchor: "10 × Keycloak's 120/s per vCPU, on 2 cores"},
    {id: "oidc_refresh", what: "refresh_token grant (rotation)", unit: "grants/s", target: 2400,
     anchor: "10 × Keycloak's 120/s per vCPU, on 2 cores"},
    {id: "oidc_introspection", what: "introspection (RFC 7662)", unit: "introspections/s", target: 16000,
     anchor: "2 × Hydra's 8,000/s on 2 CPUs"},
    {id: "oidc_code_exchange", what: "code flow: GET /authorize (PKCE) → 302 → POST /token", unit: "exchanges/s",
     target: 1000, anchor: "the issue's target"}]
   | map(. as $t | ($run[$t.id] // null) as $r | select($r != null)
     | ($r.duration_us / 1e6) as $secs
     | (if $r.lua.mode == "code" then ($r.lua.iterations // 0) else $r.requests end) as $done
     | ($r.errors.status + $r.socket_errors + $r.unexpected_count + ($r.lua.failed // 0) + ($r.lua.starved // 0)) as $bad
     | $t + {row: $r.id, title: $r.title, threads: $r.backend_threads, kept_connections: $r.kept_connections,
             connections: $r.connections, rate: ($done / $secs), requests_per_s: $r.rps,
             requests_per_iteration: (if $r.lua.mode == "code" and $done > 0 then $r.requests / $done else 1 end),
             p50_us: $r.latency_us.p50, p99_us: $r.latency_us.p99,
             cpu_us: ($r.cpu_us_per_iteration // $r.cpu_us_per_request),
             # The rate if the cores were the only limit (nothing else on them).
             cpu_bound_rate: (($r.cpu_us_per_iteration // $r.cpu_us_per_request).total as $t
                              | if ($t // 0) > 0 then $cores / ($t / 1e6) else null end),
             statuses: $r.statuses, expected_statuses: ($r.expected_statuses // [$r.expected_status]),
             wrk_checked: ($r.lua // null), not_expected: $bad, cut_off: $r.cut_off_count,
             clean: ($bad == 0),
             met: (($done / $secs) >= $t.target and $bad == 0)})) as $oidc
# The capacity model (bench/lib/scale.sh, part scale, issue 45): per request
# kind, one node on PostgreSQL: the CPU per operation of authd + lighttpd (a
# node), of wrk (the clients) and of PostgreSQL, and the statements,
# transactions, write transactions and WAL bytes per operation.
| ([{kind: "guarded_read", what: "guarded read (`GET /records`, bearer token)", op: "request"},
    {kind: "signin", what: "password sign-in (`POST /signin`, argon2id)", op: "sign-in"},
    {kind: "refresh", what: "refresh_token grant, rotating (`POST /token`)", op: "grant"},
    {kind: "code_exchange", what: "code exchange (`GET /authorize` → 302 → `POST /token`)", op: "exchange (2 requests)"},
    {kind: "introspection", what: "introspection (`POST /introspect`)", op: "introspection"}]
   | map(. as $k | ($run["scale_\($k.kind)"] // null) as $r | select($r != null)
     | (if $r.lua.mode == "code" then ($r.lua.iterations // 0) else $r.requests end) as $ops
     | select($ops > 0)
     | ($r.cpu_us_per_request) as $c
     | ($r.requests / $ops) as $rpo
     | ($r.errors.status + $r.socket_errors + $r.unexpected_count + ($r.lua.failed // 0) + ($r.lua.starved // 0)) as $bad
     | def per_op($v): if $v == null then null else $v / $ops end;
       $k + {row: $r.id, rate: ($ops / ($r.duration_us / 1e6)), requests_per_op: $rpo,
             p99_us: $r.latency_us.p99,
             cpu_us: {authd: ($c.backend * $rpo), front: ($c.front * $rpo), wrk: ($c.wrk * $rpo),
                      database: (($c.database // 0) * $rpo)},
             statements: per_op($r.db_delta.statements), transactions: per_op($r.db_delta.transactions),
             write_txns: per_op($r.db_delta.write_txns), wal_bytes: per_op($r.db_delta.wal_bytes),
             others_cores: (($r.machine_cpu_us.busy - $r.machine_cpu_us.measured) / $r.machine_cpu_us.window_us),
             top_statements: (($r.top_statements // []) | map({per_op: (.calls / $ops), query})),
             clean: ($bad == 0), not_expected: $bad}
     | .cpu_us.node = (.cpu_us.authd + .cpu_us.front)
     | .cpu_us.all = (.cpu_us.node + .cpu_us.wrk + .cpu_us.database))) as $scale_kinds
| ($scale_kinds | map({key: .kind, value: .}) | from_entries) as $scale_by
# From them, the sites of the issue: nodes of 4 cores kept at most half busy
# (headroom for peaks and for one node failing), at least 2.
| {cores: 4, busy: 0.5, min_nodes: 2} as $node_size
# A site of several kinds (a sign-in through the OpenID code flow is a
# sign-in and a code exchange) adds them up.
| ([{kinds: ["signin"], label: "10k sign-ins per hour", rate: (10000 / 3600)},
    {kinds: ["signin"], label: "100k sign-ins per hour", rate: (100000 / 3600)},
    {kinds: ["signin"], label: "1M sign-ins per hour", rate: (1000000 / 3600)},
    {kinds: ["signin", "code_exchange"], label: "1M sign-ins per hour, each through the code flow (+ a code exchange)",
     rate: (1000000 / 3600)},
    {kinds: ["guarded_read"], label: "1k guarded requests per second", rate: 1000},
    {kinds: ["guarded_read"], label: "10k guarded requests per second", rate: 10000},
    {kinds: ["guarded_read"], label: "100k guarded requests per second", rate: 100000}]
   | map(. as $s | ($s.kinds | map($scale_by[.] // null)) as $ks | select($ks | all(. != null))
     | def sum(f): $ks | map(f // 0) | add;
       $s + {node_cores: ($s.rate * sum(.cpu_us.node) / 1e6), database_cores: ($s.rate * sum(.cpu_us.database) / 1e6),
             statements_per_s: ($s.rate * sum(.statements)), transactions_per_s: ($s.rate * sum(.transactions)),
             write_txns_per_s: ($s.rate * sum(.write_txns)), wal_kb_per_s: ($s.rate * sum(.wal_bytes) / 1024)}
     | .nodes = ([$node_size.min_nodes, (.node_cores / ($node_size.cores * $node_size.busy) | ceil)] | max))) as $scale_sites
# The check: N nodes pinned round robin to this machine's cores against the
# model's prediction for it: min(cores the nodes are pinned to ÷ a node's CPU
# per operation, all cores ÷ everything's CPU per operation (node, wrk,
# PostgreSQL)); and the same with the cores the run could have had (what the
# measured processes used + what stayed idle; a shared machine's other work
# took the rest).
| ($runs | map(select(.id | test("^scale_[a-z_]+_n[0-9]+$")))
   | map(. as $r | ($r.id | capture("^scale_(?<kind>[a-z_]+)_n(?<n>[0-9]+)$")) as $m | ($m.n | tonumber) as $n
     | ($scale_by[$m.kind] // null) as $k | select($k != null)
     | ([$n, $cores] | min) as $used
     | (($r.machine_cpu_us.measured + $r.machine_cpu_us.idle) / $r.machine_cpu_us.window_us) as $avail
     | ($used * 1e6 / $k.cpu_us.node) as $by_nodes
     | ($cores * 1e6 / $k.cpu_us.all) as $by_machine
     | ($r.errors.status + $r.socket_errors + $r.unexpected_count + ($r.lua.failed // 0)) as $bad
     | {kind: $m.kind, what: $k.what, nodes: $n, cores_used: $used, row: $r.id, measured: $r.rps,
        predicted: ([$by_nodes, $by_machine] | min), bound: (if $by_nodes < $by_machine then "the nodes' cores" else "the machine" end),
        available_cores: $avail, others_cores: (($r.machine_cpu_us.busy - $r.machine_cpu_us.measured) / $r.machine_cpu_us.window_us),
        predicted_available: ([([$used, $avail] | min) * 1e6 / $k.cpu_us.node, $avail * 1e6 / $k.cpu_us.all] | min),
        cpu_us_node: ($r.cpu_us_per_request.backend + $r.cpu_us_per_request.front),
        cpu_us_database: $r.cpu_us_per_request.database,
        statements: ($r.db_per_request.statements // null), p99_us: $r.latency_us.p99, clean: ($bad == 0), not_expected: $bad}
     | .ratio = (.measured / .predicted) | .ratio_available = (.measured / .predicted_available))
   | sort_by(.kind, .nodes)) as $scale_check
| ($run.fastify_nginx // null) as $fastify
| def ratio($a; $b): if $a and $b then $a.rps / $b.rps else null end;
  def atleast($v; $limit): if $v == null then null else $v >= $limit end;
  def atmost($v; $limit): if $v == null then null else $v <= $limit end;
  # No errors, nothing cut off by the end of the run, and no request slower than 1 s (no stall).
  # Requests still in flight when wrk closes its connections (nginx: 499) are
  # the client's doing, not the server's: reported, not counted. A stall
  # shows as the slowest request (and a row far below its best).
  def clean($r): if $r == null then null
    else ($r.errors.status + $r.socket_errors + $r.unexpected_count) == 0
         and $r.latency_us.max < 1e6 end;
  # authd's default-loops row behind nginx in the CPU table.
  ($ceilings | map(select(.front == "nginx")) | first // {}) as $nginx_cpu |
  {
    meta: {date: $date, commit: $commit, uncommitted_changes: $dirty, cores: $cores, cpu: $cpu,
           kernel: $kernel, os: $os, loadavg_start: $loadavg_start, loadavg_end: $loadavg_end,
           lighttpd: $lighttpd, nginx: $nginx, apache: $apache, node: $node, peers: $peers, wrk: $wrk,
           build_type: $build_type, apache_enablereuse: $apache_reuse,
           notes: ($notes + ($oidc | map(select(.clean | not)
                   | "\(.title): \(.not_expected) answers were not as expected: its rate is no speed (section \"The OpenID provider behind nginx\")")))},
    parameters: {fastcgi_threads: $workers, connections: $connections,
                 hash_connections: $hash_connections, wrk_threads: $threads,
                 duration_s: $duration, hash_duration_s: $hash_duration, warmup_s: $warmup,
                 nginx_keepalive: $nginx_keepalive, nginx_workers: $nginx_workers,
                 many_workers: $many_workers, many_keepalive: $many_keepalive, many_connections: $many_connections,
                 apache_threads: $apache_threads, apache_pool: $apache_pool, fast_loops: $fast_loops,
                 pairs: $pair_rounds, pair_duration_s: $pair_duration,
                 peer_workers: $peer_workers, peer_users: $peer_users},
    summary: ($summary | map(.id)),
    ceilings: $ceilings,
    pairs: $pairs,
    fastify_nginx_rps: ($fastify.rps // null),
    oidc: $oidc,
    scale: (if ($scale_kinds | length) > 0 then
              {kinds: $scale_kinds, node_size: $node_size, sites: $scale_sites, check: $scale_check} else null end),
    users: ($users | map({users, import_s, data_kb,
                          read: (.read.id // null), signin: (.signin.id // null), signup: (.signup.id // null),
                          read_ratio, signin_ratio, signup_ratio})),
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
    targets: (([$oidc[] | {id: "\(.row)_rate",
                          what: "(OpenID provider, behind nginx) \(.what) ≥ \(.target) \(.unit) (\(.anchor)), every answer \(.expected_statuses | map(tostring) | join(" or "))\(if .clean then "" else ": **\(.not_expected) answers were not**" end) (\(.unit))",
                          value: .rate, limit: .target, met: .met}]) + [
      {id: "nginx_vs_fastify", what: "authd behind nginx (keep-alive) ≥ 1.3 × Fastify cluster behind nginx (ratio)",
       value: ratio($run.nginx_authd; $run.fastify_nginx), limit: 1.3,
       met: atleast(ratio($run.nginx_authd; $run.fastify_nginx); 1.3)},
      {id: "nginx_vs_ceiling", what: "authd behind nginx ≥ 0.9 × the true keep-alive ceiling (fastest trivial responder) (ratio)",
       value: $run.nginx_authd.ratio_to_ceiling, limit: 0.9, met: atleast($run.nginx_authd.ratio_to_ceiling; 0.9)},
      {id: "lighttpd_vs_ceiling", what: "authd behind lighttpd ≥ 0.95 × the true lighttpd ceiling (ratio)",
       value: $run.guarded_read.ratio_to_ceiling, limit: 0.95, met: atleast($run.guarded_read.ratio_to_ceiling; 0.95)},
      {id: "apache_vs_ceiling", what: "authd behind Apache (enablereuse=on) ≥ 0.9 × the true Apache ceiling (ratio)",
       value: $run.apache_authd.ratio_to_ceiling, limit: 0.9, met: atleast($run.apache_authd.ratio_to_ceiling; 0.9)},
      {id: "nginx_vs_ceiling_paired", what: "(paired rounds) authd behind nginx ≥ 0.9 × its ceiling, the median of \($pair.nginx.rounds // [] | length) rounds measured back to back (ratio)",
       value: ($pair.nginx.median_ratio // null), limit: 0.9, met: atleast($pair.nginx.median_ratio // null; 0.9)},
      {id: "lighttpd_vs_ceiling_paired", what: "(paired rounds) authd behind lighttpd ≥ 0.95 × its ceiling, the median of \($pair.lighttpd.rounds // [] | length) rounds (ratio)",
       value: ($pair.lighttpd.median_ratio // null), limit: 0.95, met: atleast($pair.lighttpd.median_ratio // null; 0.95)},
      {id: "apache_vs_ceiling_paired", what: "(paired rounds) authd behind Apache ≥ 0.9 × its ceiling, the median of \($pair.apache.rounds // [] | length) rounds (ratio)",
       value: ($pair.apache.median_ratio // null), limit: 0.9, met: atleast($pair.apache.median_ratio // null; 0.9)},
      {id: "nginx_cpu_vs_ceiling_paired", what: "(paired rounds) authd's CPU per guarded read behind nginx ≤ 1.3 × the paired ceiling's (\($pair.nginx.ceiling_backend // "?")), the median of its rounds (ratio)",
       value: ($pair.nginx.median_cpu_ratio // null), limit: 1.3, met: atmost($pair.nginx.median_cpu_ratio // null; 1.3)},
      {id: "nginx_cpu_vs_fast", what: "authd's CPU per guarded read behind nginx ≤ 1.3 × the epoll responder's (the faster of its runs) (ratio)",
       value: $nginx_cpu.authd_cpu_vs_fast, limit: 1.3, met: atmost($nginx_cpu.authd_cpu_vs_fast; 1.3)},
      {id: "nginx_cpu_vs_same_loops", what: "(like for like) authd's CPU per guarded read behind nginx ≤ 1.3 × the epoll responder's with as many loops (one per core, authd's default) (ratio)",
       value: $nginx_cpu.authd_cpu_vs_same_loops, limit: 1.3, met: atmost($nginx_cpu.authd_cpu_vs_same_loops; 1.3)},
      {id: "eddsa_read", what: "guarded read with EdDSA tokens ≥ 0.9 × with HS256, both behind lighttpd (ratio)",
       value: ratio($run.eddsa_guarded_read; $run.guarded_read), limit: 0.9,
       met: atleast(ratio($run.eddsa_guarded_read; $run.guarded_read); 0.9)},
      {id: "postgresql_read", what: "guarded read on the PostgreSQL store ≥ 0.9 × on LMDB, both behind lighttpd (ratio)",
       value: ratio($run.pg_guarded_read; $run.guarded_read), limit: 0.9,
       met: atleast(ratio($run.pg_guarded_read; $run.guarded_read); 0.9)},
      {id: "postgresql_capability_read", what: "capability read (GET /records/{id}) on the PostgreSQL store ≥ 0.9 × on LMDB, both behind lighttpd (ratio)",
       value: ratio($run.pg_capability_read; $run.capability_read), limit: 0.9,
       met: atleast(ratio($run.pg_capability_read; $run.capability_read); 0.9)},
      {id: "postgresql_pgbouncer_read", what: "guarded read on PostgreSQL through pgbouncer (transaction mode) ≥ 0.9 × direct (ratio)",
       value: ratio($run.pg_pgbouncer_guarded_read; $run.pg_guarded_read), limit: 0.9,
       met: atleast(ratio($run.pg_pgbouncer_guarded_read; $run.pg_guarded_read); 0.9)},
      {id: "postgresql_signin", what: "(for reference) sign-in on PostgreSQL ÷ on LMDB: bound by argon2id, not the database (ratio)",
       value: ratio($run.pg_signin; $run.signin), limit: 0.9,
       met: atleast(ratio($run.pg_signin; $run.signin); 0.9)},
      {id: "postgresql_signup", what: "(for reference) sign-up on PostgreSQL ÷ on LMDB (ratio)",
       value: ratio($run.pg_signup; $run.signup), limit: 0.9,
       met: atleast(ratio($run.pg_signup; $run.signup); 0.9)},
      {id: "many_connections", what: "\($many_keepalive) kept connections, \($many_workers) threads ≥ 0.8 × the best authd row (\($best.id // "?")) (ratio)",
       value: ratio($run.nginx_many; $best), limit: 0.8, met: atleast(ratio($run.nginx_many; $best); 0.8)},
      {id: "many_connections_clean", what: "the same with zero errors and no stall (non-2xx, socket errors, timeouts: count; and the slowest request < 1 s)",
       value: (if $run.nginx_many then $run.nginx_many.errors.status + $run.nginx_many.socket_errors + $run.nginx_many.unexpected_count else null end),
       limit: 0, met: clean($run.nginx_many)},
      {id: "many_connections_cut_off", what: "(for reference) requests of that row in flight when wrk stopped (nginx 499), at most one per wrk connection",
       value: (if $run.nginx_many then $run.nginx_many.cut_off_count else null end), limit: $run.nginx_many.connections,
       met: (if $run.nginx_many then $run.nginx_many.cut_off_count <= ($run.nginx_many.connections // 0) else null end)},
      {id: "many_connections_slowest", what: "(for reference) the slowest request of that row (ms)",
       value: (if $run.nginx_many then $run.nginx_many.latency_us.max / 1000 else null end), limit: 1000,
       met: (if $run.nginx_many then $run.nginx_many.latency_us.max < 1e6 else null end)},
      {id: "users_read_flat", what: "guarded read at \($largest.users // "?") users ≥ 0.9 × at \($smallest.users // "?") (ratio)",
       value: $largest.read_ratio, limit: 0.9, met: atleast($largest.read_ratio; 0.9)},
      {id: "users_signin_flat", what: "sign-in at \($largest.users // "?") users ≥ 0.9 × at \($smallest.users // "?") (ratio)",
       value: $largest.signin_ratio, limit: 0.9, met: atleast($largest.signin_ratio; 0.9)},
      {id: "users_signup_flat", what: "sign-up at \($largest.users // "?") users ≥ 0.9 × at \($smallest.users // "?") (ratio)",
       value: $largest.signup_ratio, limit: 0.9, met: atleast($largest.signup_ratio; 0.9)},
      {id: "users_import", what: "authctl import of \($largest.users // "?") users < 120 s (s)",
       value: ($largest.import_s // null), limit: 120, met: (if $largest then $largest.import_s < 120 else null end)},
      {id: "users_memory", what: "authd at \($largest.users // "?") users under load (guarded read, sign-in, sign-up): largest RssAnon, i.e. apart from the mapped database (MiB)",
       value: (if $largest_anon_kb then $largest_anon_kb / 1024 else null end), limit: 32,
       met: (if $largest_anon_kb then $largest_anon_kb / 1024 < 32 else null end)},
      {id: "users_memory_read", what: "(for reference) the same during the guarded read alone (MiB)",
       value: (if $largest_read_anon_kb then $largest_read_anon_kb / 1024 else null end), limit: 32,
       met: (if $largest_read_anon_kb then $largest_read_anon_kb / 1024 < 32 else null end)},
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
      {id: "fastcgi_rss", what: "authd RSS < 16 MiB after sign-up behind lighttpd (MiB)",
       value: ($authd_mem.rss_mib // null), limit: 16,
       met: (if $authd_mem then $authd_mem.rss_mib < 16 else null end)},
      {id: "signin_throughput", what: "sign-in req/s ≥ 0.9 × the ideal: argon2id verify() per second with authd's parameters in a tight loop on every core at once (its hashing threads) (ratio)",
       value: (if $verify_all_rps and $run.signin then $run.signin.rps / $verify_all_rps else null end), limit: 0.9,
       met: (if $verify_all_rps and $run.signin then ($run.signin.rps / $verify_all_rps) >= 0.9 else null end)},
      {id: "postgresql_signin_throughput", what: "sign-in req/s on PostgreSQL ≥ 0.9 × the same ideal (ratio)",
       value: (if $verify_all_rps and $run.pg_signin then $run.pg_signin.rps / $verify_all_rps else null end), limit: 0.9,
       met: (if $verify_all_rps and $run.pg_signin then ($run.pg_signin.rps / $verify_all_rps) >= 0.9 else null end)},
      {id: "signin_vs_single_core_verify", what: "(for reference) sign-in req/s ÷ (cores ÷ verify time on one core): argon2id slows when every core hashes at once (memory bandwidth), and wrk and the front server share the cores",
       value: (if $signin_ideal and $run.signin then $run.signin.rps / $signin_ideal else null end), limit: 0.9,
       met: (if $signin_ideal and $run.signin then ($run.signin.rps / $signin_ideal) >= 0.9 else null end)},
      {id: "signin_write_txns_lmdb", what: "(for reference) database write transactions per sign-in, LMDB",
       value: ($run.signin.db_per_request.write_txns // null), limit: 1,
       met: (if $run.signin.db_per_request then $run.signin.db_per_request.write_txns <= 1 else null end)},
      {id: "signin_write_txns_postgresql", what: "(for reference) database write transactions per sign-in, PostgreSQL",
       value: ($run.pg_signin.db_per_request.write_txns // null), limit: 1,
       met: (if $run.pg_signin.db_per_request then $run.pg_signin.db_per_request.write_txns <= 1 else null end)}
    ])
  }
