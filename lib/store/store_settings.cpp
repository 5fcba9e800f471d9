#include "authd/store_backends.hpp"

namespace authd {

std::vector<settings::Setting> store_settings(StoreSettings& s) {
  return {
      settings::choice("store", s.kind, {{"lmdb", StoreKind::lmdb}},
                       "where accounts live: lmdb (embedded, one machine)"),
      settings::path("state_dir", s.lmdb.directory,
                     "directory of the LMDB environment and the signing key (created 0700)"),
      settings::integer("map_size_mb", s.map_size_mb, 1, 1 << 20,
                        "the most the LMDB map grows to, in MiB (it starts small and doubles when full)"),
      settings::boolean("sync_writes", s.lmdb.sync, "fsync every commit (durable default)"),
  };
}

Result<std::unique_ptr<Store>> open_store(const StoreSettings& s) {
  switch (s.kind) {
    case StoreKind::lmdb: {
      LmdbOptions options = s.lmdb;
      options.map_size_bytes = s.map_size_mb << 20;
      return open_lmdb_store(options);
    }
  }
  return fail(Errc::config, "unknown store");
}

}  // namespace authd
