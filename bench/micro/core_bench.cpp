// Micro-benchmarks of the hot pieces of lib/ (authd_core), as named in the
// benchmark issue: JWT sign and verify, the bearer guard with a real LMDB
// user lookup, the user read alone, the Authorization header parsers, JSON
// parse of a sign-up body, and argon2id at the default (OWASP) parameters.
//
// Every benchmark also reports "allocs": heap allocations per call.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <thread>

#include "authd/accounts.hpp"
#include "authd/authorization.hpp"
#include "authd/crypto.hpp"
#include "authd/guard.hpp"
#include "authd/json.hpp"
#include "authd/password.hpp"
#include "support.hpp"

namespace authd::bench {
namespace {

void BM_TokenIssue(benchmark::State& state) {
  auto& w = world();
  const auto before = allocations();
  for (auto _ : state) {
    auto token = w.tokens->issue(kAccessTokenType, w.user.id, w.user.username, w.now);
    benchmark::DoNotOptimize(token);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_TokenIssue);

// authd's default: a token seen before is found in the verified-token cache.
void BM_TokenVerify(benchmark::State& state) {
  auto& w = world();
  const auto before = allocations();
  for (auto _ : state) {
    auto claims = w.tokens->verify(w.token, kAccessTokenType, w.now);
    if (!claims) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(claims);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_TokenVerify);

// Full verification (cache off): what the first request with a token costs.
void BM_TokenVerifyUncached(benchmark::State& state) {
  auto& w = world();
  const auto before = allocations();
  for (auto _ : state) {
    auto claims = w.tokens_uncached->verify(w.token, kAccessTokenType, w.now);
    if (!claims) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(claims);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_TokenVerifyUncached);

// A token whose signature was tampered with: header parsed, MAC computed,
// comparison fails (the 401 path of the benchmark's "invalid token").
void BM_TokenVerifyTampered(benchmark::State& state) {
  auto& w = world();
  std::string bad = w.token;
  const auto mid = bad.rfind('.') + 10;
  bad[mid] = bad[mid] == 'A' ? 'B' : 'A';
  const auto before = allocations();
  for (auto _ : state) {
    auto claims = w.tokens->verify(bad, kAccessTokenType, w.now);
    if (claims) state.SkipWithError("tampered token accepted");
    benchmark::DoNotOptimize(claims);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_TokenVerifyTampered);

void BM_StoreFindUser(benchmark::State& state) {
  auto& w = world();
  const auto before = allocations();
  for (auto _ : state) {
    auto user = w.store->find_user(w.user.username);
    if (!user) state.SkipWithError("find failed");
    benchmark::DoNotOptimize(user);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_StoreFindUser);

// The guarded read: bearer parse + token verify + user reload (target: < 5 us),
// as authd runs it (a client presents the same token again: cache hit).
void BM_GuardCheck(benchmark::State& state) {
  auto& w = world();
  const Guard guard(*w.tokens, *w.store);
  const auto before = allocations();
  for (auto _ : state) {
    auto principal = guard.check(w.authorization, std::nullopt, w.now);
    if (!principal) state.SkipWithError("guard refused");
    benchmark::DoNotOptimize(principal);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_GuardCheck);

// The same with every token verified in full (verified-token cache off).
void BM_GuardCheckUncached(benchmark::State& state) {
  auto& w = world();
  const Guard guard(*w.tokens_uncached, *w.store);
  const auto before = allocations();
  for (auto _ : state) {
    auto principal = guard.check(w.authorization, std::nullopt, w.now);
    if (!principal) state.SkipWithError("guard refused");
    benchmark::DoNotOptimize(principal);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_GuardCheckUncached);

void BM_GuardCheckRead(benchmark::State& state) {
  auto& w = world();
  const Guard guard(*w.tokens, *w.store);
  const auto before = allocations();
  for (auto _ : state) {
    auto principal = guard.check(w.authorization, Capability::read, w.now);
    if (!principal) state.SkipWithError("guard refused");
    benchmark::DoNotOptimize(principal);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_GuardCheckRead);

// 403: a user asking for `delete` (the error message is built, too).
void BM_GuardCheckDeleteDenied(benchmark::State& state) {
  auto& w = world();
  const Guard guard(*w.tokens, *w.store);
  const auto before = allocations();
  for (auto _ : state) {
    auto principal = guard.check(w.authorization, Capability::delete_, w.now);
    if (principal) state.SkipWithError("guard allowed delete for role user");
    benchmark::DoNotOptimize(principal);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_GuardCheckDeleteDenied);

void BM_ParseBearer(benchmark::State& state) {
  auto& w = world();
  const auto before = allocations();
  for (auto _ : state) {
    auto token = parse_bearer_authorization(w.authorization);
    benchmark::DoNotOptimize(token);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_ParseBearer);

void BM_ParseBasic(benchmark::State& state) {
  const std::string header = "Basic " + crypto::base64_encode("alice:correct horse battery staple");
  const auto before = allocations();
  for (auto _ : state) {
    auto credentials = parse_basic_authorization(header);
    if (!credentials) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(credentials);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_ParseBasic);

// What POST /signup does before hashing: parse the body, pick the fields.
void BM_JsonParseSignup(benchmark::State& state) {
  const std::string body =
      R"({"username":"alice","password":"correct horse battery staple",)"
      R"("fullname":"Alice Liddell","email":"alice@example.com"})";
  const auto before = allocations();
  for (auto _ : state) {
    auto json = Json::parse(body, 16);
    if (!json) state.SkipWithError("parse failed");
    auto fields = signup_request_from_json(*json);
    if (!fields) state.SkipWithError("fields missing");
    benchmark::DoNotOptimize(fields);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_JsonParseSignup);

// argon2id at the default parameters (Argon2Params{}: m=19456 KiB, t=2, p=1).
// Sign-up pays hash(), sign-in pays verify(); both are the same work.
const PasswordHasher& hasher() {
  static const PasswordHasher instance{Argon2Params{}};
  return instance;
}

void BM_PasswordHash(benchmark::State& state) {
  const auto& h = hasher();
  for (auto _ : state) {
    auto phc = h.hash("correct horse battery staple");
    if (!phc) state.SkipWithError("hash failed");
    benchmark::DoNotOptimize(phc);
  }
  state.counters["m_kib"] = h.params().memory_kib;
  state.counters["t"] = h.params().iterations;
  state.counters["p"] = h.params().parallelism;
}
BENCHMARK(BM_PasswordHash)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

void BM_PasswordVerify(benchmark::State& state) {
  const auto& h = hasher();
  const auto phc = h.hash("correct horse battery staple");
  if (!phc) {
    state.SkipWithError("hash failed");
    return;
  }
  for (auto _ : state) {
    const bool ok = h.verify(*phc, "correct horse battery staple");
    if (!ok) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(ok);
  }
}
BENCHMARK(BM_PasswordVerify)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

// verify() on every core at once: the most sign-ins per second this machine's
// CPUs and memory bandwidth allow (items_per_second, all threads together).
void BM_PasswordVerifyAllCores(benchmark::State& state) {
  const auto& h = hasher();
  static const auto phc = h.hash("correct horse battery staple");
  if (!phc) {
    state.SkipWithError("hash failed");
    return;
  }
  for (auto _ : state) {
    const bool ok = h.verify(*phc, "correct horse battery staple");
    if (!ok) state.SkipWithError("verify failed");
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PasswordVerifyAllCores)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0)
    ->UseRealTime()
    ->Apply([](benchmark::internal::Benchmark* b) { b->Threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))); });

}  // namespace
}  // namespace authd::bench
