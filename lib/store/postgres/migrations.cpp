#include "migrations.hpp"

#include <set>
#include <string>

namespace authd::pg {
namespace {

// pg_advisory_xact_lock key: "authd" in ASCII. Transaction-level, so it is
// released by COMMIT or ROLLBACK (and works through a transaction pooler).
constexpr const char* kLockAndPrepare = R"sql(
SELECT pg_advisory_xact_lock(435778643044);
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
)sql";

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

}  // namespace

DbResult<int> migrate(Connection& conn, std::chrono::milliseconds statement_timeout, Clock::time_point deadline) {
  // The timeout for this transaction only (SET LOCAL): nothing stays on the session.
  const std::string begin = "BEGIN; SET LOCAL statement_timeout = " + std::to_string(statement_timeout.count());
  if (auto begun = conn.exec_script(begin, deadline); !begun) return std::unexpected(begun.error());
  auto rollback = [&](DbError error) -> DbResult<int> {
    (void)conn.exec_script("ROLLBACK", deadline);
    return std::unexpected(std::move(error));
  };
  if (auto locked = conn.exec_script(kLockAndPrepare, deadline); !locked) return rollback(locked.error());

  auto applied = conn.exec_script("SELECT version FROM schema_migrations", deadline);
  if (!applied) return rollback(applied.error());
  std::set<int> done;
  const PGresult* rows = applied->get();
  for (int row = 0; rows && row < PQntuples(rows); ++row) done.insert(static_cast<int>(field_int(rows, row, 0)));

  int count = 0;
  for (const auto& migration : migrations()) {
    if (done.contains(migration.version)) continue;
    if (auto ran = conn.exec_script(migration.sql, deadline); !ran) {
      auto error = ran.error();
      error.message = std::string(migration.name) + ": " + error.message;
      return rollback(std::move(error));
    }
    const std::string record = "INSERT INTO schema_migrations (version, name) VALUES (" +
                               std::to_string(migration.version) + ", " + quoted(migration.name) + ")";
    if (auto noted = conn.exec_script(record, deadline); !noted) return rollback(noted.error());
    ++count;
  }
  if (auto committed = conn.exec_script("COMMIT", deadline); !committed) return std::unexpected(committed.error());
  return count;
}

}  // namespace authd::pg
