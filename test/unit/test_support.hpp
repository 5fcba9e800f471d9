// Helpers shared by the unit tests.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "authd/clock.hpp"
#include "authd/error.hpp"
#include "authd/password.hpp"
#include "authd/roles.hpp"
#include "authd/store.hpp"
#include "authd/store_backends.hpp"

namespace authd {

// Readable GoogleTest output for our enums (found by ADL). Every test file
// includes this header so that all translation units print alike.
inline void PrintTo(Errc code, std::ostream* os) { *os << "Errc::" << to_string(code); }
inline void PrintTo(Role role, std::ostream* os) { *os << "Role::" << to_string(role); }
inline void PrintTo(Capability cap, std::ostream* os) { *os << "Capability::" << to_string(cap); }

// "ok", or the error code's name: lets a test compare the outcome of a call
// without touching .error() of a success.
template <class T>
std::string outcome(const Result<T>& result) {
  return result ? std::string("ok") : std::string(to_string(result.error().code));
}

}  // namespace authd

namespace authd::test {

// A fresh, empty directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    std::mt19937_64 gen(rd());
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto candidate = std::filesystem::temp_directory_path() /
                       ("authd-unit-" + std::to_string(gen()));
      std::error_code ec;
      if (std::filesystem::create_directory(candidate, ec) && !ec) {
        path_ = candidate;
        return;
      }
    }
    throw std::runtime_error("cannot create a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

// The text of docs/NAME in this source tree; throws when it cannot be read.
inline std::string doc_text(const std::string& name) {
  const auto path = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "docs" / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Polls `done` every `poll` until it holds or `limit` passes; true when it
// held (for changes another thread, node or process makes).
template <class F>
bool within(std::chrono::milliseconds limit, F&& done, std::chrono::milliseconds poll = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(poll);
  }
  return done();
}

// The spec's role table, as the tests check it against the code.
struct CapabilityRow {
  Role role;
  bool read, create, update, del;
};
inline constexpr CapabilityRow kSpecCapabilities[] = {
    {Role::admin, true, true, true, true},
    {Role::editor, true, true, true, false},
    {Role::writer, true, true, false, false},
    {Role::user, true, false, false, false},
};

// Cheap argon2 parameters so that tests run fast (libargon2 needs
// memory_kib >= 8 * parallelism).
inline constexpr Argon2Params kFastArgon2{1, 256, 1};

// The one fixture for a temporary store: an LMDB store (16 MiB, no fsync) in
// a fresh directory, removed with it. reopen() closes and opens it again.
class TempStore {
 public:
  TempStore() { reopen(); }
  Store& store() { return *store_; }
  Store& operator*() { return *store_; }
  Store* operator->() { return store_.get(); }
  const std::filesystem::path& directory() const noexcept { return dir_.path(); }
  void reopen() {
    store_.reset();
    LmdbOptions options;
    options.directory = dir_.path() / "db";
    options.map_size_bytes = std::size_t{16} << 20;
    options.sync = false;
    auto opened = open_lmdb_store(options);
    if (!opened) throw std::runtime_error("cannot open the test store: " + opened.error().message);
    store_ = std::move(*opened);
  }

 private:
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// Puts a user straight into the store (no hashing, no validation): for
// tests of the layers above it. Throws when the store refuses.
inline User insert_user(Store& store, std::string username, Role role = Role::user, std::string password_hash = "") {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.password_hash = std::move(password_hash);
  user.role = role;
  user.created_at = user.updated_at = unix_now();
  auto done = store.write([&](StoreTxn& txn) { return txn.insert_user(user); });
  if (!done) throw std::runtime_error("insert_user: " + done.error().message);
  return user;
}

}  // namespace authd::test
