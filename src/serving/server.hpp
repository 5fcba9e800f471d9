// The FastCGI server: `event_loops` event loops (event_loop.hpp, one per
// core by default) that share the listening socket, each owning the
// connections it accepted and reading them without blocking. Each loop hands
// every request to `prepare` (api/router.cpp, which resolves it once): a
// request that cannot block (the guard, token checks, records, JWKS, health;
// on PostgreSQL the reads its caches answer) comes back answered, on the loop
// that read it. The others run on lanes (worker pools with a queue, see
// Lane in lane.hpp): the store threads (`workers`, for what must wait on a
// store reached over the network), password hashing, identity-provider
// calls; so that those can never hold a loop, and the slow ones never every
// thread. Their answers go back to the connection's loop.
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
  // Threads of the store lane (Lane::store; its queue is unbounded, as the
  // loops' backlog would be). 0 when the store never waits (on the network,
  // nor for a flush: Store::commits_wait): a store job then runs on the loop
  // (prepare makes none).
  unsigned workers = 0;
  unsigned hash_workers = 2;
  unsigned upstream_workers = 4;
  std::size_t queue_limit = 128;  // per lane (password, upstream); a full lane answers 503 + Retry-After
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
