// Shared set-up for the micro-benchmarks: one fresh LMDB environment in a
// temporary directory (removed at exit), a token service with a random
// 32-byte key, and one user of role `user` with a valid access token.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "authd/store.hpp"
#include "authd/store_backends.hpp"
#include "authd/token.hpp"
#include "authd/user.hpp"

namespace authd::bench {

struct World {
  std::filesystem::path dir;
  std::unique_ptr<Store> store;
  std::unique_ptr<TokenService> tokens;           // authd's default policy (verified-token cache on)
  std::unique_ptr<TokenService> tokens_uncached;  // same key, cache_entries = 0: every call verifies in full
  User user;                 // role user, a realistic PHC hash string
  std::string token;         // valid access token for `user`
  std::string authorization; // "Bearer <token>"
  std::int64_t now = 0;

  ~World();
};

// Built on first use, torn down at exit. Aborts with a message on failure.
World& world();

// A fresh temporary directory under $TMPDIR (or /tmp).
std::filesystem::path temp_dir(const char* prefix);

// Heap allocations (malloc/calloc/realloc, which operator new uses too)
// made by this process so far; counted by an interposer in alloc_count.cpp.
std::uint64_t allocations() noexcept;

// Reports allocations per iteration as the counter "allocs" (call after the
// loop with the count taken before it).
void report_allocations(benchmark::State& state, std::uint64_t before);

}  // namespace authd::bench
