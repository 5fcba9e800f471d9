#include "authd/store_backends.hpp"

namespace authd {
namespace {

// A connection string: printed with its password masked.
settings::Setting database_url_row(std::string name, std::string& field, std::string doc) {
  auto row = settings::text(std::move(name), field, std::move(doc));
  row.show = [&field] { return redact_database_url(field); };
  return row;
}

}  // namespace

std::vector<settings::Setting> store_settings(StoreSettings& s) {
  return {
      settings::choice("store", s.kind, {{"lmdb", StoreKind::lmdb}, {"postgresql", StoreKind::postgresql}},
                       "where accounts live: lmdb (embedded, one machine) or postgresql (shared by several nodes)"),
      settings::path("state_dir", s.lmdb.directory,
                     "directory of the LMDB environment and the signing key (created 0700)"),
      settings::integer("map_size_mb", s.map_size_mb, 1, 1 << 20,
                        "the most the LMDB map grows to, in MiB (it starts small and doubles when full)"),
      settings::boolean("sync_writes", s.lmdb.sync, "fsync every commit (durable default)"),
      database_url_row("database_url", s.postgres.database_url,
                       "store = postgresql: libpq connection string or URI (password also from PGPASSWORD/PGPASSFILE)"),
      database_url_row("database_listen_url", s.postgres.listen_url,
                       "store = postgresql: where the user-cache LISTEN connection goes when not database_url "
                       "(bypassing a transaction pooler)"),
      settings::integer("database_pool_size", s.postgres.pool_size, 1, 1000,
                        "store = postgresql: connections per authd process (plus one for LISTEN)"),
      settings::milliseconds("database_statement_timeout_ms", s.postgres.statement_timeout, 1, 3600 * 1000,
                             "store = postgresql: the longest any statement may wait or run"),
      settings::milliseconds("database_connect_timeout_ms", s.postgres.connect_timeout, 1, 600 * 1000,
                             "store = postgresql: the longest a connection attempt may take (per host, whole seconds)"),
      settings::integer("database_user_cache", s.postgres.user_cache_entries, 0, 10000000,
                        "store = postgresql: users kept in memory for the guard, kept coherent by LISTEN/NOTIFY "
                        "(0 = no cache)"),
  };
}

Result<std::unique_ptr<Store>> open_store(const StoreSettings& s) {
  switch (s.kind) {
    case StoreKind::lmdb: {
      LmdbOptions options = s.lmdb;
      options.map_size_bytes = s.map_size_mb << 20;
      return open_lmdb_store(options);
    }
    case StoreKind::postgresql:
      return open_postgres_store(s.postgres);
  }
  return fail(Errc::config, "unknown store");
}

}  // namespace authd
