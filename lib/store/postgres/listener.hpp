// Internal to lib/store/postgres/: the LISTEN connection that keeps the user
// cache coherent across processes. One thread, one connection of its own
// (not from the pool): LISTEN authd_users, then every notification evicts the
// named user ("" = everyone). The cache is live only while this connection
// listens: when it is lost (or a 1 s heartbeat goes unanswered for 1 s) the
// whole cache is dropped and bypassed until it listens again.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>
#include <thread>

#include "store/postgres/connection.hpp"
#include "store/postgres/user_cache.hpp"

namespace authd::pg {

class Listener {
 public:
  using Log = std::function<void(std::string_view)>;
  // `on_listening` runs each time it listens (again): the database is back.
  Listener(Connection::Settings settings, UserCache& cache, Log warn, Log info, std::function<void()> on_listening);
  ~Listener();  // stops the thread (wakes it at once)
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

 private:
  void run();
  void listen_on(Connection& conn);
  bool pause(std::chrono::milliseconds time);  // false when asked to stop

  Connection::Settings settings_;
  UserCache& cache_;
  Log warn_, info_;
  std::function<void()> on_listening_;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace authd::pg
