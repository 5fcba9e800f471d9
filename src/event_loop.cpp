#include "event_loop.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

#include "connection.hpp"
#include "fcgi/records.hpp"
#include "http/error_response.hpp"
#include "log.hpp"

namespace authd {
namespace {

constexpr int kMaxEvents = 256;
constexpr std::size_t kReadChunk = 65536;     // read per readiness event, for fairness between connections
constexpr int kAcceptBatch = 128;             // connections accepted per readiness event
constexpr int kDrainBatch = 65536;            // at most this many more once stopping (TCP may never run dry)
constexpr auto kSweepEvery = std::chrono::milliseconds(50);
constexpr auto kAcceptPause = std::chrono::milliseconds(100);  // after EMFILE and the like

std::string errno_text(int error) { return std::strerror(error); }

// The peer's address in canonical text form, "" for a non-IP socket.
std::string peer_address(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
  } else if (address.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text, sizeof text);
  }
  return text;
}

std::string canonical_address(const std::string& text) {
  unsigned char bytes[sizeof(in6_addr)];
  char out[INET6_ADDRSTRLEN] = {};
  if (::inet_pton(AF_INET, text.c_str(), bytes) == 1) return ::inet_ntop(AF_INET, bytes, out, sizeof out);
  if (::inet_pton(AF_INET6, text.c_str(), bytes) == 1) return ::inet_ntop(AF_INET6, bytes, out, sizeof out);
  return text;
}

}  // namespace

struct EventLoop::Impl final : ConnectionOwner {
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
  bool at_capacity = false;    // open_count reached limits.max_conns: not accepting
  std::vector<std::list<Connection>::iterator> closed;
  std::size_t lent_count = 0;
  std::vector<char> scratch = std::vector<char>(kReadChunk);
  Clock::time_point next_sweep{};

  std::atomic<bool> stop_requested{false};
  std::atomic<bool> abandon_requested{false};
  bool stopping = false;
  bool abandoning = false;

  std::mutex completed_mutex;
  std::vector<Connection*> completed;  // handed back by workers

  // epoll's user data: the listening socket and the wake-up eventfd are told
  // apart from connections by these two addresses.
  char listen_tag = 0;
  char wake_tag = 0;

  ~Impl() {
    for (auto& c : connections) {
      if (c.fd >= 0) ::close(c.fd);
    }
    if (wake_fd >= 0) ::close(wake_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
  }

  void wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(wake_fd, &one, sizeof one);
  }

  // Called when a request has been answered: the connection comes back. An
  // answer given inline (on this loop's thread) is taken back before the
  // loop waits again; a lane thread's answer wakes the loop.
  void give_back(Connection& connection) override {
    Connection* c = &connection;
    bool was_empty = false;
    {
      std::lock_guard lock(completed_mutex);
      was_empty = completed.empty();
      completed.push_back(c);
    }
    if (was_empty && std::this_thread::get_id() != loop_thread) wake();
  }

  // --- readiness -------------------------------------------------------------

  // Level-triggered interest, changed only when it must be: a request
  // answered inline leaves it as it was, so serving one costs no epoll_ctl.
  // (One-shot, re-armed after every event, when requests go to workers.)
  void arm(Connection& c) {
    std::uint32_t events = EPOLLRDHUP;
    // Output the web server does not take past the pause mark: read no
    // more of what would make more output (management records answer too).
    if (!c.close_after_write && c.pending_bytes() <= options.output_pause_bytes) events |= EPOLLIN;
    if (c.output_pending()) events |= EPOLLOUT;
    if (!options.answers_inline) events |= EPOLLONESHOT;
    else if (c.registered && c.interest == events) return;
    set_interest(c, events);
  }

