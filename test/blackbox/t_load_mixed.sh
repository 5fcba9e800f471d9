#!/usr/bin/env bash
# Sustained mixed load with wrk (LOAD_THREADS threads, one keep-alive
# connection each, so every response is matched to the request it answers),
# sign-ins driven as real clients send them: the browser each user signed
# up from carries the device cookie (authd_device) it got then, and the wrong
# passwords go to accounts of their own, sent by unrecognised clients (no
# device cookie):
#   23% GET /records           with a valid token                  -> 200
#   10% GET /records/{id}      with a valid token                  -> 200
#   15% POST /signin           right password, the browser's device
#                              cookie (8 users)                    -> 200
#    2% POST /signin           right password of loadbad2, attacked
#                              below, from its owner's browser     -> 200
#   15% POST /signin           wrong password, no device cookie,
#                              2 in 3 for loadbad1, 1 for loadbad2 -> 500 Invalid Login,
#                              or 429 once the throttle holds the account
#    5% POST /signup           a new username                      -> 201
#   10% POST /records          role user (no create)               -> 403
#   10% DELETE /records/{id}   role user (no delete)               -> 403
#   10% GET /records           no token                            -> 401
# First a warm-up of LOAD_WARMUP seconds, then the measured run of
# LOAD_SECONDS seconds (20 in `make test`; the soak variant runs minutes).
# Must hold: every answer is the expected one (so no 5xx apart from Invalid
# Login), no connection error (connect/read/write/timeout), every sign-up
# answered 201 is in the store afterwards, and the FastCGI process's memory
# stays flat: anonymous RSS (heap and stacks; VmRSS also counts the pages of
# the LMDB map read so far) at the end <= after warm-up + RSS_SLACK_KIB.
# The throttle as docs/configuration.md (Sign-in throttling) describes it:
# a 429 names the account's limit and its Retry-After is at most
# signin_user_max_delay (the delay past signin_user_threshold, doubling from
# signin_first_delay) or, for the account budget of unrecognised browsers,
# the rest of signin_account_budget_window; in the measured run (the
# warm-up's guesses go to other names), no guess is refused before
# signin_user_threshold + 1 were checked, loadbad1 gets no more
# guesses checked than that delay schedule lets through in the time, and
# loadbad2 (whose owner's sign-ins clear its delay) no more than the
# account budget; a recognised browser is never refused.
# Figures: requests, rate, answers per kind, errors, RSS before/after.
source "$(dirname "$0")/fault_lib.sh"
# A load test runs at the production hashing cost (the harness makes it cheap otherwise).
export AUTHD_ARGON2_ITERATIONS=${AUTHD_ARGON2_ITERATIONS:-2}

LOAD_SECONDS=${LOAD_SECONDS:-20}
LOAD_WARMUP=${LOAD_WARMUP:-5}
LOAD_THREADS=${LOAD_THREADS:-4}
RSS_SLACK_KIB=${RSS_SLACK_KIB:-8192}
need_tools wrk

export AUTHD_TOKEN_TTL=$((LOAD_SECONDS + LOAD_WARMUP + 3600))
# The throttle as shipped, with a short schedule so that the 20-second run
# reaches its longest delay too: delays from the 4th wrong password of a
# name (1, 2, 4, 8, 16, 16, ... s), an account budget of 30 guesses from
# unrecognised browsers. Windows outlast the run, so that no count starts
# afresh during it. Every client here shares one address: the address limit
# (its own test: t_sec_lockout.sh) stays out of reach.
USER_THRESHOLD=3 USER_MAX_DELAY=16 ACCOUNT_BUDGET=30
THROTTLE_WINDOW=$((LOAD_SECONDS + LOAD_WARMUP + 3600))
export AUTHD_SIGNIN_USER_THRESHOLD=$USER_THRESHOLD AUTHD_SIGNIN_USER_MAX_DELAY=$USER_MAX_DELAY \
  AUTHD_SIGNIN_FIRST_DELAY=1 AUTHD_SIGNIN_WINDOW=$THROTTLE_WINDOW \
  AUTHD_SIGNIN_ACCOUNT_BUDGET=$ACCOUNT_BUDGET AUTHD_SIGNIN_ACCOUNT_BUDGET_WINDOW=$THROTTLE_WINDOW \
  AUTHD_SIGNIN_ADDRESS_THRESHOLD=1000000
