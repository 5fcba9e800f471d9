// The store backends and the one place that chooses between them by name
// (the `store` setting), at start: an unknown name fails the start, never a
// request.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
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

enum class StoreKind { lmdb, postgresql };

struct StoreSettings {
  StoreKind kind = StoreKind::lmdb;
  LmdbOptions lmdb;              // state_dir, sync_writes
  std::size_t map_size_mb = 65536;  // -> lmdb.map_size_bytes: the most the map grows to
  PostgresOptions postgres;      // database_* (store = postgresql); log_* set by the program
};

// store, state_dir, map_size_mb, sync_writes, database_url,
// database_listen_url, database_pool_size, database_statement_timeout_ms,
// database_connect_timeout_ms, database_user_cache.
std::vector<settings::Setting> store_settings(StoreSettings& settings);

// The backend `settings.kind` names. Errors: as the backend's open.
Result<std::unique_ptr<Store>> open_store(const StoreSettings& settings);

}  // namespace authd
