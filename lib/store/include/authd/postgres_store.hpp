// The PostgreSQL store: the Store interface (authd/store.hpp) on a shared
// PostgreSQL database, for several front nodes. Only lib/store/postgres/
// includes <libpq-fe.h>.
//
// What it guarantees beyond the interface:
// - The schema is created and upgraded by numbered migrations at start, under
//   a transaction-level advisory lock: nodes starting together migrate once.
// - Store::write runs its work in a SERIALIZABLE transaction and runs it again
//   (up to 10 times) after a serialization failure or deadlock; uniqueness is
//   enforced by constraints.
// - The database may be down: open_postgres_store still succeeds, every call
//   then answers Errc::unavailable (retry_after set) until it comes back; a
//   broken connection is replaced; no statement waits longer than
//   statement_timeout_ms (server-side statement_timeout plus a client-side
//   deadline that cancels the query and drops the connection).
// - Store::find_user_shared (and find_user) answer from a bounded in-process
//   cache that is used only while a LISTEN connection is up; a trigger on the
//   users table NOTIFYs every change, so a change made by any node (or by SQL)
//   evicts the entry everywhere within milliseconds. When the LISTEN
//   connection is lost the whole cache is dropped and bypassed until it
//   listens again.
// - Store::find_record and a read transaction's list_records answer from a
//   records cache kept coherent the same way (a trigger NOTIFYs every change
//   to the records table; the whole records cache is dropped).
// - Inside a MemoryOnly scope (authd/store.hpp: an event loop), those caches
//   answer and everything else is refused before any round trip: a cache
//   miss, any other read, a write (before its work runs), stats().
// - A pooled connection keeps no session state between transactions (each
//   sets its statement timeout with SET LOCAL; statements are unnamed; the
//   migrations' advisory lock is transaction-level), so database_url may name
//   a transaction pooler such as pgbouncer; LISTEN then needs listen_url.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/store.hpp"

namespace authd {

struct PostgresOptions {
  // libpq connection string ("host=... dbname=...") or URI
  // ("postgresql://user@host1,host2/db?target_session_attrs=read-write").
  // Whatever it leaves out comes from libpq's usual sources: PGHOST,
  // PGPASSWORD, PGPASSFILE (~/.pgpass), PGSERVICE, ...
  std::string database_url;
  // The LISTEN connection's URL when it must differ (through pgbouncer in
  // transaction mode LISTEN does not work: point this at PostgreSQL itself).
  // Empty: database_url.
  std::string listen_url;
  std::size_t pool_size = 8;                          // connections per process (the listener is extra)
  std::chrono::milliseconds statement_timeout{5000};  // per statement, server and client side
  std::chrono::milliseconds connect_timeout{5000};    // per connection attempt (libpq rounds up to seconds, per host)
  std::size_t user_cache_entries = 10000;             // 0 disables the user cache
  // Where the store reports what an operator should know (database down, back,
  // migrations applied). Never given secrets. Default: discarded.
  std::function<void(std::string_view)> log_warning;
  std::function<void(std::string_view)> log_info;
};

// Errors: config (database_url does not parse as a libpq connection string or
// URI; a bad option value). A database that cannot be reached is no error:
// the store answers unavailable until it can (see above).
Result<std::unique_ptr<Store>> open_postgres_store(const PostgresOptions& options);

// The connection string with any password replaced by "*****" (key=value
// form and URI form both), for printing settings and logs.
std::string redact_database_url(std::string_view url);

}  // namespace authd
