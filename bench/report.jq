# bench/report.jq - renders bench/results/latest.json as Markdown
# (jq -r -f bench/report.jq bench/results/latest.json).

def fixed($d): if . == null then "–" else ((. * pow(10; $d) | round) / pow(10; $d) | tostring) end;
def int_str: if . == null then "–" else (round | tostring) end;
def thousands: if . == null then "–" else (round | tostring
  | explode | map([.] | implode) | reverse | to_entries
  | map(if .key > 0 and .key % 3 == 0 then .value + "," else .value end)
  | reverse | join("")) end;
def us: if . == null then "–" elif . >= 1000000 then "\(. / 1e6 | fixed(2)) s"
        elif . >= 10000 then "\(. / 1e3 | fixed(1)) ms" elif . >= 1000 then "\(. / 1e3 | fixed(2)) ms"
        elif . >= 100 then "\(. | int_str) µs" else "\(. | fixed(1)) µs" end;
def ns: if . == null then "–" elif . >= 1e6 then "\(. / 1e6 | fixed(2)) ms"
        elif . >= 1e4 then "\(. / 1e3 | fixed(1)) µs" elif . >= 1e3 then "\(. / 1e3 | fixed(2)) µs"
        else "\(. | fixed(0)) ns" end;
def mib: if . == null then "–" else "\(. / 1024 | fixed(1)) MiB" end;
def met: if . == null then "n/a" elif . then "**yes**" else "**no**" end;

. as $r
| [
  "# authd benchmark",
  "",
  "\($r.meta.date) · commit \($r.meta.commit)\(if $r.meta.uncommitted_changes then " + uncommitted changes" else "" end) · \($r.meta.build_type) · \($r.meta.cpu), \($r.meta.cores) cores, Linux \($r.meta.kernel) · \($r.meta.lighttpd) · wrk \($r.meta.wrk) · load average \($r.meta.loadavg_start) before, \($r.meta.loadavg_end) after",
  "",
  "One lighttpd on 127.0.0.1 (conf/lighttpd.conf), one FastCGI process with \($r.parameters.fastcgi_threads) threads behind it (the ceiling responder first, then authd, on the same socket); wrk with \($r.parameters.wrk_threads) threads and \($r.parameters.connections) connections (\($r.parameters.hash_connections) for sign-in/sign-up), \($r.parameters.warmup_s) s warm-up then \($r.parameters.duration_s) s measured per scenario (\($r.parameters.hash_duration_s) s for sign-in/sign-up). wrk, lighttpd and the FastCGI process share the same \($r.meta.cores) cores.",
  "",
  "| Scenario | Request | req/s | × ceiling | p50 | p99 | p99 ÷ ceiling p99 | CPU/req FastCGI | CPU/req lighttpd | CPU/req all (+wrk) | CPU-bound × ceiling | Statuses (access log) | non-2xx/3xx (wrk) | socket errors |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ($r.scenarios[] |
    "| \(.title) | `\(.method) \(.path | sub("/records/[0-9a-f]{24}$"; "/records/{id}"))` → \(.expected_status) | \(.rps | thousands) | \(.ratio_to_ceiling | fixed(3)) | \(.latency_us.p50 | us) | \(.latency_us.p99 | us) | \(.p99_ratio_to_ceiling | fixed(2)) | \(.cpu_us_per_request.fastcgi | us)\(if .id != "ceiling" and .fastcgi_cpu_over_ceiling_us != null then " (+\(.fastcgi_cpu_over_ceiling_us | fixed(1)))" else "" end) | \(.cpu_us_per_request.lighttpd | us) | \(.cpu_us_per_request.total | us) | \(.cpu_bound_ratio | fixed(3)) | \([.statuses | to_entries[] | "\(.key): \(.value)"] | join(", ")) | \(.errors.status) | \([.errors | to_entries[] | select(.key != "status" and .value > 0) | "\(.key) \(.value)"] | if length == 0 then "none" else join(", ") end) |"),
  "",
  "CPU/req: user + system CPU time the process used during the measured run (all its threads, from /proc/PID/stat) divided by the requests wrk completed; it does not depend on how busy the machine was as much as req/s does. The difference between authd and the ceiling is what the auth work costs per request. CPU/req all adds wrk's own CPU time; CPU-bound × ceiling = the ceiling's CPU/req all ÷ this scenario's: the throughput ratio to expect when the cores are the limit, whatever else ran on the machine.",
  "",
  "Sign-in ideal (cores ÷ argon2id verify time): \($r.argon2id.signin_ideal_rps | fixed(1)) req/s; verify() measured on all cores at once: \($r.argon2id.verify_all_cores_rps | fixed(1)) per second; sign-up ideal (cores ÷ hash time): \($r.argon2id.signup_ideal_rps | fixed(1)) req/s.",
  "",
  "## Targets",
  "",
  "| Target | Measured | Limit | Met |",
  "|---|---:|---:|---|",
  ($r.targets[] | "| \(.what) | \(.value | fixed(3)) | \(.limit) | \(.met | met) |"),
  "",
  "## Memory at the end of the run (/proc/PID/status)",
  "",
  "| Process | VmRSS | peak (VmHWM) | anonymous | file-backed | shared mem | threads |",
  "|---|---:|---:|---:|---:|---:|---:|",
  ($r.memory[] | "| \(.process) | \(.rss_kb | mib) | \(.hwm_kb | mib) | \(.anon_kb | mib) | \(.file_kb | mib) | \(.shmem_kb | mib) | \(.threads) |"),
  "",
  "The ceiling's figures are taken at the end of its own scenario; authd's and lighttpd's after sign-up, the last scenario. File-backed RSS includes the pages of the LMDB map that were read.",
  "",
  "## argon2id",
  "",
  "Hash \($r.argon2id.hash_ms | fixed(2)) ms, verify \($r.argon2id.verify_ms | fixed(2)) ms per call on one core (micro-benchmark, m=\($r.argon2id.micro_params.m // "?") KiB, t=\($r.argon2id.micro_params.t // "?"), p=\($r.argon2id.micro_params.p // "?")); authd ran with m=\($r.argon2id.authd_params.m // "?") KiB, t=\($r.argon2id.authd_params.t // "?"), p=\($r.argon2id.authd_params.p // "?")\(if ($r.argon2id.micro_params // {}) != ($r.argon2id.authd_params // {}) then " — **not the parameters the micro-benchmark measured**" else "" end).",
  "",
  "## Micro-benchmarks (Google Benchmark, one thread)",
  "",
  "`allocs` counts malloc/calloc/realloc calls per operation (operator new, jansson, OpenSSL and LMDB included). `BM_TokenVerify`/`BM_GuardCheck*` without `Uncached` hit the verified-token cache (a client presenting the same token again); `Uncached` verify every token in full. `BM_Part_*` take the request paths apart (token verification steps, LMDB, argon2id memory); `*Alt*` measure another way of doing the same step. `BM_App_*`: one whole request through `dispatch()` and the CGI serialisation, in-process.",
  "",
  "| Benchmark | time/op | CPU/op | allocs/op |",
  "|---|---:|---:|---:|",
  ($r.micro[] | "| \(.name | sub("/min_time:[0-9.]+"; "") | sub("/real_time"; "")) | \(.real_ns | ns) | \(.cpu_ns | ns) | \(if .allocs == null then "–" else (.allocs | fixed(1)) end)\(if .items_per_second then " (\(.items_per_second | fixed(1))/s on \(.threads) threads)" else "" end) |"),
  ""
  ] | .[]
