// The request paths taken apart: what each step of a full token verification,
// of a user lookup and of a password hash costs on its own, next to another
// way of doing the same step where that is a choice (the "Alt" benchmarks), so
// that an optimisation can be chosen by its measured gain. The Alt code here
// is a measuring stick, not a library.
#include <argon2.h>
#include <benchmark/benchmark.h>
#include <lmdb.h>
#include <sys/mman.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "support.hpp"

namespace authd::bench {
namespace {

struct TokenParts {
  std::string header_b64, payload_b64, signature_b64, signing_input;
  std::string header_json, payload_json;
};

const TokenParts& parts() {
  static const TokenParts p = [] {
    const std::string& token = world().token;
    const auto first = token.find('.');
    const auto second = token.find('.', first + 1);
    TokenParts q;
    q.header_b64 = token.substr(0, first);
    q.payload_b64 = token.substr(first + 1, second - first - 1);
    q.signature_b64 = token.substr(second + 1);
    q.signing_input = token.substr(0, second);
    q.header_json = *crypto::base64url_decode(q.header_b64);
    q.payload_json = *crypto::base64url_decode(q.payload_b64);
    return q;
  }();
  return p;
}

std::string_view key_bytes() {
  static const std::string key = crypto::random_hex(16);
  return key;
}

// ---- HMAC-SHA256 over the signing input ---------------------------------

// What lib/crypto does today: HMAC() one-shot, which in OpenSSL 3 fetches
// the HMAC implementation and the SHA-256 digest by name on every call.
void BM_Part_HmacOneShot(benchmark::State& state) {
  const auto key = key_bytes();
  const auto& input = parts().signing_input;
  const auto before = allocations();
  for (auto _ : state) {
    auto mac = crypto::hmac_sha256({reinterpret_cast<const unsigned char*>(key.data()), key.size()}, input);
    benchmark::DoNotOptimize(mac);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Part_HmacOneShot);

// What TokenService uses now: crypto::HmacSha256, the inner and outer SHA-256
// states precomputed from the key once.
void BM_Part_HmacPrecomputed(benchmark::State& state) {
  const auto key = key_bytes();
  const crypto::HmacSha256 mac({reinterpret_cast<const unsigned char*>(key.data()), key.size()});
  const auto& input = parts().signing_input;
  if (mac.mac(input) != crypto::hmac_sha256({reinterpret_cast<const unsigned char*>(key.data()), key.size()}, input)) {
    state.SkipWithError("precomputed HMAC disagrees with HMAC()");
  }
  const auto before = allocations();
  for (auto _ : state) {
    auto out = mac.mac(input);
    benchmark::DoNotOptimize(out);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Part_HmacPrecomputed);

// ---- base64url ---------------------------------------------------------

void BM_Part_Base64urlDecodePayload(benchmark::State& state) {
  const auto& text = parts().payload_b64;
  const auto before = allocations();
  for (auto _ : state) {
    auto raw = crypto::base64url_decode(text);
    benchmark::DoNotOptimize(raw);
  }
  report_allocations(state, before);
  state.counters["chars"] = static_cast<double>(text.size());
}
BENCHMARK(BM_Part_Base64urlDecodePayload);

// ---- JSON (jansson through lib/json) -----------------------------------
// verify() parses the payload of every token it has not seen before, and the
// header only when it is not the one authd writes itself.

void BM_Part_JsonParseHeader(benchmark::State& state) {
  const auto& text = parts().header_json;
  const auto before = allocations();
  for (auto _ : state) {
    auto json = Json::parse(text, 4);
    benchmark::DoNotOptimize(json);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Part_JsonParseHeader);

void BM_Part_JsonParsePayload(benchmark::State& state) {
  const auto& text = parts().payload_json;
  const auto before = allocations();
  for (auto _ : state) {
    auto json = Json::parse(text, 4);
    benchmark::DoNotOptimize(json);
  }
  report_allocations(state, before);
  state.counters["bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_Part_JsonParsePayload);

// ---- LMDB read transactions -------------------------------------------

// A separate environment shaped like authd's (MDB_NOTLS, one users table
// holding the same record), because LMDB forbids opening one environment
// twice in a process.
struct RawEnv {
  std::filesystem::path dir;
  MDB_env* env = nullptr;
  MDB_dbi dbi = 0;
  std::string key = "alice";

  explicit RawEnv(bool sync = false) {
    dir = temp_dir("authd-micro-lmdb");
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 4);
    mdb_env_set_mapsize(env, std::size_t{64} << 20);
    if (mdb_env_open(env, dir.c_str(), MDB_NOTLS | (sync ? 0u : unsigned{MDB_NOSYNC}), 0600) != 0) std::abort();
    MDB_txn* txn = nullptr;
    mdb_txn_begin(env, nullptr, 0, &txn);
    mdb_dbi_open(txn, "users", MDB_CREATE, &dbi);
    const std::string value(160, 'x');  // about a stored user record
    for (int i = 0; i < 200; ++i) {
      std::string k = "user" + std::to_string(i);
      MDB_val kv{k.size(), k.data()}, vv{value.size(), const_cast<char*>(value.data())};
      mdb_put(txn, dbi, &kv, &vv, 0);
    }
    MDB_val kv{key.size(), key.data()}, vv{value.size(), const_cast<char*>(value.data())};
    mdb_put(txn, dbi, &kv, &vv, 0);
    mdb_txn_commit(txn);
  }
  ~RawEnv() {
    mdb_env_close(env);
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

RawEnv& raw_env() {
  static RawEnv env;
  return env;
}

// What every Store::find_user / find_record does on LMDB: begin a read-only
// transaction (with MDB_NOTLS: take a reader slot under the reader-table
// mutex), one get, abort.
void BM_Part_LmdbBeginGetAbort(benchmark::State& state) {
  auto& e = raw_env();
  MDB_val k{e.key.size(), e.key.data()};
  const auto before = allocations();
  for (auto _ : state) {
    MDB_txn* txn = nullptr;
    mdb_txn_begin(e.env, nullptr, MDB_RDONLY, &txn);
    MDB_val v{};
    mdb_get(txn, e.dbi, &k, &v);
    benchmark::DoNotOptimize(v);
    mdb_txn_abort(txn);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Part_LmdbBeginGetAbort);

// Alt: a read transaction kept per thread and recycled with
// mdb_txn_reset/mdb_txn_renew (the reader slot stays with the handle).
void BM_Part_LmdbAltRenewGetReset(benchmark::State& state) {
  auto& e = raw_env();
  MDB_val k{e.key.size(), e.key.data()};
  MDB_txn* txn = nullptr;
  mdb_txn_begin(e.env, nullptr, MDB_RDONLY, &txn);
  mdb_txn_reset(txn);
  const auto before = allocations();
  for (auto _ : state) {
    mdb_txn_renew(txn);
    MDB_val v{};
    mdb_get(txn, e.dbi, &k, &v);
    benchmark::DoNotOptimize(v);
    mdb_txn_reset(txn);
  }
  report_allocations(state, before);
  mdb_txn_abort(txn);
}
BENCHMARK(BM_Part_LmdbAltRenewGetReset);

// A small write transaction committed durably (authd's default,
// sync_writes = true: LMDB flushes data and meta page). Sign-in pays one
// (the throttle's record_success), sign-up one (the new user), under
// LMDB's single-writer lock. Temp directory: $TMPDIR or /tmp.
void BM_Part_LmdbWriteCommitSync(benchmark::State& state) {
  static RawEnv e(true);
  std::string key = "u:alice", value = "{\"n\":0,\"first\":1700000000}";
  for (auto _ : state) {
    MDB_txn* txn = nullptr;
    mdb_txn_begin(e.env, nullptr, 0, &txn);
    MDB_val k{key.size(), key.data()}, v{value.size(), value.data()};
    mdb_put(txn, e.dbi, &k, &v, 0);
    if (mdb_txn_commit(txn) != 0) state.SkipWithError("commit failed");
  }
}
BENCHMARK(BM_Part_LmdbWriteCommitSync)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---- argon2id memory: fresh pages or a reused buffer -------------------
// One argon2id hash at the default parameters (m=19456 KiB, t=2, p=1) with
// its 19 MiB work area either mapped fresh for every call and unmapped after
// (what glibc does with a fixed M_MMAP_THRESHOLD below 19 MiB: every hash
// faults in and zeroes 4864 new pages, but nothing stays resident), or kept
// and reused (what glibc's default dynamic threshold ends up doing, at the
// price of 19 MiB resident per hashing thread).
int map_fresh(std::uint8_t** memory, std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return ARGON2_MEMORY_ALLOCATION_ERROR;
  *memory = static_cast<std::uint8_t*>(p);
  return ARGON2_OK;
}
void unmap(std::uint8_t* memory, std::size_t bytes) { ::munmap(memory, bytes); }

struct Reused {
  std::uint8_t* buffer = nullptr;
  std::size_t size = 0;
};
Reused& reused() {
  static Reused r;
  return r;
}
int keep_alloc(std::uint8_t** memory, std::size_t bytes) {
  auto& r = reused();
  if (r.size < bytes) {
    if (r.buffer) ::munmap(r.buffer, r.size);
    if (map_fresh(&r.buffer, bytes) != ARGON2_OK) return ARGON2_MEMORY_ALLOCATION_ERROR;
    r.size = bytes;
  }
  *memory = r.buffer;
  return ARGON2_OK;
}
void keep_free(std::uint8_t*, std::size_t) {}

void argon2id_once(benchmark::State& state, allocate_fptr allocate, deallocate_fptr deallocate) {
  std::array<std::uint8_t, 32> out{};
  std::array<std::uint8_t, 16> salt{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::string password = "correct horse battery staple";
  for (auto _ : state) {
    argon2_context context{};
    context.out = out.data();
    context.outlen = static_cast<std::uint32_t>(out.size());
    context.pwd = reinterpret_cast<std::uint8_t*>(password.data());
    context.pwdlen = static_cast<std::uint32_t>(password.size());
    context.salt = salt.data();
    context.saltlen = static_cast<std::uint32_t>(salt.size());
    context.t_cost = 2;
    context.m_cost = 19456;
    context.lanes = 1;
    context.threads = 1;
    context.version = ARGON2_VERSION_13;
    context.allocate_cbk = allocate;
    context.free_cbk = deallocate;
    if (argon2_ctx(&context, Argon2_id) != ARGON2_OK) state.SkipWithError("argon2 failed");
    benchmark::DoNotOptimize(out);
  }
}

void BM_Part_Argon2idFreshPages(benchmark::State& state) { argon2id_once(state, map_fresh, unmap); }
BENCHMARK(BM_Part_Argon2idFreshPages)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();

void BM_Part_Argon2idReusedBuffer(benchmark::State& state) { argon2id_once(state, keep_alloc, keep_free); }
BENCHMARK(BM_Part_Argon2idReusedBuffer)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();

// ---- the rest of issue() ------------------------------------------------

void BM_Part_RandomToken16(benchmark::State& state) {
  const auto before = allocations();
  for (auto _ : state) {
    auto jti = crypto::random_token(16);
    benchmark::DoNotOptimize(jti);
  }
  report_allocations(state, before);
}
BENCHMARK(BM_Part_RandomToken16);

}  // namespace
}  // namespace authd::bench