  // A connection lent to a lane (or a worker) produces no event until it is
  // back: at most one hang-up or error (epoll always reports those), ignored.
  // Called on the loop's thread while another may be answering: it must not
  // close the connection, so a failure is only logged.
  void disarm(Connection& c) {
    if (!c.registered || (c.interest & EPOLLONESHOT)) return;
    epoll_event event{};
    event.events = EPOLLONESHOT;
    event.data.ptr = &c;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &event) != 0) log::warn("epoll_ctl: " + errno_text(errno));
    else c.interest = EPOLLONESHOT;
  }

  void set_interest(Connection& c, std::uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.ptr = &c;
    const int op = c.registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (::epoll_ctl(epoll_fd, op, c.fd, &event) != 0) {
      log::warn("epoll_ctl: " + errno_text(errno));
      close(c);
      return;
    }
    c.registered = true;
    c.interest = events;
  }

  void close(Connection& c) {
    if (c.fd < 0) return;
    ::close(c.fd);  // also takes it out of the epoll set
    c.fd = -1;
    closed.push_back(c.self);
    --open_count;
    if (at_capacity && open_count < connection_cap()) {
      at_capacity = false;
      if (listening && !accept_paused) set_listen_interest(true);
    }
  }

  // This loop's share of max_connections (the process-wide limit).
  std::size_t connection_cap() const { return options.loop_connection_limit ? options.loop_connection_limit : options.limits.max_conns; }

  void bury_closed() {
    for (auto it : closed) connections.erase(it);
    closed.clear();
  }

  // --- accepting -------------------------------------------------------------

  // The listening socket is shared by every loop of the process, each
  // polling it with EPOLLEXCLUSIVE (a new connection wakes one waiting loop,
  // not all of them). An exclusive entry cannot be modified, only removed
  // and added again.
  void set_listen_interest(bool on) {
    if (on == listen_registered) return;
    if (!on) {
      ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, options.listen_fd, nullptr);
      listen_registered = false;
      return;
    }
    epoll_event event{};
    event.events = EPOLLIN | EPOLLEXCLUSIVE;
    event.data.ptr = &listen_tag;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, options.listen_fd, &event) == 0) listen_registered = true;
    else log::warn("epoll_ctl on the FastCGI socket: " + errno_text(errno));
  }

  bool peer_allowed(int fd) const {
    if (options.web_server_addrs.empty()) return true;
    const std::string peer = peer_address(fd);
    if (peer.empty()) return true;  // a unix socket: its file mode decides
    return std::any_of(options.web_server_addrs.begin(), options.web_server_addrs.end(),
                       [&](const std::string& allowed) { return canonical_address(allowed) == peer; });
  }

  // Takes the connections waiting on the socket (all of them when draining).
  void accept_connections(bool drain) {
    const int batch = drain ? kDrainBatch : kAcceptBatch;
    for (int i = 0; i < batch; ++i) {
      // The limit told to the web server (FCGI_MAX_CONNS) is kept: at it,
      // new connections wait in the kernel's backlog until one closes.
      // (A stop drains past it: those already queued are answered.)
      if (!drain && open_count >= connection_cap()) {
        if (!at_capacity) log::warn("at max_connections (" + std::to_string(options.limits.max_conns) + "): new connections wait");
        at_capacity = true;
        set_listen_interest(false);
        return;
      }
      const int fd = ::accept4(options.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        // Out of descriptors or memory: give the kernel's queue a rest
        // instead of spinning on a socket that stays readable.
        log::warn("accept failed: " + errno_text(errno) + "; pausing new connections briefly");
        accept_paused = true;
        accept_paused_until = Clock::now() + kAcceptPause;
        set_listen_interest(false);
        return;
      }
      if (!unix_socket) {
        const int on = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        if (!peer_allowed(fd)) {
          ::close(fd);
          continue;
        }
      }
      auto& c = connections.emplace_back(*this, fd, options.limits, Clock::now());
      c.self = std::prev(connections.end());
      ++open_count;
      arm(c);
    }
  }

  // --- one connection --------------------------------------------------------

  void on_event(Connection& c, std::uint32_t events) {
    if ((events & EPOLLOUT) && c.output_pending() && !c.flush()) return close(c);
    bool peer_closed = false;
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
      const bool was_between = c.between_requests();
      std::size_t total = 0;
      while (total < kReadChunk) {
        const ssize_t n = ::read(c.fd, scratch.data(), scratch.size());
        if (n > 0) {
          if (!c.linger_until) c.parser.append(std::string_view(scratch.data(), static_cast<std::size_t>(n)));
          total += static_cast<std::size_t>(n);
          // A short read emptied the socket: asking again would only say EAGAIN
          // (what arrives meanwhile, or the peer's close, wakes epoll again).
          if (static_cast<std::size_t>(n) < scratch.size()) break;
          continue;
        }
        if (n == 0) peer_closed = true;
        else if (errno == EINTR) continue;
        else if (errno != EAGAIN && errno != EWOULDBLOCK) return close(c);
        break;
      }
      if (total > 0) {
        c.last_activity = Clock::now();
        if (was_between) c.request_started = c.last_activity;
      }
    }
    process(c);
    if (c.lent) {
      if (peer_closed) c.close_after_write = true;
      take_back_completed();  // answered inline: back now, its interest unchanged
      if (c.fd >= 0 && c.lent) disarm(c);
      return;
    }
    if (c.fd < 0 || over_output_limit(c)) return;
    if (peer_closed) return close(c);
    settle(c);
  }

  // Decodes what has arrived; lends a complete request to a worker.
  void process(Connection& c) {
    for (;;) {
      if (c.close_after_write || c.linger_until) {  // nothing more is decoded from a connection we are closing
        if (!c.flush()) close(c);
        return;
      }
      if (c.pending_bytes() > options.output_pause_bytes) {  // decoded on once the web server reads
        if (!c.flush()) close(c);
        return;
      }
      fcgi::Step step = c.parser.next(c.out);
      switch (step.kind) {
        case fcgi::Step::Kind::need_more:
          if (!c.flush()) close(c);
          return;
        case fcgi::Step::Kind::request:
          c.request = c.parser.take_request();
          c.lent = true;
          if (!c.request.keep_conn || stopping) c.close_after_write = true;
          ++lent_count;
          dispatch(Lease(&c));  // from here on the worker owns c (pending output included)
          return;
        case fcgi::Step::Kind::reject:
          // Its FCGI_END_REQUEST comes with the `ended` step, maybe only once
          // the rest of the request was dropped: that gets a read timeout of its own.
          fcgi::append_stream(c.out, fcgi::RecordType::stdout_, c.parser.request_id(),
                              http::serialize(http::unrouted_error_response(*step.error)));
          c.request_started = Clock::now();
          break;
        case fcgi::Step::Kind::ended:
          c.served = true;
          c.idle_since = Clock::now();
          if (!step.keep_conn) linger(c);
          else if (stopping) c.close_after_write = true;
          break;
        case fcgi::Step::Kind::broken:
          log::debug("closing a FastCGI connection: " + step.error->message);
          c.flush();  // an answer already given may still get through
          return close(c);
      }
    }
  }

  // After an early answer (408, 413, ...) on a connection that is not kept:
  // a web server still streaming the request body must be able to read the
  // answer instead of failing on a closed socket (Apache's mod_proxy_fcgi
  // reads one record per body chunk it forwards, and answers 503 if the
  // socket is gone), so the connection stays open, its input dropped, until
  // the web server closes it or one more read timeout has passed.
  void linger(Connection& c) { c.linger_until = Clock::now() + options.read_timeout; }

  // Unsent output past the hard limit: the web server does not read what it
  // asks for (or a worker's answer landed on a full buffer). True if closed.
  bool over_output_limit(Connection& c) {
    if (c.pending_bytes() <= options.output_limit_bytes) return false;
    log::warn("closing a FastCGI connection with " + std::to_string(c.pending_bytes()) + " bytes of output unsent");
    close(c);
    return true;
  }

  // After the loop has done its part: close, or wait for the next event.
  void settle(Connection& c) {
    if (c.failed) return close(c);
    if (c.close_after_write && !c.output_pending()) return close(c);
    if (stopping && c.between_requests() && !c.output_pending()) return close(c);
    arm(c);
  }

  void take_back(Connection& c) {
    c.lent = false;
    --lent_count;
    c.served = true;
    c.last_activity = Clock::now();
    c.idle_since = c.last_activity;
    if (c.failed || abandoning) return close(c);
    if (over_output_limit(c)) return;
    if (!c.output_pending() && !c.close_after_write && c.parser.has_buffered_bytes()) {
      c.request_started = c.last_activity;  // the web server sent the next request already
      process(c);
      if (c.fd < 0 || c.lent) return;
    }
    settle(c);
  }

  // Until none is left: taking a connection back may decode its next request
  // and answer that inline, which gives the connection back once more.
  void take_back_completed() {
    std::vector<Connection*> batch;
    for (;;) {
      {
        std::lock_guard lock(completed_mutex);
        batch.swap(completed);
      }
      if (batch.empty()) return;
      for (Connection* c : batch) take_back(*c);
      batch.clear();
    }
  }

  // --- deadlines -------------------------------------------------------------

  void time_out(Connection& c, Clock::time_point now) {
    using Phase = fcgi::RequestParser::Phase;
    if (c.output_pending()) return close(c);  // the web server stopped taking the response
    if (c.linger_until) return;
    if (c.between_requests()) {
      if (now - c.idle_since >= options.idle_timeout) close(c);
      return;
    }
    if (now - c.request_started < options.read_timeout) return;
    const Phase phase = c.parser.phase();
    if (phase == Phase::head || phase == Phase::body) {
      log::info("request not received within " + std::to_string(options.read_timeout.count()) + " ms: answered 408");
      c.parser.abandon_request();  // over: what still comes of it is skipped
      fcgi::append_response(c.out, c.parser.request_id(),
                            http::serialize(http::unrouted_error_response(Error(Errc::too_slow, "request read timed out"))));
      c.served = true;
      // Ended at once, unlike an early answer (class 5): the read timeout
      // that bounds the drain is over, and a web server streaming a stalled
      // client's body (Apache) needs the end to answer its client; one that
      // buffers bodies (H2O, nginx) is not writing now. What still comes of
      // the request is skipped.
      if (!c.parser.keep_conn()) linger(c);
      if (!c.flush()) return close(c);
      return settle(c);
    }
    if (phase == Phase::drain) log::info("rest of a request answered early not received within " + std::to_string(options.read_timeout.count()) + " ms: connection dropped");
    else log::info("request not received within " + std::to_string(options.read_timeout.count()) + " ms: connection dropped");
    close(c);
  }

  void sweep(Clock::time_point now) {
    for (auto& c : connections) {
      if (c.lent || c.fd < 0) continue;
      if (c.linger_until && now >= *c.linger_until) {
        close(c);
        continue;
      }
      if (c.output_pending()) {
        if (now - c.write_progress >= options.read_timeout) time_out(c, now);
        continue;
      }
      time_out(c, now);
    }
  }

  // --- stopping --------------------------------------------------------------

  void begin_stop() {
    stopping = true;
    // A unix socket stops taking new connections at once (the web server
    // sees the backend as down) while those already queued stay acceptable;
    // on TCP the same call would reset them, so there we only stop polling.
    if (unix_socket) ::shutdown(options.listen_fd, SHUT_RD);
    accept_connections(/*drain=*/true);
    set_listen_interest(false);
    listening = false;
    for (auto& c : connections) {
      if (c.lent || c.fd < 0 || !c.between_requests() || c.output_pending()) continue;
      // A request the web server sent on a kept connection just before the
      // stop may not have been read yet: it is in flight, so it is answered.
      on_event(c, EPOLLIN);
      if (c.fd >= 0 && !c.lent && c.between_requests() && !c.output_pending()) close(c);
    }
  }

  void begin_abandon() {
    abandoning = true;
    for (auto& c : connections) {
      if (!c.lent && c.fd >= 0) close(c);
    }
  }

  bool finished() const { return stopping && !listening && (connections.empty() || (abandoning && lent_count == 0)); }

  int wait_timeout_ms(Clock::time_point now) const {
    if (connections.empty() && !accept_paused) return -1;
    const auto until = accept_paused ? std::min(next_sweep, accept_paused_until) : next_sweep;
    return static_cast<int>(std::clamp<std::int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1, 0, kSweepEvery.count()));
  }

  void run() {
    loop_thread = std::this_thread::get_id();
    epoll_event events[kMaxEvents];
    next_sweep = Clock::now() + kSweepEvery;
    while (!finished()) {
      const int n = ::epoll_wait(epoll_fd, events, kMaxEvents, wait_timeout_ms(Clock::now()));
      if (n < 0 && errno != EINTR) {
        log::error("epoll_wait: " + errno_text(errno));
        break;
      }
      for (int i = 0; i < n; ++i) {
        void* tag = events[i].data.ptr;
        if (tag == &listen_tag) {
          if (listening) accept_connections(false);
        } else if (tag == &wake_tag) {
          std::uint64_t count = 0;
          [[maybe_unused]] const auto r = ::read(wake_fd, &count, sizeof count);
        } else {
          auto* c = static_cast<Connection*>(tag);
          if (c->fd >= 0 && !c->lent) on_event(*c, events[i].events);
        }
      }
      take_back_completed();
      if (stop_requested.load() && !stopping) begin_stop();
      if (abandon_requested.load() && !abandoning) begin_abandon();
      take_back_completed();  // what the stop answered inline
      const auto now = Clock::now();
      if (accept_paused && listening && now >= accept_paused_until) {
        accept_paused = false;
        if (!at_capacity) set_listen_interest(true);
      }
      if (now >= next_sweep) {
        sweep(now);
        next_sweep = now + kSweepEvery;
      }
      bury_closed();
    }
    // Whatever is left now is not with a worker (abandoned, or epoll failed).
    for (auto& c : connections) {
      if (!c.lent) close(c);
    }
    bury_closed();
  }
};

