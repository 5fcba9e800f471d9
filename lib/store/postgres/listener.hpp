// Internal to lib/store/postgres/: the LISTEN connection that keeps the user
// and records caches coherent across processes. One thread, one connection of
// its own (not from the pool): LISTEN authd_users and authd_records, then
// every notification goes to `on_notify` (channel, payload). The caches are
// live only while this connection listens: `on_live(false)` when it is lost
// (or a 1 s heartbeat goes unanswered for 1 s), and they are dropped and
// bypassed until it listens again (`on_live(true)`).
#pragma once

#include <atomic>
#include <functional>
#include <string_view>
#include <thread>

#include "connection.hpp"

namespace authd::pg {

class Listener {
 public:
  using Log = std::function<void(std::string_view)>;
  using OnNotify = std::function<void(std::string_view channel, std::string_view payload)>;
  // `on_listening` runs each time it listens (again): the database is back.
  Listener(Connection::Settings settings, OnNotify on_notify, std::function<void(bool live)> on_live, Log warn,
           Log info, std::function<void()> on_listening);
  ~Listener();  // stops the thread (wakes it at once)
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

 private:
  void run();
  void listen_on(Connection& conn);
  bool pause(std::chrono::milliseconds time);  // false when asked to stop

  Connection::Settings settings_;
  OnNotify on_notify_;
  std::function<void(bool)> on_live_;
  Log warn_, info_;
  std::function<void()> on_listening_;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace authd::pg
