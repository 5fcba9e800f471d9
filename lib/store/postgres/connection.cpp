#include "connection.hpp"

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <optional>

#include "authd/store.hpp"

namespace authd::pg {
namespace {

std::string trimmed(const char* text) {
  std::string out = text ? text : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

DbError sql_error(const PGresult* result) {
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  return DbError{DbError::Kind::sql, state ? state : "", trimmed(PQresultErrorMessage(result))};
}

int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 24 * 3600 * 1000));
}

}  // namespace

bool DbError::fatal_to_connection() const noexcept {
  if (kind == Kind::memory_only) return false;
  if (kind != Kind::sql) return true;
  // Class 08: connection exception; 57P0x: the server is shutting down or
  // terminated us; 25006: we reached a read-only server (a standby, or a
  // demoted primary): reconnect so that target_session_attrs finds the primary.
  return sqlstate.starts_with("08") || sqlstate.starts_with("57P") || sqlstate == "25006" ||
         sqlstate.empty();
}

Error to_error(const DbError& error, std::string_view what) {
  const std::string text = std::string(what) + ": " + error.message;
  switch (error.kind) {
    case DbError::Kind::connection:
      return Error::retry_later(Errc::unavailable, 1, text);
    case DbError::Kind::timeout:
      return Error::retry_later(Errc::unavailable, 1, std::string(what) + ": the database did not answer in time");
    case DbError::Kind::memory_only:
      return MemoryOnly::refusal();
    case DbError::Kind::sql:
      break;
  }
  const std::string_view state = error.sqlstate;
  if (state == "23505") return Error(Errc::conflict, text);
  if (state == "57014") return Error::retry_later(Errc::unavailable, 1, std::string(what) + ": statement timeout");
  if (error.retryable()) return Error::retry_later(Errc::unavailable, 1, text);
  if (state == "53100") return Error(Errc::storage_full, text);  // disk_full
  // Too many connections, out of memory, shutting down, read-only server,
  // lock not available, connection failures: try again later.
  if (state.starts_with("53") || state.starts_with("08") || state.starts_with("57P") || state == "25006" ||
      state == "55P03")
    return Error::retry_later(Errc::unavailable, 1, text);
  // Bytes the database cannot hold as text (a NUL, invalid UTF-8).
  if (state == "22021" || state == "22P05") return Error(Errc::invalid_input, text);
  if (state == "54000") return Error(Errc::too_large, text);  // e.g. a key over the index row limit
  return Error(Errc::internal, text);
}

DbResult<Connection> Connection::open(const Settings& settings) {
  const auto seconds = std::max<long long>(1, (settings.connect_timeout.count() + 999) / 1000);
  const std::string timeout = std::to_string(seconds);
  // Our defaults first: with expand_dbname the connection string (the last
  // entry) overrides any of them.
  const std::array<const char*, 9> keys = {"connect_timeout", "fallback_application_name", "client_encoding",
                                           "keepalives", "keepalives_idle", "keepalives_interval",
                                           "keepalives_count", "dbname", nullptr};
  const std::array<const char*, 9> values = {timeout.c_str(), settings.application_name, "UTF8", "1", "10", "5", "3",
                                             settings.conninfo.c_str(), nullptr};
  ConnPtr conn(PQconnectdbParams(keys.data(), values.data(), 1));
  if (!conn) return std::unexpected(DbError{DbError::Kind::connection, "", "out of memory"});
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return std::unexpected(DbError{DbError::Kind::connection, "", trimmed(PQerrorMessage(conn.get()))});
  // libpq prints NOTICEs (and errors that arrive while idle) to stderr by
  // default: ours go nowhere; what matters comes back as errors.
  PQsetNoticeProcessor(conn.get(), [](void*, const char*) {}, nullptr);
  if (PQsetnonblocking(conn.get(), 1) != 0)
    return std::unexpected(DbError{DbError::Kind::connection, "", trimmed(PQerrorMessage(conn.get()))});
  return Connection(std::move(conn));
}

DbError Connection::lost(std::string_view what) {
  broken_ = true;
  return DbError{DbError::Kind::connection, "", std::string(what) + ": " + trimmed(PQerrorMessage(conn_.get()))};
}

bool Connection::wait(bool for_write, Clock::time_point deadline) const {
  pollfd fd{PQsocket(conn_.get()), static_cast<short>(POLLIN | (for_write ? POLLOUT : 0)), 0};
  for (;;) {
    const int rc = ::poll(&fd, 1, milliseconds_until(deadline));
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return true;  // let libpq find out what is wrong
  }
}

DbResult<void> Connection::flush(Clock::time_point deadline) {
  for (;;) {
    const int rc = PQflush(conn_.get());
    if (rc == 0) return {};
    if (rc < 0) return std::unexpected(lost("send"));
    if (!wait(true, deadline)) {
      broken_ = true;
      return std::unexpected(DbError{DbError::Kind::timeout, "", "sending to the database timed out"});
    }
    if (!PQconsumeInput(conn_.get())) return std::unexpected(lost("receive"));
  }
}

DbResult<ResultPtr> Connection::next_result(Clock::time_point deadline) {
  while (PQisBusy(conn_.get())) {
    if (!wait(false, deadline)) {
      broken_ = true;
      return std::unexpected(DbError{DbError::Kind::timeout, "", "no answer from the database in time"});
    }
    if (!PQconsumeInput(conn_.get())) return std::unexpected(lost("receive"));
  }
  return ResultPtr(PQgetResult(conn_.get()));
}

