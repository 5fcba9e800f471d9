// One FastCGI connection of the event loop (event_loop*.cpp), and what a
// worker may do with it while it holds it through a Lease (event_loop.hpp).
// Internal to the server: nothing outside src/event_loop*.cpp and
// src/serving/connection.cpp includes this.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <utility>

#include "fcgi/request_parser.hpp"

namespace authd {

using Clock = std::chrono::steady_clock;

struct Connection;

// The event loop, as a connection sees it: where a worker gives it back.
class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  // Thread-safe: called by the worker that has answered.
  virtual void give_back(Connection& connection) = 0;
};

// Owned by the loop; while `lent` a worker holds it through a Lease and the
// loop touches nothing but `lent` (the queues' mutexes order the hand-over
// both ways). A worker touches only `request`, `out`/`out_pos` (through
// flush), `write_progress` and `failed`.
struct Connection {
  // The buffers a closed connection hands on to one opened later in its
  // place (EventLoop::Impl::open_connection): their capacity, not their
  // contents, so that a connection per request allocates none.
  struct Buffers {
    std::string input;
    std::string output;
  };

  Connection(ConnectionOwner& owner, int socket, const fcgi::Limits& limits, Clock::time_point now, Buffers recycled = {}) noexcept
      : loop(owner), fd(socket), parser(limits, std::move(recycled.input)), out(std::move(recycled.output)),
        request_started(now), last_activity(now), idle_since(now), write_progress(now) {
    out.clear();
  }

  // What the output buffer keeps of its capacity once all of it is written.
  static constexpr std::size_t kKeptOutputCapacity = 65536;

  // What a closed connection hands on of each buffer's capacity (a kept
  // spare connection holds at most that much; below the kept capacities,
  // kKeptOutputCapacity and fcgi::RequestParser's kKeptInputCapacity, because
  // a spare serves no one).
  static constexpr std::size_t kRecycledCapacity = 8192;

  // Its buffers for a connection made later (once it is closed; the
  // constructor empties them); one grown past kRecycledCapacity is let go.
  Buffers release_buffers() noexcept;

  ConnectionOwner& loop;
  int fd;
  fcgi::RequestParser parser;
  std::string out;  // encoded records not yet written
  std::size_t out_pos = 0;
  bool registered = false;
  std::uint32_t interest = 0;  // the epoll events it is registered for (EPOLLONESHOT alone: disarmed)
  bool lent = false;
  bool served = false;             // answered at least one request
  bool close_after_write = false;  // the web server does not keep it, or we stop
  bool failed = false;             // a write failed: close
  // Answered early on a connection that is not kept: its input is read and
  // dropped until the web server closes it, at most until then.
  std::optional<Clock::time_point> linger_until;
  fcgi::Request request;  // the request being lent
  Clock::time_point request_started;
  Clock::time_point last_activity;
  Clock::time_point idle_since;  // the last request's end (or the accept): what the idle timeout counts from
  Clock::time_point write_progress;
  std::list<Connection>::iterator self;

  bool output_pending() const noexcept { return out_pos < out.size(); }
  std::size_t pending_bytes() const noexcept { return out.size() - out_pos; }
  // Waiting for a request with nothing of it received.
  bool between_requests() const noexcept {
    return served && !linger_until && parser.phase() == fcgi::RequestParser::Phase::idle && !parser.has_buffered_bytes();
  }

  // Writes what the socket takes now (never blocks). False when the
  // connection failed.
  bool flush();
};

}  // namespace authd
