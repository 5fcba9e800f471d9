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

wrk.method = method
if body ~= nil then
  wrk.body = body
elseif method ~= "GET" and method ~= "HEAD" and method ~= "DELETE" then
  wrk.body = ""  -- wrk.format then sends Content-Length: 0
end

-- setup() runs in the main environment, once per thread.
local threads = {}
local next_id = 0
function setup(thread)
  next_id = next_id + 1
  thread:set("thread_id", next_id)
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

if count_status then
  statuses = {}
  function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local out = env("BENCH_OUT")
  if out == nil then return end
  local counts = {}
  if count_status then
    local merged = {}
    for _, thread in ipairs(threads) do
      local t = thread:get("statuses") or {}
      for code, n in pairs(t) do merged[code] = (merged[code] or 0) + n end
    end
    for code, n in pairs(merged) do table.insert(counts, string.format('"%d":%d', code, n)) end
  end
  local e = summary.errors
  local f = assert(io.open(out, "w"))
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"p50":%d,"p75":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f,"stdev":%.1f},' ..
    '"wrk_statuses":{%s}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency:percentile(50), latency:percentile(75), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean, latency.stdev,
    table.concat(counts, ",")))
  f:close()
end