DbResult<ResultPtr> Connection::exec_script(std::string_view sql, Clock::time_point deadline) {
  const std::string text(sql);
  if (!PQsendQuery(conn_.get(), text.c_str())) return std::unexpected(lost("send"));
  if (auto sent = flush(deadline); !sent) return std::unexpected(sent.error());
  std::optional<DbError> first_error;
  ResultPtr last;
  for (;;) {
    auto result = next_result(deadline);
    if (!result) return std::unexpected(result.error());
    if (!*result) break;
    const auto status = PQresultStatus(result->get());
    if (status == PGRES_FATAL_ERROR && !first_error) first_error = sql_error(result->get());
    if (status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH) {
      broken_ = true;  // no COPY in our scripts; never leave a connection mid-copy
      return std::unexpected(DbError{DbError::Kind::connection, "", "unexpected COPY"});
    }
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) last = std::move(*result);
  }
  if (PQstatus(conn_.get()) != CONNECTION_OK) return std::unexpected(lost("connection"));
  if (first_error) {
    if (first_error->fatal_to_connection()) broken_ = true;
    return std::unexpected(*first_error);
  }
  return last;
}

DbResult<void> Connection::enter_pipeline() {
  if (!PQenterPipelineMode(conn_.get())) return std::unexpected(lost("pipeline mode"));
  return {};
}

DbResult<std::vector<ResultPtr>> Connection::run(std::span<const Statement> batch, Clock::time_point deadline) {
  PGconn* conn = conn_.get();
  for (const auto& statement : batch) {
    constexpr std::size_t kMax = 16;
    const std::size_t n = std::min(statement.params.size(), kMax);
    std::array<unsigned, kMax> types{};
    std::array<const char*, kMax> values{};
    std::array<int, kMax> lengths{};
    std::array<int, kMax> formats{};
    std::array<std::array<char, 8>, kMax> numbers{};
    for (std::size_t i = 0; i < n; ++i) {
      const Param& p = statement.params[i];
      types[i] = p.type_oid();
      formats[i] = 1;
      if (p.is_null()) continue;
      if (p.type_oid() == 20) {  // int8: 8 bytes, big-endian
        const auto bits = static_cast<std::uint64_t>(p.int_value());
        for (int b = 0; b < 8; ++b) numbers[i][static_cast<std::size_t>(b)] = static_cast<char>(bits >> (56 - 8 * b));
        values[i] = numbers[i].data();
        lengths[i] = 8;
      } else {
        // A non-null pointer even for "" (a null pointer would mean SQL NULL).
        values[i] = p.bytes_value().empty() ? "" : p.bytes_value().data();
        lengths[i] = static_cast<int>(p.bytes_value().size());
      }
    }
    if (!PQsendQueryParams(conn, statement.sql, static_cast<int>(n), types.data(), values.data(), lengths.data(),
                           formats.data(), statement.binary_result ? 1 : 0))
      return std::unexpected(lost("send"));
  }
  if (!PQpipelineSync(conn)) return std::unexpected(lost("send"));
  if (auto sent = flush(deadline); !sent) return std::unexpected(sent.error());

  std::vector<ResultPtr> out;
  out.reserve(batch.size());
  std::optional<DbError> first_error;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    ResultPtr kept;
    for (;;) {  // a statement's results end with a null result
      auto result = next_result(deadline);
      if (!result) return std::unexpected(result.error());
      if (!*result) break;
      const auto status = PQresultStatus(result->get());
      if (status == PGRES_FATAL_ERROR) {
        if (!first_error) first_error = sql_error(result->get());
        if (PQstatus(conn) != CONNECTION_OK) return std::unexpected(lost("connection"));
      } else if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
        kept = std::move(*result);
      } else if (status == PGRES_PIPELINE_SYNC) {  // fewer results than statements: libpq lost track
        broken_ = true;
        return std::unexpected(DbError{DbError::Kind::connection, "", "pipeline out of step"});
      }
      // PGRES_PIPELINE_ABORTED: skipped after an earlier error.
    }
    out.push_back(std::move(kept));
  }
  auto sync = next_result(deadline);
  if (!sync) return std::unexpected(sync.error());
  if (!*sync || PQresultStatus(sync->get()) != PGRES_PIPELINE_SYNC) {
    broken_ = true;
    return std::unexpected(DbError{DbError::Kind::connection, "", "pipeline out of step"});
  }
  if (first_error) {
    if (first_error->fatal_to_connection()) broken_ = true;
    return std::unexpected(*first_error);
  }
  return out;
}

bool Connection::usable() {
  PGconn* conn = conn_.get();
  if (broken_ || PQstatus(conn) != CONNECTION_OK) return false;
  pollfd fd{PQsocket(conn), POLLIN, 0};
  if (::poll(&fd, 1, 0) > 0) {
    // Nothing is expected on an idle connection: this is the server saying
    // goodbye (terminated, shut down) or the socket closing.
    if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK) broken_ = true;
    if (fd.revents & (POLLHUP | POLLERR)) broken_ = true;
  }
  return !broken_;
}

std::string_view field(const PGresult* result, int row, int column) noexcept {
  return {PQgetvalue(result, row, column), static_cast<std::size_t>(PQgetlength(result, row, column))};
}

std::int64_t field_int(const PGresult* result, int row, int column) noexcept {
  const auto text = field(result, row, column);
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

std::int64_t affected_rows(const PGresult* result) noexcept {
  const char* text = PQcmdTuples(const_cast<PGresult*>(result));
  std::int64_t value = 0;
  if (text) std::from_chars(text, text + std::char_traits<char>::length(text), value);
  return value;
}

}  // namespace authd::pg