stack_start
fault_out load

step "setup: 8 users with their browsers' device cookies, 2 accounts to attack, a user token, one record"
# The accounts, signed up all at once (their password hashes are the
# setup's cost), each from a browser that keeps the device cookie
# (authd_device) a sign-up gives like a sign-in: device_of NAME prints it.
ACCOUNTS=(loaduser{1..8} loadbad1 loadbad2)
signups=()
for name in "${ACCOUNTS[@]}"; do
  curl --silent --noproxy '*' --max-time "$HTTP_TIMEOUT" -H "$_JSON_CT" --data-binary "$(signup_body "$name" "pw-$name")" \
    --cookie-jar "$OUT/$name.jar" --output "$OUT/$name.body" --write-out '%{http_code}' "$BASE_URL/signup" \
    >"$OUT/$name.status" 2>/dev/null &
  signups+=($!)
done
wait "${signups[@]}"
device_of() { awk -F'\t' '$6 == "authd_device" { print $7 }' "$OUT/$1.jar" 2>/dev/null; }
for name in "${ACCOUNTS[@]}"; do
  [[ $(<"$OUT/$name.status") == 201 && -n $(device_of "$name") ]] ||
    fault_die "setup: the sign-up of $name: status $(<"$OUT/$name.status"), device cookie '$(device_of "$name")'"
done
basic=() devices=()
for ((i = 1; i <= 8; i++)); do
  basic+=("$(printf 'loaduser%d:pw-loaduser%d' "$i" "$i" | base64 -w0)")
  devices+=("$(device_of "loaduser$i")")
done
USER_TOKEN=$(jq -r '.token // empty' "$OUT/loaduser1.body")
[[ -n $USER_TOKEN ]] || fault_die "setup: loaduser1's sign-up gave no token"
# The measured run attacks loadbad1 and loadbad2 with fresh counts (wrk
# drops the answers on the way when its time is up, which would hide
# guesses counted before): the warm-up's wrong passwords go to warmbad1 and
# warmbad2, names no account has (counted like real ones: no enumeration),
# while loadbad2's owner signs in (a success with no count to clear changes
# nothing).
declare -A bad_basic
for name in warmbad loadbad; do
  bad_basic[$name]="$(printf '%s1:wrong-1' "$name" | base64 -w0) $(printf '%s2:wrong-2' "$name" | base64 -w0)"
done
LOAD_OWNER_BASIC=$(printf 'loadbad2:pw-loadbad2' | base64 -w0) LOAD_OWNER_DEVICE=$(device_of loadbad2)
export LOAD_OWNER_BASIC LOAD_OWNER_DEVICE
add_user loadadmin 'admin password' admin
ADMIN=$(signin_token loadadmin 'admin password')
http POST /records -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' -d '{"title":"load"}'
expect_status 201 "setup: the record"
RID=$(json ._id)
SETUP_USERS=11

