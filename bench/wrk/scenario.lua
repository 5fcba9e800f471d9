-- wrk script for bench/run.sh: one file for every scenario, driven by the
-- environment so that all scenarios (the ceiling included) pay the same
-- load-generator cost.
--
--   BENCH_METHOD   GET (default), POST, DELETE, ...
--   BENCH_BODY     request body; POST without it sends "Content-Length: 0"
--                  (lighttpd answers 411 to a POST without Content-Length)
--   BENCH_SIGNUP   when set: every request is a POST /signup with a unique
--                  username "<BENCH_SIGNUP>_<thread>_<n>" (dynamic requests)
--   BENCH_STATUS   when "1": count response statuses (costs wrk a Lua call
--                  and header parsing per response; off by default, run.sh
--                  takes the status breakdown from lighttpd's access log)
--   BENCH_OUT      where done() writes the run's figures as one JSON object
--   BENCH_EXPECT   when set: the status every answer must have; with
--                  BENCH_EXPECT_BODY (a plain substring the body must hold,
--                  e.g. '"active":true') an answer without it is a failure
--                  too. Failures are counted ("lua" in BENCH_OUT), never
--                  taken for speed.
--   BENCH_MODE     a scenario whose requests change with the answers (the
--                  OpenID provider rows of bench/lib/oidc.sh):
--     refresh      POST /token grant_type=refresh_token with rotation: each
--                  thread keeps a queue of refresh tokens, seeded from
--                  BENCH_REFRESH_FILE (one a line, dealt out to the
--                  BENCH_WRK_THREADS threads; at least one per connection);
--                  request() pops one, response() pushes the new one of a
--                  200. A failed answer's token is not used again (it is
--                  counted); with the queue empty the request carries
--                  "refresh_token=none" (answered 400, counted as starved).
--     code         a whole authorization-code flow per iteration: GET
--                  /authorize?BENCH_AUTHORIZE_QUERY with the session cookie
--                  BENCH_COOKIE -> 302 to the redirect URI with a code ->
--                  POST /token (Authorization: BENCH_CLIENT_AUTH, body
--                  BENCH_TOKEN_BODY&code=CODE). Codes queue per thread; an
--                  iteration is a 200 from /token with an id_token.
--   BENCH_NODES    "PORT PORT ...": several nodes on 127.0.0.1 (the scale
--                  part, bench/lib/scale.sh): thread K sends to the K-th port
--                  (round robin), so wrk -t must be a multiple of their number
--
-- Other headers (Authorization, Content-Type) come from wrk -H.

-- An empty variable counts as unset.
local function env(name)
  local value = os.getenv(name)
  if value == "" then return nil end
  return value
end

local method = env("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")  -- "" is a valid (empty) body
local signup_prefix = env("BENCH_SIGNUP")
local count_status = env("BENCH_STATUS") == "1"
local mode = env("BENCH_MODE")
local expect = tonumber(env("BENCH_EXPECT") or "")
local expect_body = env("BENCH_EXPECT_BODY")

wrk.method = method
if body ~= nil then
  wrk.body = body
elseif method ~= "GET" and method ~= "HEAD" and method ~= "DELETE" then
  wrk.body = ""  -- wrk.format then sends Content-Length: 0
end

