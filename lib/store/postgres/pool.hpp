// Internal to lib/store/postgres/: a bounded pool of connections in pipeline
// mode. Connections are opened on demand (none at start), an idle connection
// that the server closed is dropped before use, and a broken one is dropped
// when it comes back. The first connection of the process brings the schema
// up to date (migrations.hpp) before anything else uses the database.
//
// While PostgreSQL cannot be reached, acquire() fails at once with
// unavailable (no connection attempt) until a back-off of 250 ms, doubling
// to 2 s, has passed; then one attempt decides again. So a down database
// costs requests nothing, and a database that is back is found within 2 s.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "connection.hpp"

namespace authd::pg {

class Pool {
 public:
  using Log = std::function<void(std::string_view)>;
  Pool(Connection::Settings settings, std::size_t size, Log warn, Log info);

  // A connection on loan; goes back to the pool (or is closed, if broken)
  // when destroyed.
  class Lease {
   public:
    Lease(Pool& pool, std::unique_ptr<Connection> conn) : pool_(&pool), conn_(std::move(conn)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (conn_) pool_->give_back(std::move(conn_));
    }
    Connection& conn() noexcept { return *conn_; }

   private:
    Pool* pool_;
    std::unique_ptr<Connection> conn_;
  };

  // Errors: unavailable (database unreachable, or every connection busy
  // until the connect timeout), internal (the schema could not be migrated).
  Result<Lease> acquire();

  const Connection::Settings& settings() const noexcept { return settings_; }

  // The database is reachable again (the listener got through): the next
  // acquire() tries at once instead of waiting out the back-off.
  void database_is_back();

 private:
  Result<std::unique_ptr<Connection>> connect();
  void give_back(std::unique_ptr<Connection> conn);

  const Connection::Settings settings_;
  const std::size_t size_;
  Log warn_, info_;

  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t open_ = 0;  // idle + on loan + being opened
  Clock::time_point down_until_{};
  std::chrono::milliseconds backoff_{0};
  bool reported_down_ = false;

  std::mutex migrate_mutex_;
  bool schema_ready_ = false;  // guarded by migrate_mutex_
};

}  // namespace authd::pg
