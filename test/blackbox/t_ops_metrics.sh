#!/usr/bin/env bash
# GET /metrics: Prometheus text that promtool accepts, with requests by route
# and status, the latency histogram, sign-ins by outcome, throttled requests,
# lane queue depth, token cache and store figures; only for metrics_allow
# (default loopback; another list answers 404 to 127.0.0.1).
source "$(dirname "$0")/harness.sh"
export AUTHD_SIGNIN_ADDRESS_THRESHOLD=1 AUTHD_SIGNIN_FIRST_DELAY=30
stack_start
command -v promtool >/dev/null || { fail "promtool missing (Debian prometheus; scripts/deps.sh test)"; finish; }

basic() { printf 'Authorization: Basic %s' "$(printf '%s' "$1" | base64 -w0)"; }
http POST /signup -H 'Content-Type: application/json' --data-binary '{"username":"mo","password":"mo password","fullname":"M","email":"m@example.com"}'
http POST /signin -H "$(basic 'mo:mo password')"
TOKEN=$(json .token)
for i in 1 2 3; do http GET /records -H "Authorization: Bearer $TOKEN"; done
http POST /signin -H "$(basic 'mo:bad password')"
http POST /signin -H "$(basic 'mo:bad password')"
http POST /signin -H "$(basic 'mo:bad password')"
expect_status 429 "third failure is throttled"

http GET /metrics
expect_status 200 "GET /metrics from loopback"
expect_match "text format content type" '^text/plain; version=0.0.4' "$(header Content-Type)"
METRICS=$BODY
out=$(printf '%s\n' "$METRICS" | promtool check metrics 2>&1)
expect_eq "promtool check metrics: exit 0" 0 "$?"
expect_eq "promtool has no complaint" "" "$out"
has() { grep -qF -- "$1" <<<"$METRICS" && echo yes || echo no; }
expect_eq "requests by route and status" yes "$(has 'authd_http_requests_total{route="/records",status="200"} 3')"
expect_eq "signup counted" yes "$(has 'authd_http_requests_total{route="/signup",status="201"} 1')"
expect_eq "latency histogram" yes "$(has 'authd_http_request_duration_seconds_bucket{route="/signin",le="+Inf"}')"
expect_eq "sign-ins ok" yes "$(has 'authd_signins_total{outcome="ok"} 1')"
expect_eq "sign-ins failed" yes "$(has 'authd_signins_total{outcome="failed"}')"
expect_eq "throttled" yes "$(has 'authd_throttled_requests_total 1')"
expect_eq "hashing queue depth" yes "$(has 'authd_lane_queue_depth{lane="password"} 0')"
expect_eq "hashing threads busy: none once answered" yes "$(has 'authd_lane_busy{lane="password"} 0')"
expect_eq "token cache hits" yes "$(grep -qE '^authd_token_cache_lookups_total\{result="hit"\} [1-9]' <<<"$METRICS" && echo yes || echo no)"
expect_eq "store users" yes "$(has 'authd_store_users 1')"
[[ ${AUTHD_STORE:-lmdb} == postgresql ]] ||  # LMDB's map: PostgreSQL has no capacity to report
  expect_eq "store map use" yes "$(grep -qE '^authd_store_capacity_bytes [1-9]' <<<"$METRICS" && echo yes || echo no)"

step "metrics_allow"
authd_stop
export AUTHD_METRICS_ALLOW="10.0.0.0/8, 192.0.2.7"
authd_start
http GET /metrics
expect_status 404 "127.0.0.1 not in metrics_allow: 404"
http GET /healthz
expect_status 200 "healthz needs no allow-list"
finish
