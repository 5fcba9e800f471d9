#include "authd/store_backends.hpp"

namespace authd {
namespace {

// A connection string: printed with its password masked.
settings::Setting database_url_row(std::string name, std::string& field, std::string doc) {
  auto row = settings::text(std::move(name), field, std::move(doc));
  row.show = [&field] { return redact_database_url(field); };
  return row;
}

// `store`: one of the registered backends' names (store_registry.cpp).
settings::Setting backend_row(std::string& field, std::string doc) {
  auto row = settings::text("store", field, std::move(doc));
  row.kind = settings::Kind::choice;
  row.choices = store_backend_names();
  row.assign = [&field, choices = row.choices](std::string_view v) -> Result<void> {
    if (find_store_backend(v)) {
      field = std::string(v);
      return {};
    }
    std::string expected;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    }
    return fail(Errc::config, "expected " + expected);
  };
  return row;
}

}  // namespace

std::vector<settings::Setting> store_settings(StoreSettings& s) {
  return settings::grouped("Storage", {
      backend_row(s.backend,
                  "Where accounts live: lmdb, an embedded database in state_dir on this machine, or "
                  "postgresql, one database shared by several authd nodes (docs/scaling-out.md)."),
      settings::path("state_dir", s.lmdb.directory,
                     "Directory of the LMDB environment (data.mdb, lock.mdb), the HMAC signing key and, with "
                     "store = lmdb, the token keys. Relative paths are relative to the working directory of the "
                     "process. A missing directory is created with mode 0700 when its parent exists, an existing "
                     "one is tightened to 0700, and files inside are created 0600. Must not be empty."),
      settings::integer("map_size_mb", s.map_size_mb, 1, 1 << 20,
                        "The most the LMDB map may grow to, in MiB. The map starts at 64 MiB (or the data's size) "
                        "and doubles by itself whenever a write finds it full; the file on disk only takes the pages "
                        "in use. At this size, writes (sign-up, record changes) answer 507 and reads keep working. "
                        "A million users need about 512 MiB."),
      settings::boolean("sync_writes", s.lmdb.sync,
                        "fsync on every LMDB commit. true is the durable default: a sign-up answered 201 survives a "
                        "crash or power loss; false trades that for write speed."),
      database_url_row("database_url", s.postgres.database_url,
                       "store = postgresql: the libpq connection string (`host=db1 dbname=authd user=authd`) or URI "
                       "(`postgresql://authd@db1,db2/authd?target_session_attrs=read-write`); empty uses libpq's "
                       "defaults (PGHOST ...). The password may also come from PGPASSWORD or PGPASSFILE "
                       "(~/.pgpass), as libpq reads them. --print-config shows it with the password masked."),
      database_url_row("database_listen_url", s.postgres.listen_url,
                       "store = postgresql: where the LISTEN connection that keeps the user and records caches "
                       "coherent goes: PostgreSQL itself when database_url names a transaction pooler (pgbouncer "
                       "with pool_mode = transaction, where LISTEN does not work); empty = database_url."),
      settings::integer("database_pool_size", s.postgres.pool_size, 1, 1000,
                        "store = postgresql: database connections per authd process (plus one for LISTEN)."),
      settings::milliseconds("database_statement_timeout_ms", s.postgres.statement_timeout, 1, 3600 * 1000,
                             "store = postgresql: the longest any statement may wait or run; "
                             "beyond it the request answers 503."),
      settings::milliseconds("database_connect_timeout_ms", s.postgres.connect_timeout, 1, 600 * 1000,
                             "store = postgresql: the longest one connection attempt may take (libpq counts whole "
                             "seconds, per host)."),
      settings::integer("database_user_cache", s.postgres.user_cache_entries, 0, 10000000,
                        "store = postgresql: users kept in memory for the guard, kept coherent across nodes by "
                        "LISTEN/NOTIFY; 0 = no cache."),
  });
}

}  // namespace authd
