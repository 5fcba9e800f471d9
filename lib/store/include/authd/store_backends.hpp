// The store backends and the one place that chooses between them by name
// (the `store` setting), at start: an unknown name fails the start, never a
// request.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "authd/postgres_store.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"

namespace authd {

struct LmdbOptions {
  std::filesystem::path directory = "./var";  // created 0700 if missing; files are 0600
  // The map starts at initial_map_bytes (or the data's size) and doubles by
  // itself whenever a write finds it full, up to map_size_bytes: only then
  // do writes fail with storage_full.
  std::size_t map_size_bytes = std::size_t{64} << 30;
  std::size_t initial_map_bytes = std::size_t{64} << 20;
  bool sync = true;                            // fsync on every commit (durable default)
  unsigned max_readers = 126;
};

// Errors: io (directory not creatable/writable, environment not openable).
Result<std::unique_ptr<Store>> open_lmdb_store(const LmdbOptions& options);

// Puts an LMDB backup (Store::backup) in place as the store of `options`:
// authd and authctl must be stopped. The file is checked to be an authd LMDB
// database first; a store that holds any user, link or record is replaced
// only with `force`. Errors: invalid_input (not a backup), conflict (store
// not empty), io.
Result<void> restore_lmdb(const LmdbOptions& options, const std::filesystem::path& backup, bool force);

struct StoreSettings {
  std::string backend = "lmdb";  // `store`: a registered backend's name (below)
  LmdbOptions lmdb;              // state_dir, sync_writes
  std::size_t map_size_mb = 65536;  // -> lmdb.map_size_bytes: the most the map grows to
  PostgresOptions postgres;      // database_* (store = postgresql); log_* set by the program
};

// store, state_dir, map_size_mb, sync_writes, database_url,
// database_listen_url, database_pool_size, database_statement_timeout_ms,
// database_connect_timeout_ms, database_user_cache.
std::vector<settings::Setting> store_settings(StoreSettings& settings);

// The backend `settings.backend` names. Errors: config (no such backend), as the backend's open.
Result<std::unique_ptr<Store>> open_store(const StoreSettings& settings);

// Store backends register by name (as lighttpd's http_auth_backend_set):
// the `store` setting picks one, the composition root (Core::open) and
// authctl open it through open_store. Built in: "lmdb" and "postgresql"
// (whose open says so when the library was built without libpq). A program
// linking the library registers its own before loading the settings.
struct StoreBackend {
  std::string name;
  std::function<Result<std::unique_ptr<Store>>(const StoreSettings&)> open;
  // Several machines share it: the token and ID-token keys live in its
  // entries (every node sees them) rather than in state_dir.
  bool shared = false;
};

// Adds `backend`, replacing one of the same name. Not while stores are being opened.
void register_store_backend(StoreBackend backend);
// The backend named `name`, or nullptr.
const StoreBackend* find_store_backend(std::string_view name);
// Every registered name, the built-in ones first.
std::vector<std::string> store_backend_names();
// Whether the backend `settings` names is shared (false for an unknown one).
bool shared_store(const StoreSettings& settings);

}  // namespace authd
