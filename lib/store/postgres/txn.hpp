// Internal to lib/store/postgres/: StoreTxn on one pooled connection.
//
// The transaction begins lazily: BEGIN goes out in the same pipeline batch as
// the first statement (one round trip), and a work that touches nothing
// costs nothing. Writes run SERIALIZABLE, reads REPEATABLE READ READ ONLY (a
// snapshot). Inserts use ON CONFLICT DO NOTHING, so a taken key answers
// conflict without aborting the transaction (the work may go on, e.g. try
// another username); a key taken by a concurrent transaction that is not in
// our snapshot raises a serialization failure instead, and the store runs
// the work again.
//
// The first database error (other than those answered as conflict or
// not_found) is kept: PostgreSQL has aborted the transaction, every later
// call answers that error without a round trip, and the store decides from
// it whether to run the work again.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "authd/store.hpp"
#include "connection.hpp"
#include "records_cache.hpp"

namespace authd::pg {

class PgTxn final : public StoreTxn {
 public:
  enum class Mode { read, write };
  // `records_cache` (may be null): list_records answers from it when it can.
  // `conn` null: a read answered from memory only (authd/store.hpp's
  // MemoryOnly): whatever would need the database is refused.
  // `statement_timeout_ms` (the same value as text, kept alive by the
  // caller) is set for the transaction alone (SET LOCAL, nothing left on the
  // session: a transaction pooler may hand the server connection to others).
  PgTxn(Connection* conn, Mode mode, std::chrono::milliseconds statement_timeout, std::string_view statement_timeout_ms,
        RecordsCache* records_cache = nullptr);
  ~PgTxn() override;

  Result<User> find_user(std::string_view username) override;
  Result<void> insert_user(const User& user) override;
  Result<void> replace_user(const User& user) override;
  Result<void> delete_user(std::string_view username) override;
  Result<UserPage> list_users(const UserQuery& query) override;
  Result<std::vector<std::string>> list_usernames(std::string_view after, std::size_t limit) override;

  Result<std::string> find_link(std::string_view link) override;
  Result<void> insert_link(std::string_view link, std::string_view username) override;
  Result<void> delete_link(std::string_view link) override;

  Result<std::string> find_record(std::string_view id) override;
  Result<void> insert_record(std::string_view id, std::string_view json) override;
  Result<void> replace_record(std::string_view id, std::string_view json) override;
  Result<void> delete_record(std::string_view id) override;
  Result<std::string> list_records() override;

  Result<std::optional<std::string>> get_entry(std::string_view ns, std::string_view key) override;
  Result<void> put_entry(std::string_view ns, std::string_view key, std::string_view value,
                         std::int64_t expires_at) override;
  Result<void> delete_entry(std::string_view ns, std::string_view key) override;
  Result<std::vector<std::pair<std::string, std::string>>> list_entries(std::string_view ns) override;
  Result<std::vector<NamespacedEntry>> list_entries_under(std::string_view ns_prefix) override;
  Result<std::size_t> purge_expired(std::int64_t now) override;

  // After the work. commit(): the error, if COMMIT failed (the DbError is
  // kept in failure()); end(): ROLLBACK if anything was begun.
  DbResult<void> commit();
  void end();

  const std::optional<DbError>& failure() const noexcept { return failure_; }
  bool commit_sent() const noexcept { return commit_sent_; }
  // Usernames this transaction wrote (evicted from the cache after commit).
  const std::vector<std::string>& touched_users() const noexcept { return touched_users_; }
  // Whether it wrote a record (the records cache is dropped after commit).
  bool touched_records() const noexcept { return touched_records_; }

 private:
  Result<std::string> list_records_from_database();
  DbResult<std::vector<ResultPtr>> run(std::vector<Statement> batch);
  DbResult<ResultPtr> run_one(const char* sql, std::vector<Param> params, bool binary = false);
  Result<void> refuse_if_read_only(std::string_view what) const;
  Clock::time_point deadline() const;

  Connection* conn_;
  Mode mode_;
  std::chrono::milliseconds statement_timeout_;
  std::string_view statement_timeout_ms_;
  bool begun_ = false;
  bool finished_ = false;
  bool commit_sent_ = false;
  std::optional<DbError> failure_;
  std::vector<std::string> touched_users_;
  bool touched_records_ = false;
  RecordsCache* records_cache_ = nullptr;
};

}  // namespace authd::pg
