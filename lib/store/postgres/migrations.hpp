// Internal to lib/store/postgres/: the schema, as numbered migrations
// (migrations/NNN_name.sql, compiled into the binary by CMake), and the code
// that brings a database up to date.
#pragma once

#include <span>
#include <string_view>

#include "connection.hpp"

namespace authd::pg {

struct Migration {
  int version;             // NNN
  std::string_view name;   // the file name
  std::string_view sql;
};

// Every migration, in version order (generated: migrations_embedded.cpp).
std::span<const Migration> migrations();

// Applies the migrations the database lacks, in one transaction that first
// takes a transaction-level advisory lock: nodes starting together wait for
// each other and exactly one applies each migration; the others then find it
// recorded in schema_migrations. `conn` must not be in pipeline mode.
// Returns how many were applied. A database newer than this binary (a
// version we do not know) is accepted: later migrations only add. Each
// statement may take up to `statement_timeout` (SET LOCAL).
DbResult<int> migrate(Connection& conn, std::chrono::milliseconds statement_timeout, Clock::time_point deadline);

}  // namespace authd::pg
