// The FastCGI server: `event_loops` event loops (event_loop.hpp, one per
// core by default) that share the listening socket, each owning the
// connections it accepted and reading them without blocking. A request that
// cannot block (Lane::direct: the guard, token checks, records, JWKS, health)
// is answered inline on the loop that read it, unless the store may block on
// the network (PostgreSQL): then `workers` threads answer it. The slow routes
// — password hashing, identity-provider calls — run on bounded lanes (worker
// pools with a queue), so that those can never hold a loop or every thread;
// their answers go back to the connection's loop. See Lane in lane.hpp. The
// server knows nothing of routes: `prepare` (api/router.cpp) resolves each
// request once.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "authd/error.hpp"
#include "fcgi/limits.hpp"
#include "serving/lane.hpp"

namespace authd {

struct ServerOptions {
  unsigned event_loops = 1;
  // Direct requests answered on the loop (the store never waits on the
  // network); otherwise on `workers` threads.
  bool inline_direct = false;
  unsigned workers = 4;  // threads for direct requests when not inline
  unsigned hash_workers = 2;
  unsigned upstream_workers = 4;
  std::size_t queue_limit = 128;  // per lane; a full lane answers 503 + Retry-After
  // What a connection and its requests may hold (fcgi/limits.hpp). The
  // server serves with its own copy, max_connections 0 resolved to the
  // open-file limit less 64 and output_limit_bytes at least
  // output_pause_bytes; its loops read that copy.
  fcgi::Limits limits;
  // FCGI_WEB_SERVER_ADDRS (libfcgi's variable): on a TCP socket, the only
  // peer addresses accepted; empty: any.
  std::vector<std::string> web_server_addrs;
};

class Server {
 public:
  Server(int listen_fd, ServerOptions options, Prepare prepare);
  ~Server();  // stops (without grace) if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  Result<void> start();
  // Stops accepting; requests queued on the socket, in flight and queued for
  // a lane are answered, kept connections closed. After `grace`, work that no
  // thread has started is answered 503 and idle connections are closed; the
  // requests already running are let finish (their own limits bound them,
  // e.g. oauth_timeout_ms). Joins every thread it started; returns false
  // when the grace period was not enough.
  bool stop(std::chrono::milliseconds grace);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace authd
