#include "support.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "authd/clock.hpp"
#include "authd/crypto.hpp"
#include "authd/signing_key.hpp"

namespace authd::bench {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "micro-benchmark set-up failed: %s\n", what.c_str());
  std::exit(1);
}

// A PHC string of the default shape, so that the stored record has the size
// of a real one (hashing it for real would cost ~20 ms of set-up).
constexpr const char* kPhc =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$"
    "qLml5cbqFAO6YxVHhrSBHP0UWdxrIxkNcM8aMX3blzU";

}  // namespace

std::filesystem::path temp_dir(const char* prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/" + prefix + ".XXXXXX";
  if (!::mkdtemp(pattern.data())) die("mkdtemp " + pattern);
  return pattern;
}

World::~World() {
  store.reset();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

World& world() {
  static World* instance = [] {
    auto* w = new World;
    static std::unique_ptr<World> owner(w);  // destroyed (and the directory removed) at exit
    w->dir = temp_dir("authd-micro");
    auto db = open_lmdb_store(LmdbOptions{.directory = w->dir, .map_size_bytes = std::size_t{64} << 20, .sync = false});
    if (!db) die(db.error().message);
    w->store = std::move(*db);
    auto insert = [&](const std::string& name, const std::string& fullname, const std::string& email) {
      User user;
      user.id = new_object_id();
      user.username = name;
      user.password_hash = kPhc;
      user.fullname = fullname;
      user.email = email;
      auto made = w->store->write([&](StoreTxn& txn) { return txn.insert_user(user); });
      if (!made) die(made.error().message);
      return user;
    };
    // A few neighbours, so that the lookup walks a real B-tree page.
    for (int i = 0; i < 200; ++i) insert("user" + std::to_string(i), "Some Body", "some@example.com");
    w->user = insert("alice", "Alice Liddell", "alice@example.com");
    const std::string key = crypto::random_hex(16);
    auto tokens = TokenService::create(SigningKey(key), TokenPolicy{});
    if (!tokens) die(tokens.error().message);
    w->tokens = std::make_unique<TokenService>(std::move(*tokens));
    TokenPolicy no_cache;
    no_cache.cache_entries = 0;
    auto uncached = TokenService::create(SigningKey(key), no_cache);
    if (!uncached) die(uncached.error().message);
    w->tokens_uncached = std::make_unique<TokenService>(std::move(*uncached));
    w->now = unix_now();
    w->token = w->tokens->issue(kAccessTokenType, w->user.id, w->user.username, w->now);
    w->authorization = "Bearer " + w->token;
    return w;
  }();
  return *instance;
}

void report_allocations(benchmark::State& state, std::uint64_t before) {
  const auto count = allocations() - before;
  state.counters["allocs"] = benchmark::Counter(static_cast<double>(count), benchmark::Counter::kAvgIterations);
}

}  // namespace authd::bench
