// The FastCGI serving machinery: accepting threads that answer direct
// requests themselves, and bounded lanes (worker pools with a queue) for the
// slow routes — password hashing and identity-provider calls — so that those
// can never occupy every thread. See Lane in lane.hpp. The server knows
// nothing of routes: `prepare` (routes.cpp) resolves each request once.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "lane.hpp"

namespace authd {

struct ServerOptions {
  unsigned accept_workers = 4;
  unsigned hash_workers = 2;
  unsigned upstream_workers = 4;
  std::size_t queue_limit = 128;  // per lane; a full lane answers 503 + Retry-After
  std::size_t max_body_bytes = 65536;
};

class Server {
 public:
  Server(int listen_fd, ServerOptions options, Prepare prepare);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  // Stops accepting; in-flight and queued requests are answered. Returns
  // false if that takes longer than `grace` (the threads are then abandoned).
  bool stop(std::chrono::seconds grace);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace authd