-- setup() runs in the main environment, once per thread.
local threads = {}
local next_id = 0
local node_ports = {}
for port in string.gmatch(env("BENCH_NODES") or "", "%d+") do table.insert(node_ports, port) end
function setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
  if #node_ports > 0 then
    thread.addr = wrk.lookup("127.0.0.1", node_ports[(next_id - 1) % #node_ports + 1])[1]
  end
  table.insert(threads, thread)
end

if signup_prefix ~= nil then
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  local counter = 0
  function request()
    counter = counter + 1
    local name = string.format("%s_%d_%d", signup_prefix, thread_id or 0, counter)
    local payload = string.format(
      '{"username":"%s","password":"bench password %d","fullname":"Bench User","email":"%s@example.com"}',
      name, counter, name)
    return wrk.format("POST", "/signup", nil, payload)
  end
end

-- Per-thread counters (globals: done() reads them with thread:get).
ok, failed, starved, iterations = 0, 0, 0, 0
statuses = {}

-- A FIFO of strings: q.first .. q.last.
local function queue() return {first = 1, last = 0} end
local function push(q, v) q.last = q.last + 1; q[q.last] = v end
local function pop(q)
  if q.first > q.last then return nil end
  local v = q[q.first]
  q[q.first] = nil
  q.first = q.first + 1
  return v
end

local check  -- function(status, headers, body): true when the answer is what it should be
if mode == "refresh" then
  -- The seed tokens, read in the main state and dealt out in setup().
  local seeds = {}
  local file = env("BENCH_REFRESH_FILE")
  if file then
    for line in io.lines(file) do
      if line ~= "" then table.insert(seeds, line) end
    end
  end
  local wrk_threads = tonumber(env("BENCH_WRK_THREADS") or "1")
  local plain_setup = setup
  function setup(thread)
    plain_setup(thread)
    local mine = {}
    for i = next_id, #seeds, wrk_threads do table.insert(mine, seeds[i]) end
    thread:set("seed", table.concat(mine, "\n"))
  end
  local tokens = queue()
  function init(args)
    for token in string.gmatch(seed or "", "[^\n]+") do push(tokens, token) end
  end
  local auth = env("BENCH_CLIENT_AUTH")
  local headers = {["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = auth}
  function request()
    local token = pop(tokens)
    if token == nil then
      starved = starved + 1
      token = "none"
    end
    return wrk.format("POST", "/token", headers, "grant_type=refresh_token&refresh_token=" .. token)
  end
  check = function(status, headers, body)
    if status ~= 200 then return false end
    local token = string.match(body, '"refresh_token":"([^"]+)"')
    if token == nil then return false end
    push(tokens, token)
    iterations = iterations + 1
    return true
  end
elseif mode == "code" then
  local codes = queue()
  local authorize = "/authorize?" .. (env("BENCH_AUTHORIZE_QUERY") or "")
  local get_headers = {["Cookie"] = env("BENCH_COOKIE")}
  local post_headers = {["Content-Type"] = "application/x-www-form-urlencoded",
                        ["Authorization"] = env("BENCH_CLIENT_AUTH")}
  local token_body = env("BENCH_TOKEN_BODY") or ""
  function request()
    local code = pop(codes)
    if code == nil then return wrk.format("GET", authorize, get_headers) end
    return wrk.format("POST", "/token", post_headers, token_body .. "&code=" .. code)
  end
  check = function(status, headers, body)
    if status == 302 then
      local location = headers["Location"] or headers["location"] or ""
      local code = string.match(location, "[?&]code=([^&]+)")
      if code == nil then return false end
      push(codes, code)
      return true
    end
    if status == 200 and string.find(body, '"id_token"', 1, true) then
      iterations = iterations + 1
      return true
    end
    return false
  end
elseif expect ~= nil then
  check = function(status, headers, body)
    if status ~= expect then return false end
    return expect_body == nil or string.find(body, expect_body, 1, true) ~= nil
  end
end

if count_status or check then
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
    if check then
      if check(status, headers, body) then ok = ok + 1 else failed = failed + 1 end
    end
  end
end

function done(summary, latency, requests)
  local out = env("BENCH_OUT")
  if out == nil then return end
  local counts = {}
  local lua = {ok = 0, failed = 0, starved = 0, iterations = 0}
  if count_status or check then
    local merged = {}
    for _, thread in ipairs(threads) do
      local t = thread:get("statuses") or {}
      for code, n in pairs(t) do merged[code] = (merged[code] or 0) + n end
      for name, _ in pairs(lua) do lua[name] = lua[name] + (thread:get(name) or 0) end
    end
    for code, n in pairs(merged) do table.insert(counts, string.format('"%d":%d', code, n)) end
  end
  -- Only what this script checked: "lua" is absent from a row it did not.
  local checked = ""
  if check then
    checked = string.format(',"lua":{"mode":"%s","ok":%d,"failed":%d,"starved":%d,"iterations":%d}',
      mode or "expect", lua.ok, lua.failed, lua.starved, lua.iterations)
  end
  local e = summary.errors
  local f = assert(io.open(out, "w"))
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"p50":%d,"p75":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f,"stdev":%.1f},' ..
    '"wrk_statuses":{%s}%s}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean, latency.stdev,
    table.concat(counts, ","), checked))
  f:close()
end