// --- EventLoop ----------------------------------------------------------------

Result<std::unique_ptr<EventLoop>> EventLoop::create(LoopOptions options, Dispatch dispatch) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->dispatch = std::move(dispatch);
  const int listen_fd = impl->options.listen_fd;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return fail(Errc::io, "the FastCGI socket: " + errno_text(errno));
  }
  impl->unix_socket = address.ss_family == AF_UNIX;
  const int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return fail(Errc::io, "the FastCGI socket: " + errno_text(errno));
  }
  impl->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->epoll_fd < 0 || impl->wake_fd < 0) return fail(Errc::io, "epoll/eventfd: " + errno_text(errno));
  epoll_event event{};
  event.events = EPOLLIN | EPOLLEXCLUSIVE;
  event.data.ptr = &impl->listen_tag;
  if (::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, listen_fd, &event) != 0) {
    return fail(Errc::io, "epoll_ctl on the FastCGI socket: " + errno_text(errno));
  }
  impl->listen_registered = true;
  event.events = EPOLLIN;
  event.data.ptr = &impl->wake_tag;
  if (::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &event) != 0) {
    return fail(Errc::io, "epoll_ctl on the eventfd: " + errno_text(errno));
  }
  return std::unique_ptr<EventLoop>(new EventLoop(std::move(impl)));
}

EventLoop::EventLoop(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EventLoop::~EventLoop() = default;

void EventLoop::run() { impl_->run(); }

void EventLoop::stop() {
  impl_->stop_requested = true;
  impl_->wake();
}

void EventLoop::abandon() {
  impl_->stop_requested = true;
  impl_->abandon_requested = true;
  impl_->wake();
}

}  // namespace authd
