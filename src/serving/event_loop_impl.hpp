// Internal to the event loop (event_loop*.cpp): its state and its parts.
//   event_loop.cpp         the loop itself, hand-back of answered connections,
//                          stopping, EventLoop's public face
//   event_loop_accept.cpp  accepting: the shared listening socket, the
//                          connection limit, FCGI_WEB_SERVER_ADDRS, closing
//   event_loop_io.cpp      one connection: readiness, reading and decoding,
//                          output limits, deadlines
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serving/connection.hpp"
#include "serving/event_loop.hpp"

namespace authd {

struct EventLoop::Impl final : ConnectionOwner {
  static constexpr int kMaxEvents = 256;
  static constexpr std::size_t kReadChunk = 65536;  // read per readiness event, for fairness between connections
  static constexpr int kAcceptBatch = 128;          // connections accepted per readiness event
  static constexpr int kDrainBatch = 65536;         // at most this many more once stopping (TCP may never run dry)
  static constexpr auto kSweepEvery = std::chrono::milliseconds(50);
  static constexpr auto kAcceptPause = std::chrono::milliseconds(100);  // after EMFILE and the like
  static constexpr std::size_t kSpareConnections = 64;  // closed ones kept for reuse (a connection per request: lighttpd)

  explicit Impl(const fcgi::Limits& serving) noexcept : limits(serving) {}

  const fcgi::Limits& limits;  // the Server's (EventLoop::create)
  LoopOptions options;
  Dispatch dispatch;
  int epoll_fd = -1;
  int wake_fd = -1;
  bool listening = true;
  bool listen_registered = false;  // the listening socket is in this loop's epoll set
  bool unix_socket = false;
  std::thread::id loop_thread;     // set by run(): answers given on it need no wake-up
  Clock::time_point accept_paused_until{};
  bool accept_paused = false;
  std::list<Connection> connections;
  std::size_t open_count = 0;  // connections not closed (the buried ones aside)
  bool at_capacity = false;    // open_count reached limits.max_connections: not accepting
  std::vector<std::list<Connection>::iterator> closed;
  std::list<Connection> spare;  // buried connections whose nodes and buffers the next ones take over
  std::size_t lent_count = 0;
  std::vector<char> scratch = std::vector<char>(kReadChunk);
  Clock::time_point next_sweep{};
  // The loop's clock, read once per turn when epoll_wait returns: what the
  // connections' deadlines count from (seconds), not worth a clock read per
  // request.
  Clock::time_point turn_time{};

  std::atomic<bool> stop_requested{false};
  std::atomic<bool> abandon_requested{false};
  bool stopping = false;
  bool abandoning = false;

  std::mutex completed_mutex;
  std::vector<Connection*> completed;      // handed back by lane threads (under the mutex)
  std::atomic<bool> completed_waiting{false};  // `completed` may not be empty: worth taking the mutex
  std::vector<Connection*> answered_here;  // handed back on this loop's thread: no lock
  std::vector<Connection*> spare_batch;    // keeps the hand-back batches' capacity

  // epoll's user data: the listening socket and the wake-up eventfd are told
  // apart from connections by these two addresses.
  char listen_tag = 0;
  char wake_tag = 0;

  ~Impl();

  static std::string errno_text(int error);  // strerror as a std::string

  void wake();
  // Called when a request has been answered: the connection comes back. An
  // answer given inline (on this loop's thread) is taken back before the
  // loop waits again; a lane thread's answer wakes the loop.
  void give_back(Connection& connection) override;

  // --- readiness, reading, decoding (event_loop_io.cpp) ----------------------

  // Level-triggered interest, changed only when it must be: a request
  // answered inline leaves it as it was, so serving one costs no epoll_ctl.
  // (One-shot, re-armed after every event, when requests go to workers:
  // options.answers_inline false.)
  void arm(Connection& c);
  // A connection lent to a lane (or a worker) produces no event until it is
  // back: at most one hang-up or error (epoll always reports those), ignored.
  // Called on the loop's thread while another may be answering: it must not
  // close the connection, so a failure is only logged.
  void disarm(Connection& c);
  void set_interest(Connection& c, std::uint32_t events);
  void on_event(Connection& c, std::uint32_t events);
  // Decodes what has arrived; lends a complete request to a worker.
  void process(Connection& c);

  // After an early answer (408, 413, ...) on a connection that is not kept:
  // a web server still streaming the request body must be able to read the
  // answer instead of failing on a closed socket (Apache's mod_proxy_fcgi
  // reads one record per body chunk it forwards, and answers 503 if the
  // socket is gone), so the connection stays open, its input dropped, until
  // the web server closes it or one more read timeout has passed.
  void linger(Connection& c) { c.linger_until = Clock::now() + limits.request_read_timeout; }

  // Unsent output past the hard limit: the web server does not read what it
  // asks for (or a worker's answer landed on a full buffer). True if closed.
  bool over_output_limit(Connection& c);
  // After the loop has done its part: close, or wait for the next event.
  void settle(Connection& c);

  // --- deadlines (event_loop_io.cpp) ------------------------------------------

  void time_out(Connection& c, Clock::time_point now);
  void sweep(Clock::time_point now);

  // --- accepting and closing (event_loop_accept.cpp) -------------------------

  void close(Connection& c);
  // A new connection on `fd`, counted open: a spare one made anew, or a new one.
  Connection& open_connection(int fd);
  // This loop's share of max_connections (the process-wide limit).
  std::size_t connection_cap() const { return options.loop_connection_limit ? options.loop_connection_limit : limits.max_connections; }
  // Erases the connections closed this turn, keeping up to
  // kSpareConnections of them for open_connection to reuse.
  void bury_closed();

  // The listening socket is shared by every loop of the process, each
  // polling it with EPOLLEXCLUSIVE (a new connection wakes one waiting loop,
  // not all of them). An exclusive entry cannot be modified, only removed
  // and added again.
  void set_listen_interest(bool on);
  // Whether the peer is one of web_server_addrs (any when none is set).
  bool peer_allowed(int fd) const;
  // Takes the connections waiting on the socket (all of them when draining).
  void accept_connections(bool drain);

  // --- hand-back, stopping, the loop (event_loop.cpp) ------------------------

  void take_back(Connection& c);
  // Until none is left: taking a connection back may decode its next request
  // and answer that inline, which gives the connection back once more.
  void take_back_completed();
  void begin_stop();
  void begin_abandon();
  bool finished() const { return stopping && !listening && (connections.empty() || (abandoning && lent_count == 0)); }
  int wait_timeout_ms(Clock::time_point now) const;
  void run();
};

}  // namespace authd
