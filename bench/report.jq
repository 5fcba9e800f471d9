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

def errors: "\(.errors.status + .unexpected_count)\(if .socket_errors > 0 then " + \([.errors | to_entries[] | select(.key != "status" and .value > 0) | "\(.value) \(.key)"] | join(", "))" else "" end)\(if (.cut_off_count // 0) > 0 then " + \(.cut_off_count) waiting at the end" else "" end)";

. as $r
| ($r.scenarios | map({key: .id, value: .}) | from_entries) as $run
| [
  "# authd benchmark",
  "",
  "\($r.meta.date) · \($r.meta.cpu), \($r.meta.cores) cores, Linux \($r.meta.kernel) (\($r.meta.os)) · commit \($r.meta.commit)\(if $r.meta.uncommitted_changes then " + uncommitted changes" else "" end) · \($r.meta.build_type) · load average \($r.meta.loadavg_start) before, \($r.meta.loadavg_end) after",
  "",
  "\($r.meta.lighttpd) · \($r.meta.nginx) · \($r.meta.apache) · Node \($r.meta.node) (\($r.meta.peers)) · wrk \($r.meta.wrk). Everything (wrk, the front server, the backend) shares the same \($r.meta.cores) cores, on 127.0.0.1 and unix sockets.",
  "",
  ($r.meta.notes // [] | if length > 0 then (map("**Note:** " + .) | join("\n\n")) + "\n" else empty end),
  "## The guarded read on every front server",
  "",
  "`GET /records` with a valid bearer token → 200 and the same small JSON body (authd's answer; the ceilings and the peers answer the same bytes). wrk: \($r.parameters.wrk_threads) threads, \($r.parameters.warmup_s) s warm-up then \($r.parameters.duration_s) s measured per row. The ceiling of each front server is the fastest of three trivial responders (no auth work, the same answer) measured behind it in this run: `authd_ceiling` (libfcgi, threads with authd's accept loop), the same as a pool of single-threaded processes (as many as the front opens connections: lighttpd \($r.parameters.connections), nginx \($r.parameters.nginx_keepalive), Apache \($r.parameters.apache_pool // "–")), and `authd_fast_ceiling` (one epoll loop per core, \($r.parameters.fast_loops // "–") loops, EPOLLEXCLUSIVE on the shared socket, answers inline, no libfcgi), also run with one loop (fewer wake-ups when the front server and wrk share the cores); the fastest is marked ◆. authd runs with its default event loops (one per core); behind nginx once more with `event_loops = 1`. × ceiling compares each row with that fastest ceiling behind the same front server; × Fastify with the Fastify cluster behind nginx. nginx: \($r.parameters.nginx_workers) worker process, upstream `keepalive` + `fastcgi_keep_conn on` (Node peers: `proxy_pass`, HTTP/1.1 upstream `keepalive`). Apache: conf/apache/authd.conf, mod_proxy_fcgi `enablereuse=on` (\(if $r.meta.apache_enablereuse == "added" then "added by the benchmark: the shipped file does not enable it yet" elif $r.meta.apache_enablereuse == "shipped" then "as shipped" else "–" end)). Node peers: bench/peers, a cluster of \($r.parameters.peer_workers) workers, \($r.parameters.peer_users) users in memory.",
  "",
  "| Front | Backend | threads | kept conns | wrk -c | req/s | p50 | p99 | slowest | × ceiling of its front | × Fastify (nginx) | errors | CPU/req backend | CPU/req front |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ($r.summary[] as $id | $run[$id] |
    "| \(.front) | \(if (.backend // "") | startswith("ceiling") then "**\(.backend)**\(if .true_ceiling_id == .id then " ◆" else "" end)" else .backend end) | \(.backend_threads // "–") | \(.kept_connections // (if .front == "lighttpd" then "0 (one per request)" elif .front == "apache" then "Apache's pool" else "–" end)) | \(.connections) | \(.rps | thousands) | \(.latency_us.p50 | us) | \(.latency_us.p99 | us) | \(.latency_us.max | us) | \(.ratio_to_ceiling | fixed(3)) | \(if $r.fastify_nginx_rps then (.rps / $r.fastify_nginx_rps | fixed(3)) else "–" end) | \(errors) | \(.cpu_us_per_request.backend | us) | \(.cpu_us_per_request.front | us) |"),
  "",
  "threads: FastCGI threads of the ceiling or authd (Node: cluster workers). errors: non-2xx answers (wrk) + other statuses in the front's access log, then socket errors and timeouts (wrk does not count a request still unanswered when the run ends as a timeout: nginx logs it as 499, \"waiting at the end\"). A backend that does not serve kept connections shows as a very low rate. CPU/req: CPU time of every thread of the process group during the measured run ÷ requests (nginx and Apache: master and workers), from \(.scenarios[0].cpu_source // "stat" | if . == "schedstat" then "/proc/PID/task/TID/schedstat (exact)" else "utime + stime of /proc/PID/stat (10 ms ticks)" end).",
  "",
  "## Ceilings and CPU per guarded read",
  "",
  "Per front server: its ceiling (the fastest trivial responder of this run), the epoll responder (the faster of its two runs), and authd's guarded read, each with the backend's CPU time per request (every thread of its process group over the measured run ÷ requests); the last column compares authd with the epoll responder's run with as many event loops as authd had (like for like: on a machine whose cores the front server and wrk share, a second loop costs wake-ups whatever it runs). CPU per request moves much less than req/s when other work shares the machine.",
  "",
  "| Front | ceiling (fastest) | req/s | CPU/req | epoll responder req/s | CPU/req | authd req/s | CPU/req | authd × ceiling | authd CPU ÷ ceiling's | authd CPU ÷ epoll responder's | epoll responder, as many loops: CPU/req | authd CPU ÷ it |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ($r.ceilings // [] | .[] |
    "| \(.front)\(if .authd_backend == "authd (one event loop)" then " (authd: one event loop)" else "" end) | \(.ceiling_backend // "–") | \(.ceiling_rps | thousands) | \(.ceiling_cpu_us | us) | \(.fast_rps | thousands) | \(.fast_cpu_us | us) | \(.authd_rps | thousands) | \(.authd_cpu_us | us) | \(.authd_vs_ceiling | fixed(3)) | \(.authd_cpu_vs_ceiling | fixed(2)) | \(.authd_cpu_vs_fast | fixed(2)) | \(.same_loops_cpu_us | us) | \(.authd_cpu_vs_same_loops | fixed(2)) |"),
  "",
  "## Paired rounds",
  "",
  "Rows measured minutes apart on a machine whose cores wrk, the front server and the backend share move by a fifth between runs. Here each front's ceiling (its fastest candidate above) and authd run back to back, each on a fresh front server, \($r.parameters.pair_duration_s // "–") s measured after the warm-up, \($r.parameters.pairs // 0) rounds per front, the one that goes first alternating; the median of the rounds' ratios is the figure to compare across runs.",
  "",
  "| Front | ceiling | round | first | ceiling req/s | authd req/s | authd × ceiling | ceiling CPU/req | authd CPU/req | authd CPU ÷ ceiling's |",
  "|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
  ($r.pairs // [] | .[] | . as $p | (.rounds[] |
    "| \($p.front) | \(.ceiling_backend) | \(.round) | \(.first) | \(.ceiling_rps | thousands) | \(.authd_rps | thousands) | \(.ratio | fixed(3)) | \(.ceiling_cpu_us | us) | \(.authd_cpu_us | us) | \(.cpu_ratio | fixed(2)) |"),
    "| **\($p.front)** | | **median** | | | | **\($p.median_ratio | fixed(3))** (\($p.min_ratio | fixed(3))–\($p.max_ratio | fixed(3))) | | | **\($p.median_cpu_ratio | fixed(2))** |"),
  "",
  "## Many users",
  "",
  "A fresh store per size, built with `authctl import FILE` (JSON lines, every user with the same precomputed argon2id hash), then authd (\($r.parameters.fastcgi_threads) threads) behind lighttpd: guarded read (\($r.parameters.connections) connections), sign-in of a user in the middle of the store and sign-up (\($r.parameters.hash_connections) connections). × compares with the smallest store.",
  "",
  "| Users | import | data.mdb | guarded read req/s | p99 | × | CPU/req | sign-in req/s | × | CPU/req | sign-up req/s | × | CPU/req | errors (read, sign-in, sign-up) | authd RssAnon peak (read, sign-in, sign-up) |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
  ($r.users[] | . as $u | ($run[$u.read // ""] // null) as $rd | ($run[$u.signin // ""] // null) as $si | ($run[$u.signup // ""] // null) as $su |
    "| \($u.users | thousands) | \($u.import_s | fixed(2)) s | \($u.data_kb | mib) | \($rd.rps | thousands) | \($rd.latency_us.p99 | us) | \($u.read_ratio | fixed(3)) | \($rd.cpu_us_per_request.backend | us) | \($si.rps | fixed(1)) | \($u.signin_ratio | fixed(3)) | \($si.cpu_us_per_request.backend | us) | \($su.rps | fixed(1)) | \($u.signup_ratio | fixed(3)) | \($su.cpu_us_per_request.backend | us) | \([$rd, $si, $su] | map(if . then errors else "–" end) | join(", ")) | \([$rd, $si, $su] | map(if . and .backend_anon_peak_kb != null then (.backend_anon_peak_kb | mib) else "–" end) | join(", ")) |"),
  "",
  "CPU/req: authd's CPU time per request (user + system), which moves less than req/s when other work shares the machine. RssAnon peak (largest size only): sampled every 0.1 s during the run; each argon2id hash in flight holds its 19 MiB working memory (m=19456 KiB). authd's memory at the largest size is in the memory table below (RssAnon = anonymous: what authd holds apart from the mapped database pages).",
  "",
  "## authd behind lighttpd, every scenario",
  "",
  "One lighttpd (conf/lighttpd.conf, one FastCGI connection per request), \($r.parameters.fastcgi_threads) FastCGI threads, \($r.parameters.connections) connections (\($r.parameters.hash_connections) for sign-in/sign-up, \($r.parameters.hash_duration_s) s).",
  "",
  "| Scenario | Request | req/s | × ceiling | p50 | p99 | p99 ÷ ceiling p99 | CPU/req authd | CPU/req lighttpd | CPU/req all (+wrk) | CPU-bound × ceiling | Statuses (access log) | non-2xx/3xx (wrk) | socket errors |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
  ($r.scenarios[] | select(.front == "lighttpd" and .users == null and .pair_round == null) |
    "| \(.title) | `\(.method) \(.path | sub("/records/[0-9a-f]{24}$"; "/records/{id}"))` → \(.expected_status) | \(.rps | thousands) | \(.ratio_to_ceiling | fixed(3)) | \(.latency_us.p50 | us) | \(.latency_us.p99 | us) | \(.p99_ratio_to_ceiling | fixed(2)) | \(.cpu_us_per_request.backend | us)\(if ((.backend // "") | startswith("ceiling") | not) and .backend_cpu_over_ceiling_us != null then " (+\(.backend_cpu_over_ceiling_us | fixed(1)))" else "" end) | \(.cpu_us_per_request.front | us) | \(.cpu_us_per_request.total | us) | \(.cpu_bound_ratio | fixed(3)) | \([.statuses | to_entries[] | "\(.key): \(.value)"] | join(", ")) | \(.errors.status) | \([.errors | to_entries[] | select(.key != "status" and .value > 0) | "\(.key) \(.value)"] | if length == 0 then "none" else join(", ") end) |"),
  "",
  "CPU/req all adds wrk's own CPU time; CPU-bound × ceiling = the ceiling's CPU/req all ÷ this scenario's: the throughput ratio to expect when the cores are the limit, whatever else ran on the machine. The difference between authd and the ceiling is what the auth work costs per request.",
  "",
  "Sign-in ideal (cores ÷ argon2id verify time): \($r.argon2id.signin_ideal_rps | fixed(1)) req/s; verify() measured on all cores at once: \($r.argon2id.verify_all_cores_rps | fixed(1)) per second; sign-up ideal (cores ÷ hash time): \($r.argon2id.signup_ideal_rps | fixed(1)) req/s.",
  "",
  "## Database writes per request",
  "",
  "Read from the store around each measured run of authd behind lighttpd, exactly (no statistics delay): LMDB's last transaction id, PostgreSQL's next transaction id (only a transaction that writes takes one) and WAL position. Each write transaction is one disk flush on either store as authd configures them (LMDB: a synced commit; PostgreSQL: synchronous_commit), so write transactions per second = flushes per second; background work during the run (expired rows purged, mail sent) counts too.",
  "",
  "| Scenario | store | req/s | CPU/req authd | write transactions per request | WAL bytes per request | flushes per second |",
  "|---|---|---:|---:|---:|---:|---:|",
  ($r.scenarios[] | select(.db_per_request != null and .users == null and .pair_round == null) |
    "| \(.title) | \(.db_per_request.store) | \(.rps | thousands) | \(.cpu_us_per_request.backend | us) | \(.db_per_request.write_txns | fixed(3)) | \(.db_per_request.wal_bytes | if . == null then "–" else (round | tostring) end) | \(.rps * .db_per_request.write_txns | fixed(1)) |"),
  "",
  (if ($r.oidc // []) | length > 0 then
    "## The OpenID provider behind nginx (issue 43)",
    "",
    "authd as OpenID provider (`oidc_provider = true`, `refresh_token_ttl` on, otherwise its defaults: `sync_writes = true`, RS256 ID tokens) with \($r.oidc[0].threads) threads behind the nginx of the nginx part (FastCGI keep-alive, \($r.oidc[0].kept_connections) kept connections), wrk -c \($r.oidc[0].connections). Client authentication `client_secret_basic` throughout. Client credentials: a service client's token. Refresh: each answer's new refresh token is the next request's (rotation; seeded with refresh tokens from code exchanges made before the run, none reused). Introspection: a confidential client introspects its valid access token (`\"active\":true` checked in every answer). Code exchange: per iteration the signed-in user's `GET /authorize` (PKCE S256, a first-party client: no consent page) → 302 with a code → `POST /token` (code, redirect_uri, code_verifier) → 200 with an ID token (RS256) and an access token; the rate counts whole exchanges, its CPU is per exchange (both requests), p50/p99 per request. Every answer is checked (wrk's Lua for the status and body, nginx's access log for the status); a row with any other answer is **not met**, whatever its rate.",
    "",
    (($r.oidc | map(select(.clean | not))) as $bad | if ($bad | length) > 0 then
      ($bad | map("**WARNING: \(.title): \(.not_expected) answers were not as expected (\(.expected_statuses | map(tostring) | join(" or "))\(if .row == "oidc_introspection" then " with `\"active\":true`" elif .row == "oidc_refresh" then " with a new refresh token" elif .row == "oidc_code_exchange" then ": a code, then an ID token" else "" end)) (statuses \(.statuses | tojson)\(if .wrk_checked then ", wrk saw \(.wrk_checked.failed) failed, \(.wrk_checked.starved) sent without a token" else "" end)): its rate is not a speed.**") | join("\n\n")) + "\n"
    else empty end),
    "| Row | What | rate | target | met | req/s | p50 | p99 | CPU/op authd | CPU/op nginx | CPU/op wrk | cores ÷ CPU/op (all) | statuses (access log) | not as expected |",
    "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ($r.oidc[] |
      "| \(.row) | \(.what) | \(.rate | thousands) \(.unit) | \(.target | thousands) | \(.met | met)\(if .clean then "" else " (**\(.not_expected) bad answers**)" end) | \(.requests_per_s | thousands) | \(.p50_us | us) | \(.p99_us | us) | \(.cpu_us.backend | us) | \(.cpu_us.front | us) | \(.cpu_us.wrk | us) | \(.cpu_bound_rate | thousands) | \([.statuses | to_entries[] | "\(.key): \(.value)"] | join(", ")) | \(if .clean then "0" else "**\(.not_expected)**" end) |"),
    "",
    "CPU/op: CPU time of authd (every thread), of nginx (master and worker) and of wrk over the measured run ÷ grants, introspections or exchanges (a code exchange is two requests). cores ÷ CPU/op (all): the rate if the \($r.meta.cores) cores were the only limit and nothing else ran on them (steadier than the rate on a shared machine); a row far below it waits on something else, e.g. the disk (`sync_writes`: an fsync per LMDB commit). Reproduce: `BENCH_PARTS=oidc BENCH_MICRO=0 make bench`.",
    ""
  else empty end),
  (if $r.scale then
    "## Capacity model: PostgreSQL nodes (part scale, issue 45)",
    "",
    "One node (lighttpd + authd with its default threads, `store = postgresql`, the OpenID provider and refresh tokens on) on a throw-away PostgreSQL with `pg_stat_statements`, per request kind. CPU/op: CPU time over the measured run ÷ operations (a code exchange is two requests) of authd, lighttpd, wrk (the clients) and PostgreSQL (every server process). Statements: authd's statement calls per operation (`pg_stat_statements`; BEGIN, COMMIT, ROLLBACK and each transaction's `set_config` of its statement timeout not counted); transactions: its BEGINs; write transactions: transaction ids taken (each a commit flush on a real server: the test cluster runs `fsync = off`); WAL bytes written. Load on the machine from other work during the row: `others` (cores busy with processes not measured).",
    "",
    "| Kind | per | ops/s | p99 | CPU/op authd | lighttpd | node (authd + lighttpd) | PostgreSQL | wrk | statements | transactions | write transactions | WAL bytes | others (cores) | bad answers |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ($r.scale.kinds[] |
      "| \(.what) | \(.op) | \(.rate | thousands) | \(.p99_us | us) | \(.cpu_us.authd | us) | \(.cpu_us.front | us) | \(.cpu_us.node | us) | \(.cpu_us.database | us) | \(.cpu_us.wrk | us) | \(.statements | fixed(2)) | \(.transactions | fixed(2)) | \(.write_txns | fixed(2)) | \(.wal_bytes | int_str) | \(.others_cores | fixed(2)) | \(if .clean then "0" else "**\(.not_expected)**" end) |"),
    "",
    "The statements each kind called most during its row (calls per operation; texts as `pg_stat_statements` normalises them):",
    "",
    ($r.scale.kinds[] | (.top_statements | map(select(.per_op >= 0.01))) as $top |
      "- \(.what): " + (if ($top | length) == 0 then "none (at least once per 100 operations)"
                        else $top | map("\(.per_op | fixed(2)) × `\(.query | gsub("`"; "'"))`") | join("; ") end)),
    "",
    "What a site needs, from these figures (nodes of \($r.scale.node_size.cores) cores kept at most \($r.scale.node_size.busy * 100 | round) % busy, at least \($r.scale.node_size.min_nodes); TLS and the load balancer not included):",
    "",
    "| Site | ops/s | node cores busy | nodes | PostgreSQL cores busy | statements/s | transactions/s | write transactions/s | WAL |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ($r.scale.sites[] |
      "| \(.label) | \(.rate | fixed(1)) | \(.node_cores | fixed(2)) | \(.nodes) | \(.database_cores | fixed(3)) | \(.statements_per_s | thousands) | \(.transactions_per_s | thousands) | \(.write_txns_per_s | thousands) | \(.wal_kb_per_s | fixed(1)) KiB/s |"),
    "",
    "The check: N nodes on the one PostgreSQL, node K pinned to core K mod \($r.meta.cores) (`taskset`; authd with `event_loops = 1`, `hash_workers = 1`), wrk's threads dealt out over the nodes, wrk and PostgreSQL not pinned. Predicted: the lower of (cores the nodes are pinned to × 10⁶ ÷ the node's CPU/op) and (all \($r.meta.cores) cores × 10⁶ ÷ the CPU/op of node + wrk + PostgreSQL), from the one-node rows above. Available cores: what the measured processes used plus what stayed idle during the row (the rest went to other work on the machine); predicted (available): the same with only those.",
    "",
    "| Kind | nodes | on cores | bound by | measured ops/s | predicted | × predicted | available cores | predicted (available) | × that | node CPU/op | PostgreSQL CPU/op | statements/op | p99 | bad answers |",
    "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ($r.scale.check[] |
      "| \(.kind) | \(.nodes) | \(.cores_used) | \(.bound) | \(.measured | thousands) | \(.predicted | thousands) | \(.ratio | fixed(2)) | \(.available_cores | fixed(2)) | \(.predicted_available | thousands) | \(.ratio_available | fixed(2)) | \(.cpu_us_node | us) | \(.cpu_us_database | us) | \(.statements | fixed(3)) | \(.p99_us | us) | \(if .clean then "0" else "**\(.not_expected)**" end) |"),
    "",
    "Reproduce: `BENCH_PARTS=scale BENCH_MICRO=0 make bench` (docs/scaling-out.md, \"A capacity model\").",
    ""
  else empty end),
  "## Targets",
  "",
  "| Target | Measured | Limit | Met |",
  "|---|---:|---:|---|",
  ($r.targets[] | "| \(.what) | \(.value | fixed(3)) | \(.limit) | \(.met | met) |"),
  "",
  "## Memory (/proc/PID/status)",
  "",
  "| Process | processes | VmRSS | peak (VmHWM) | anonymous (RssAnon) | file-backed | shared mem | threads |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
  ($r.memory[] | "| \(.process) | \(.processes // 1) | \(.rss_kb | mib) | \(.hwm_kb | mib) | \(.anon_kb | mib) | \(.file_kb | mib) | \(.shmem_kb | mib) | \(.threads) |"),
  "",
  "Each taken right after the scenario its name says (the ceiling after its own); several processes (nginx, Apache, a Node cluster) are summed. File-backed RSS includes the pages of the LMDB map that were read.",
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
