// Internal to lib/store/postgres/: one libpq connection, driven without
// blocking so that every wait has a deadline. Statements go out in pipeline
// batches (one round trip for several statements, e.g. BEGIN + the first
// query of a transaction); parameters are sent in binary with explicit types,
// so a string_view needs no copy and no NUL terminator.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "libpq_handles.hpp"

namespace authd::pg {

using Clock = std::chrono::steady_clock;

// What went wrong talking to PostgreSQL, before it becomes an authd::Error.
struct DbError {
  enum class Kind {
    sql,         // the server refused a statement; `sqlstate` says why (connection still usable)
    connection,  // could not connect, or the connection broke (it is unusable now)
    timeout,     // no answer before the deadline (the connection is dropped)
    memory_only, // not sent: the caller answers from memory only (authd/store.hpp's MemoryOnly)
  };
  Kind kind = Kind::sql;
  std::string sqlstate;  // five characters for Kind::sql ("23505"), else ""
  std::string message;   // PostgreSQL's or libpq's text, for logs only

  bool is(std::string_view state) const noexcept { return kind == Kind::sql && sqlstate == state; }
  // Serialization failure or deadlock: the transaction may simply be run again.
  bool retryable() const noexcept { return is("40001") || is("40P01"); }
  // The connection cannot be used for anything else now.
  bool fatal_to_connection() const noexcept;
};

template <class T>
using DbResult = std::expected<T, DbError>;

// The error kind the rest of authd sees. `what` names the operation for logs.
Error to_error(const DbError& error, std::string_view what);

// One parameter, sent in binary format with its type.
class Param {
 public:
  static Param text(std::string_view value) noexcept { return Param(kText, value, 0, false); }
  static Param bytes(std::string_view value) noexcept { return Param(kBytea, value, 0, false); }
  static Param int8(std::int64_t value) noexcept { return Param(kInt8, {}, value, false); }
  static Param null_text() noexcept { return Param(kText, {}, 0, true); }
  static Param null_int8() noexcept { return Param(kInt8, {}, 0, true); }

  unsigned type_oid() const noexcept { return type_; }
  std::string_view bytes_value() const noexcept { return bytes_; }
  std::int64_t int_value() const noexcept { return int_; }
  bool is_null() const noexcept { return null_; }

 private:
  static constexpr unsigned kText = 25, kBytea = 17, kInt8 = 20;
  Param(unsigned type, std::string_view bytes, std::int64_t number, bool null) noexcept
      : type_(type), bytes_(bytes), int_(number), null_(null) {}
  unsigned type_;
  std::string_view bytes_;
  std::int64_t int_;
  bool null_;
};

struct Statement {
  const char* sql;
  std::vector<Param> params;
  bool binary_result = false;  // columns in binary format (bytea as raw bytes)
};

class Connection {
 public:
  struct Settings {
    std::string conninfo;
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds statement_timeout{5000};
    // application_name unless the conninfo names one (pg_stat_activity).
    const char* application_name = "authd";
  };

  // Connects (blocking, bounded by connect_timeout per host). It leaves no
  // state on the session (a transaction pooler may hand the server
  // connection to another client between transactions): each transaction
  // sets its own statement timeout (txn.hpp, migrations.hpp). The
  // connection is not in pipeline mode yet.
  static DbResult<Connection> open(const Settings& settings);

  // Runs SQL text (several statements allowed) with the simple protocol and
  // returns the last statement's result. Not in pipeline mode (migrations,
  // LISTEN).
  DbResult<ResultPtr> exec_script(std::string_view sql, Clock::time_point deadline);

  // From now on only run() may be used.
  DbResult<void> enter_pipeline();

  // Sends every statement of `batch` in one pipeline and returns one result
  // per statement. On a statement's error the rest of the batch is skipped by
  // the server and that error is returned (the connection stays usable unless
  // the error says otherwise).
  DbResult<std::vector<ResultPtr>> run(std::span<const Statement> batch, Clock::time_point deadline);

  // An idle connection that the server closed or terminated is detected here
  // (a zero-timeout poll), before a request is sent on it.
  bool usable();
  bool broken() const noexcept { return broken_; }
  void mark_broken() noexcept { broken_ = true; }

  PGconn* raw() const noexcept { return conn_.get(); }

  // Waits until the socket is readable (or writable), or the deadline.
  // Returns false on timeout.
  bool wait(bool for_write, Clock::time_point deadline) const;

 private:
  explicit Connection(ConnPtr conn) : conn_(std::move(conn)) {}
  DbResult<void> flush(Clock::time_point deadline);
  DbResult<ResultPtr> next_result(Clock::time_point deadline);
  DbError lost(std::string_view what);

  ConnPtr conn_;
  bool broken_ = false;
};

// Numbers and text out of a result (text format).
std::string_view field(const PGresult* result, int row, int column) noexcept;
std::int64_t field_int(const PGresult* result, int row, int column) noexcept;
// Rows a command touched (PQcmdTuples), 0 when it does not say.
std::int64_t affected_rows(const PGresult* result) noexcept;

}  // namespace authd::pg