cat >"$OUT/mixed.lua" <<'LUA'
-- one connection per thread: responses come back in request order
local token = os.getenv("LOAD_TOKEN")
local rid = os.getenv("LOAD_RECORD_ID")
local prefix = os.getenv("LOAD_PREFIX")
local owner_basic, owner_device = os.getenv("LOAD_OWNER_BASIC"), os.getenv("LOAD_OWNER_DEVICE")
local user_max_delay = tonumber(os.getenv("LOAD_USER_MAX_DELAY"))
local budget_window = tonumber(os.getenv("LOAD_BUDGET_WINDOW"))
local function words(name)
  local list = {}
  for w in string.gmatch(os.getenv(name), "%S+") do list[#list + 1] = w end
  return list
end
-- basic[i] and devices[i]: user i and the device cookie of its browser
local basic, devices, badbasic = words("LOAD_BASIC"), words("LOAD_DEVICES"), words("LOAD_BADBASIC")

local expected = { list = 200, get = 200, signin = 200, owner = 200, signup = 201,
                   create = 403, delete = 403, notoken = 401 }
-- cumulative weights (percent)
local mix = { {23, "list"}, {33, "get"}, {48, "signin"}, {50, "owner"}, {65, "badpw"}, {70, "signup"},
              {80, "create"}, {90, "delete"}, {100, "notoken"} }

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("tid", #threads)
end

counts = {}
-- per attacked account (<name><i>): "<i> checked|delayed|budget" -> answers,
-- "<i> retry" -> the longest Retry-After seen
bad = {}
unexpected = 0
samples = ""
local queue, accounts, head, tail, n = {}, {}, 1, 0, 0

-- wrk calls request() once on the first thread's state, before the run, to
-- inspect it (script_verify_request); that call is never sent.
local unsent = false
function init(args)
  math.randomseed(os.time() * 1000 + tid * 7919)
  unsent = (tid == 1)
end

function request()
  if unsent then
    unsent = false
    return wrk.format("GET", "/records", {})
  end
  local r = math.random(100)
  local kind
  for _, m in ipairs(mix) do
    if r <= m[1] then kind = m[2]; break end
  end
  tail = tail + 1
  queue[tail] = kind
  local bearer = { ["Authorization"] = "Bearer " .. token }
  if kind == "list" then
    return wrk.format("GET", "/records", bearer)
  elseif kind == "get" then
    return wrk.format("GET", "/records/" .. rid, bearer)
  elseif kind == "signin" then
    local i = math.random(#basic)
    return wrk.format("POST", "/signin",
      { ["Authorization"] = "Basic " .. basic[i], ["Cookie"] = "authd_device=" .. devices[i] }, "")
  elseif kind == "owner" then
    return wrk.format("POST", "/signin",
      { ["Authorization"] = "Basic " .. owner_basic, ["Cookie"] = "authd_device=" .. owner_device }, "")
  elseif kind == "badpw" then
    local i = math.random(3) <= 2 and 1 or 2
    accounts[tail] = i
    return wrk.format("POST", "/signin", { ["Authorization"] = "Basic " .. badbasic[i] }, "")
  elseif kind == "signup" then
    n = n + 1
    local u = prefix .. "t" .. tid .. "n" .. n
    return wrk.format("POST", "/signup", { ["Content-Type"] = "application/json" },
      '{"username":"' .. u .. '","password":"pw-' .. u .. '","fullname":"Load","email":"' .. u .. '@example.com"}')
  elseif kind == "create" then
    bearer["Content-Type"] = "application/json"
    return wrk.format("POST", "/records", bearer, '{"title":"denied"}')
  elseif kind == "delete" then
    return wrk.format("DELETE", "/records/" .. rid, bearer)
  else
    return wrk.format("GET", "/records", {})
  end
end

local function header(headers, name)
  for k, v in pairs(headers) do
    if string.lower(k) == name then return v end
  end
  return nil
end

local function has(body, text) return body ~= nil and string.find(body, text, 1, true) ~= nil end

-- A wrong password: checked (500 Invalid Login), or refused by the
-- account's delay (Retry-After 1..signin_user_max_delay) or by its budget
-- for unrecognised browsers (1..signin_account_budget_window). Returns the
-- outcome, or nil for any other answer.
local function guess_outcome(status, headers, body)
  if status == 500 then return has(body, "Invalid Login") and "checked" or nil end
  if status ~= 429 then return nil end
  local retry = tonumber(header(headers, "retry-after") or "")
  if retry == nil or retry < 1 then return nil end
  if has(body, "too many failed sign-ins for this account from unrecognised browsers") then
    return retry <= budget_window and "budget" or nil, retry
  end
  if has(body, "too many failed sign-ins for this account") then
    return retry <= user_max_delay and "delayed" or nil, retry
  end
  return nil
end

function response(status, headers, body)
  local kind = queue[head] or "?"
  local account = accounts[head]
  queue[head], accounts[head] = nil, nil
  head = head + 1
  local ok
  if kind == "badpw" then
    local outcome, retry = guess_outcome(status, headers, body)
    ok = outcome ~= nil
    if ok then
      local key = account .. " " .. outcome
      bad[key] = (bad[key] or 0) + 1
      if retry and retry > (bad[account .. " retry"] or 0) then bad[account .. " retry"] = retry end
    end
  else
    ok = status == expected[kind]
  end
  local key = kind .. " " .. status
  counts[key] = (counts[key] or 0) + 1
  if not ok then
    unexpected = unexpected + 1
    if #samples < 2000 then
      samples = samples .. kind .. " -> " .. status .. " " .. string.sub(body or "", 1, 120) .. "\n"
    end
  end
end

function done(summary, latency, requests)
  local total, guesses, failed, all, text = {}, {}, 0, {}, ""
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("counts")) do total[k] = (total[k] or 0) + v end
    for k, v in pairs(t:get("bad")) do
      if string.find(k, "retry", 1, true) then
        guesses[k] = math.max(guesses[k] or 0, v)
      else
        guesses[k] = (guesses[k] or 0) + v
      end
    end
    failed = failed + t:get("unexpected")
    text = text .. t:get("samples")
  end
  for k, v in pairs(total) do all[#all + 1] = k end
  table.sort(all)
  for _, k in ipairs(all) do io.write(string.format("wrk: answer %s %d\n", k, total[k])) end
  all = {}
  for k, v in pairs(guesses) do all[#all + 1] = k end
  table.sort(all)
  for _, k in ipairs(all) do io.write(string.format("wrk: guesses bad%s %d\n", k, guesses[k])) end
  local e = summary.errors
  io.write(string.format("wrk: requests %d\n", summary.requests))
  io.write(string.format("wrk: duration_us %d\n", summary.duration))
  io.write(string.format("wrk: errors connect %d read %d write %d timeout %d\n",
                         e.connect, e.read, e.write, e.timeout))
  io.write(string.format("wrk: unexpected %d\n", failed))
  io.write(string.format("wrk: latency_ms p50 %.1f p99 %.1f max %.1f\n",
                         latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
  if text ~= "" then io.write("wrk: samples of unexpected answers:\n" .. text) end
end
LUA

export LOAD_TOKEN=$USER_TOKEN LOAD_RECORD_ID=$RID LOAD_BASIC="${basic[*]}" LOAD_DEVICES="${devices[*]}" \
  LOAD_USER_MAX_DELAY=$USER_MAX_DELAY LOAD_BUDGET_WINDOW=$THROTTLE_WINDOW

# run_wrk SECONDS PREFIX OUTFILE ATTACKED: one wrk run, wrong passwords for
# ATTACKED1 and ATTACKED2; figures in OUTFILE.
run_wrk() {
  LOAD_PREFIX=$2 LOAD_BADBASIC=${bad_basic[$4]} wrk -t "$LOAD_THREADS" -c "$LOAD_THREADS" -d "${1}s" --timeout 10s \
    -s "$OUT/mixed.lua" "$BASE_URL" >"$3" 2>&1
}
figure_of() { awk -v k="$2" '$1 == "wrk:" && $2 == k { print $3 }' "$1"; }
signups_of() { awk '$1 == "wrk:" && $2 == "answer" && $3 == "signup" && $4 == 201 { print $5 }' "$1"; }
# guesses_of N OUTCOME: the measured run's wrong passwords for loadbad<N>
# answered so (checked, delayed, budget); OUTCOME retry: the longest Retry-After.
guesses_of() {
  awk -v a="bad$1" -v o="$2" '$1 == "wrk:" && $2 == "guesses" && $3 == a && $4 == o { print $5 }' "$OUT/main"
}

step "warm-up: ${LOAD_WARMUP}s"
run_wrk "$LOAD_WARMUP" w "$OUT/warmup" warmbad || fail "wrk (warm-up) failed" "$(tail -n 20 "$OUT/warmup")"
warm_signups=$(signups_of "$OUT/warmup")
expect_eq "warm-up: no unexpected answer" 0 "$(figure_of "$OUT/warmup" unexpected)"
PID=$(authd_child_pid) || fault_die "authd is not running after the warm-up"
rss_start=$(rss_kib "$PID")
anon_start=$(rss_anon_kib "$PID")
echo "after warm-up: VmRSS ${rss_start} KiB, RssAnon ${anon_start} KiB"

step "measured run: ${LOAD_SECONDS}s"
# sample memory once a second while wrk runs
(
  while [[ ! -e $OUT/wrk.done ]]; do
    echo "$(rss_kib "$PID") $(rss_anon_kib "$PID")"
    sleep 1
  done >"$OUT/rss.samples"
) &
sampler=$!
started=$(date +%s)
run_wrk "$LOAD_SECONDS" m "$OUT/main" loadbad || fail "wrk failed" "$(tail -n 20 "$OUT/main")"
: >"$OUT/wrk.done"
wait "$sampler"
elapsed=$(($(date +%s) - started + 1))
grep '^wrk:' "$OUT/main" | grep -v '^wrk: samples' | sed 's/^wrk: /  /'
grep -A20 '^wrk: samples' "$OUT/main" | head -n 21

rss_end=$(rss_kib "$PID")
anon_end=$(rss_anon_kib "$PID")
anon_max=$(awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }' "$OUT/rss.samples")
requests=$(figure_of "$OUT/main" requests)
unexpected=$(figure_of "$OUT/main" unexpected)
read -r _ _ _ c_connect _ c_read _ c_write _ c_timeout < <(grep '^wrk: errors' "$OUT/main")
main_signups=$(signups_of "$OUT/main")
duration_us=$(figure_of "$OUT/main" duration_us)
rate=$(( requests * 1000000 / (duration_us > 0 ? duration_us : 1) ))
invalid_login=$(awk '$1 == "wrk:" && $3 == "badpw" && $4 == 500 { print $5 }' "$OUT/main")
throttled=$(awk '$1 == "wrk:" && $3 == "badpw" && $4 == 429 { print $5 }' "$OUT/main")

expect_eq "authd is the same process as before the run (no crash)" "$PID" "$(authd_child_pid 1)"
((requests >= LOAD_SECONDS * 5)) && pass "requests served: $requests ($rate/s)" ||
  fail "too few requests: $requests in ${LOAD_SECONDS}s"
expect_eq "every answer was the expected one (no 5xx but Invalid Login, a 429 only as the throttle says)" 0 "$unexpected"
expect_eq "connection errors (connect+read+write+timeout)" 0 "$((c_connect + c_read + c_write + c_timeout))"
for kind in list get signin owner badpw signup create delete notoken; do
  n=$(awk -v k="$kind" '$1 == "wrk:" && $3 == k { s += $5 } END { print s + 0 }' "$OUT/main")
  ((n > 0)) && pass "kind $kind was exercised ($n)" || fail "kind $kind never ran"
done

# The throttle in the measured run (wrong passwords from unrecognised browsers).
# Whenever a delay ends, each of the LOAD_THREADS connections may have a
# guess on the way that passes before the first one counts: hence the factor.
for n in 1 2; do
  account=loadbad$n
  checked=$(guesses_of $n checked) delayed=$(guesses_of $n delayed) budget=$(guesses_of $n budget) retry=$(guesses_of $n retry)
  checked=${checked:-0} delayed=${delayed:-0} budget=${budget:-0} retry=${retry:-0}
  echo "   $account: $checked guesses checked, $delayed refused by its delay, $budget by its budget (longest Retry-After ${retry} s)"
  if ((delayed > 0)); then
    ((checked >= USER_THRESHOLD + 1)) && pass "$account: no guess refused before signin_user_threshold + 1 were checked" ||
      fail "$account: refused after $checked guesses checked, threshold $USER_THRESHOLD"
  fi
  if ((budget > 0)); then
    ((checked >= ACCOUNT_BUDGET)) && pass "$account: the budget refused only once spent" ||
      fail "$account: the budget refused after $checked guesses checked, budget $ACCOUNT_BUDGET"
  fi
  limit=$((ACCOUNT_BUDGET + LOAD_THREADS)) why="signin_account_budget $ACCOUNT_BUDGET"
  if [[ $account == loadbad1 ]]; then
    # No sign-in clears loadbad1's delay: after the threshold, openings come
    # one delay apart at best (1, 2, 4, ... s, each up to 1 s short by the
    # whole-second clock), and at most signin_user_max_delay apart.
    openings=0 spent=0 delay=1
    while ((spent + delay - 1 <= elapsed)); do
      spent=$((spent + delay - 1)) openings=$((openings + 1)) delay=$((delay * 2 > USER_MAX_DELAY ? USER_MAX_DELAY : delay * 2))
    done
    schedule=$((USER_THRESHOLD + LOAD_THREADS * (openings + 1)))
    ((schedule < limit)) && limit=$schedule why="the delay schedule over ${elapsed} s"
  fi
  ((checked <= limit)) && pass "$account: at most $limit guesses checked ($why): $checked" ||
    fail "$account: $checked guesses checked, more than $limit ($why)"
done

listed=$(users_listed)
counted=$((SETUP_USERS + ${warm_signups:-0} + ${main_signups:-0}))
# wrk drops the answers still on the way when its time is up: up to one
# sign-up per connection and run may be in the store without being counted.
if ((listed >= counted && listed <= counted + 2 * LOAD_THREADS)); then
  pass "every sign-up answered 201 is in the store ($counted answered, $listed stored)"
else
  fail "store holds $listed accounts, $counted sign-ups were answered 201 (+ at most $((2 * LOAD_THREADS)) cut off by wrk's end)"
fi
# An AddressSanitizer build: GCC links libasan.so, clang the runtime statically
# (make test-asan); both leave __asan_init in the binary.
if grep -aq __asan_init "$AUTHD_BIN"; then
  # AddressSanitizer's quarantine keeps freed memory on purpose (up to 256 MiB),
  # so RSS climbs by design there; leaks are LeakSanitizer's job in that build,
  # and flatness is judged in the plain build.
  echo "   RSS under AddressSanitizer: ${anon_start} -> ${anon_end} KiB (not judged: quarantine)"
else
  ((anon_end <= anon_start + RSS_SLACK_KIB)) &&
    pass "anonymous RSS flat: ${anon_start} -> ${anon_end} KiB (limit +${RSS_SLACK_KIB})" ||
    fail "anonymous RSS grew: ${anon_start} -> ${anon_end} KiB (limit +${RSS_SLACK_KIB})" \
         "samples (VmRSS RssAnon): $(tr '\n' ' ' <"$OUT/rss.samples" | head -c 600)"
fi

print_figure requests "$requests"
print_figure requests_per_s "$rate"
print_figure invalid_login_500 "${invalid_login:-0}"
print_figure throttled_429 "${throttled:-0}"
print_figure signups_201 "${main_signups:-0}"
print_figure errors "$((unexpected + c_connect + c_read + c_write + c_timeout))"
print_figure users_checked "$listed"
print_figure rss_kib_start "$rss_start"
print_figure rss_kib_end "$rss_end"
print_figure rss_anon_kib_start "$anon_start"
print_figure rss_anon_kib_end "$anon_end"
print_figure rss_anon_kib_max "$anon_max"
finish
