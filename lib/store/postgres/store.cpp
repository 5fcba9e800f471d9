// PostgresStore: the Store interface on a pool of PostgreSQL connections, with
// a LISTEN/NOTIFY-coherent user cache. See authd/postgres_store.hpp.
#include <random>
#include <thread>

#include "authd/postgres_store.hpp"
#include "listener.hpp"
#include "records_cache.hpp"
#include "pool.hpp"
#include "txn.hpp"
#include "user_cache.hpp"
#include "user_row.hpp"

namespace authd {
namespace {

using pg::Clock;
using pg::DbError;

// A transaction refused for a serialization conflict (SERIALIZABLE) is run
// again as long as it has not used up one statement timeout since its first
// try: under contention on one row a count of tries alone gives up on a
// writer that keeps losing (8 writers of one counter lost an update that way).
// The count is a backstop against a conflict that never clears.
constexpr int kMaxSerializationRetries = 1000;
// A pooled connection may have died since its last use (database restarted,
// failover): a transaction that lost its connection before COMMIT was sent
// surely did not commit and is run again on a fresh one.
constexpr int kMaxReconnects = 2;

void serialization_backoff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  const int cap_us = 1000 << std::min(attempt, 6);  // 2 ms .. 64 ms
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, cap_us)(random)));
}

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(const PostgresOptions& options)
      : options_(options),
        pool_(settings(options.database_url), options.pool_size, options.log_warning, options.log_info),
        cache_(options.user_cache_entries), statement_timeout_ms_(std::to_string(options.statement_timeout.count())) {
    if (options.user_cache_entries > 0)
      listener_ = std::make_unique<pg::Listener>(
          settings(options.listen_url.empty() ? options.database_url : options.listen_url, "authd listen"),
          [this](std::string_view channel, std::string_view payload) {
            if (channel == "authd_records") {
              records_cache_.invalidate();
            } else {
              cache_.invalidate(payload);
            }
          },
          [this](bool live) {
            cache_.set_live(live);
            records_cache_.set_live(live);
          },
          options.log_warning, options.log_info, [this] { pool_.database_is_back(); });
    // Connect (and migrate) now if the database is there; if not, the store
    // answers unavailable until it is.
    (void)pool_.acquire();
  }

  ~PostgresStore() override { listener_.reset(); }

  Result<void> read(const Work& work) override { return run(pg::PgTxn::Mode::read, work); }
  Result<void> write(const Work& work) override { return run(pg::PgTxn::Mode::write, work); }

  // On a thread answering from memory only (MemoryOnly), a miss is refused
  // before any round trip; so is every other call that needs the database.
  Result<std::shared_ptr<const User>> find_user_shared(std::string_view username) override {
    if (auto hit = cache_.find(username)) return hit;
    if (MemoryOnly::refuse_wait()) return fail(MemoryOnly::refusal());
    const auto ticket = cache_.ticket(username);
    auto found = read_value(*this, [&](StoreTxn& txn) { return txn.find_user(username); });
    if (!found) return std::unexpected(found.error());
    auto shared = std::make_shared<const User>(std::move(*found));
    cache_.put(ticket, shared);
    return shared;
  }

  // The capability read: from the records cache (records_cache.hpp) while
  // it is live, else one read transaction whose answer it keeps.
  Result<std::string> find_record(std::string_view id) override {
    if (auto hit = records_cache_.find(id)) return std::move(*hit);
    if (MemoryOnly::refuse_wait()) return fail(MemoryOnly::refusal());
    const auto ticket = records_cache_.ticket();
    auto found = read_value(*this, [&](StoreTxn& txn) { return txn.find_record(id); });
    if (found) records_cache_.put(ticket, id, *found);
    return found;
  }

  Result<StoreStats> stats() override {
    if (MemoryOnly::refuse_wait()) return fail(MemoryOnly::refusal());
    StoreStats out;
    auto got = run_statement([&](pg::Connection& conn) -> pg::DbResult<void> {
      // One transaction of its own, for its SET LOCAL (no session state).
      std::vector<pg::Statement> batch;
      batch.push_back(pg::Statement{"BEGIN READ ONLY", {}});
      batch.push_back(pg::Statement{"SELECT set_config('statement_timeout', $1, true)", {pg::Param::text(statement_timeout_ms_)}});
      batch.push_back(pg::Statement{"SELECT (SELECT count(*) FROM users), pg_database_size(current_database())", {}});
      batch.push_back(pg::Statement{"COMMIT", {}});
      auto results = conn.run(batch, deadline());
      if (!results) {
        if (!results.error().fatal_to_connection()) {  // the batch was skipped after the error: end the transaction
          std::vector<pg::Statement> rollback;
          rollback.push_back(pg::Statement{"ROLLBACK", {}});
          if (!conn.run(rollback, deadline())) conn.mark_broken();
        }
        return std::unexpected(results.error());
      }
      const PGresult* row = (*results)[2].get();
      out.users = static_cast<std::size_t>(pg::field_int(row, 0, 0));
      out.bytes_used = static_cast<std::size_t>(pg::field_int(row, 0, 1));
      return {};
    });
    if (!got) return std::unexpected(got.error());
    return out;
  }

  std::string_view name() const noexcept override { return "postgresql"; }
  bool waits_on_network() const noexcept override { return true; }

 private:
  pg::Connection::Settings settings(const std::string& url, const char* application_name = "authd") const {
    return pg::Connection::Settings{url, options_.connect_timeout, options_.statement_timeout, application_name};
  }
  Clock::time_point deadline() const { return Clock::now() + options_.statement_timeout + std::chrono::milliseconds(250); }

  Result<void> run(pg::PgTxn::Mode mode, const Work& work) {
    if (MemoryOnly::active()) {
      // Answering from memory: a write is refused before its work runs; a
      // read runs on no connection, answered from the caches or refused.
      if (mode == pg::PgTxn::Mode::write && MemoryOnly::refuse_wait()) return fail(MemoryOnly::refusal());
      pg::PgTxn txn(nullptr, mode, options_.statement_timeout, statement_timeout_ms_, &records_cache_);
      return work(txn);
    }
    int serialization_failures = 0;
    int reconnects = 0;
    const auto retry_until = Clock::now() + options_.statement_timeout;
    for (;;) {
      auto lease = pool_.acquire();
      if (!lease) return std::unexpected(lease.error());
      pg::PgTxn txn(&lease->conn(), mode, options_.statement_timeout, statement_timeout_ms_, &records_cache_);
      auto outcome = work(txn);
      if (outcome && !txn.failure() && mode == pg::PgTxn::Mode::write) (void)txn.commit();
      txn.end();
      if (const auto& failure = txn.failure()) {
        if (failure->retryable() && ++serialization_failures <= kMaxSerializationRetries &&
            Clock::now() < retry_until) {
          serialization_backoff(serialization_failures);
          continue;
        }
        if (failure->fatal_to_connection() && failure->kind != DbError::Kind::timeout && !txn.commit_sent() &&
            ++reconnects <= kMaxReconnects)
          continue;
        if (txn.commit_sent() && failure->fatal_to_connection())
          return fail(Error::retry_later(Errc::unavailable, 1,
                                         "postgresql: connection lost during COMMIT (outcome unknown): " +
                                             failure->message));
        // The work may have turned the database's error into its own: the
        // database's is the truth.
        return fail(pg::to_error(*failure, mode == pg::PgTxn::Mode::write ? "postgresql: write" : "postgresql: read"));
      }
      if (!outcome) return outcome;
      for (const auto& username : txn.touched_users()) cache_.invalidate(username);
      if (txn.touched_records()) records_cache_.invalidate();
      return {};
    }
  }

  // One statement outside a transaction, on a fresh connection if the pooled
  // one turns out to be dead.
  Result<void> run_statement(const std::function<pg::DbResult<void>(pg::Connection&)>& statement) {
    for (int attempt = 0;; ++attempt) {
      auto lease = pool_.acquire();
      if (!lease) return std::unexpected(lease.error());
      auto done = statement(lease->conn());
      if (done) return {};
      if (done.error().kind == DbError::Kind::connection && attempt < kMaxReconnects) continue;
      return fail(pg::to_error(done.error(), "postgresql"));
    }
  }

  PostgresOptions options_;
  pg::Pool pool_;
  pg::UserCache cache_;
  const std::string statement_timeout_ms_;  // options_.statement_timeout as text, for SET LOCAL
  pg::RecordsCache records_cache_;
  std::unique_ptr<pg::Listener> listener_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_postgres_store(const PostgresOptions& options) {
  char* error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(options.database_url.c_str(), &error);
  if (!parsed) {
    std::string why = error ? error : "out of memory";
    PQfreemem(error);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    // libpq may quote the faulty part, which could hold the password.
    if (redact_database_url(options.database_url) != options.database_url) why = "see the libpq documentation";
    return fail(Errc::config, "database_url is not a libpq connection string or URI: " + why);
  }
  PQconninfoFree(parsed);
  if (!options.listen_url.empty()) {
    parsed = PQconninfoParse(options.listen_url.c_str(), &error);
    if (!parsed) {
      PQfreemem(error);
      return fail(Errc::config, "database_listen_url: not a libpq connection string or URI");
    }
    PQconninfoFree(parsed);
  }
  if (options.pool_size < 1 || options.pool_size > 1000) return fail(Errc::config, "database_pool_size: 1 to 1000");
  if (options.statement_timeout.count() < 1) return fail(Errc::config, "database_statement_timeout_ms: at least 1");
  if (options.connect_timeout.count() < 1) return fail(Errc::config, "database_connect_timeout_ms: at least 1");
  return std::unique_ptr<Store>(std::make_unique<PostgresStore>(options));
}

}  // namespace authd
