// FastCGI connections on one event loop (epoll); a server runs one loop per
// core, all accepting from the same socket (EPOLLEXCLUSIVE). A loop accepts,
// reads every connection without blocking, decodes records as they arrive
// (fcgi::RequestParser), and hands a request on (Dispatch: answered inline,
// or lent to a lane's thread) only once the whole of it is in: a kept-alive
// connection waiting for its next request, or a web server trickling a body,
// costs a buffer and a descriptor, never a thread. Every request must arrive
// within `request_read_timeout` of its first byte (of the accept, for a new
// connection): a late one is answered 408 once its FCGI_BEGIN_REQUEST has
// come (there is a request id to answer), else the connection is dropped. A
// response the web server stops taking for that long is dropped too. Bounds
// per connection: see fcgi::Limits.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "authd/error.hpp"
#include "fcgi/request_parser.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace authd {

struct Connection;  // connection.hpp

// A complete request, answered on the loop that read it or lent to a lane's
// thread. answer() sends the response (as much as the socket takes at once;
// the loop writes the rest) and gives the connection back to its loop. A Lease dropped unanswered answers 503: that
// only happens to queued work a stop gives up on.
class Lease {
 public:
  Lease() = default;
  Lease(Lease&& other) noexcept;
  Lease& operator=(Lease&& other) noexcept;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease();

  // The request (once: it is moved out).
  http::Request take_request();
  void answer(const http::Response& response);

 private:
  friend class EventLoop;
  explicit Lease(Connection* connection) noexcept : connection_(connection) {}
  Connection* connection_ = nullptr;
};

// The limits (fcgi/limits.hpp) are not among these: create() takes them by
// reference, with max_connections resolved (not 0), and the loop reads them
// for its whole life.
struct LoopOptions {
  int listen_fd = -1;
  // limits.max_connections is also the most connections open at once: at it,
  // the loop stops accepting until one closes (new ones wait in the backlog).
  // Several loops on one socket split it: loop_connection_limit is this
  // loop's share (0: all of it).
  std::size_t loop_connection_limit = 0;
  // FCGI_WEB_SERVER_ADDRS as libfcgi reads it: on a TCP socket, accept only
  // these peer addresses (empty: any).
  std::vector<std::string> web_server_addrs;
  // Dispatch usually answers on the loop's thread: a connection's epoll
  // interest then stays as it is from one request to the next. When most
  // requests go to other threads (false), it is one-shot instead, so a lent
  // connection is disarmed by its own event, without a system call.
  bool answers_inline = true;
};

class EventLoop {
 public:
  // Runs on the loop thread for every complete request; must not block
  // (it may answer the Lease at once: an inline answer).
  using Dispatch = std::function<void(Lease)>;

  // `limits` must outlive the loop.
  static Result<std::unique_ptr<EventLoop>> create(const fcgi::Limits& limits, LoopOptions options, Dispatch dispatch);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // The loop itself: returns once stop() was called and every connection is
  // closed (after abandon(): once no connection is lent to a worker).
  void run();

  // Thread-safe. Stop accepting (connections already queued on the socket are
  // still taken), answer every request in flight, close kept connections.
  void stop();
  // Thread-safe. Close every connection that is not with a worker now.
  void abandon();

  struct Impl;

 private:
  explicit EventLoop(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace authd
