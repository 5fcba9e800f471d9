#include "serving/event_loop.hpp"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "serving/event_loop_impl.hpp"
#include "program/log.hpp"

namespace authd {

std::string EventLoop::Impl::errno_text(int error) { return std::strerror(error); }

EventLoop::Impl::~Impl() {
  for (auto& c : connections) {
    if (c.fd >= 0) ::close(c.fd);
  }
  if (wake_fd >= 0) ::close(wake_fd);
  if (epoll_fd >= 0) ::close(epoll_fd);
}

void EventLoop::Impl::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(wake_fd, &one, sizeof one);
}

// Called when a request has been answered: the connection comes back. An
// answer given inline (on this loop's thread) is taken back before the
// loop waits again; a lane thread's answer wakes the loop.
void EventLoop::Impl::give_back(Connection& connection) {
  if (std::this_thread::get_id() == loop_thread) {
    answered_here.push_back(&connection);
    return;
  }
  bool was_empty = false;
  {
    std::lock_guard lock(completed_mutex);
    was_empty = completed.empty();
    completed.push_back(&connection);
    completed_waiting.store(true, std::memory_order_release);
  }
  if (was_empty) wake();
}

// --- hand-back ----------------------------------------------------------------

void EventLoop::Impl::take_back(Connection& c) {
  c.lent = false;
  --lent_count;
  c.served = true;
  c.last_activity = turn_time;
  c.idle_since = turn_time;
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
void EventLoop::Impl::take_back_completed() {
  std::vector<Connection*> batch;
  batch.swap(spare_batch);
  for (;;) {
    batch.clear();
    if (!answered_here.empty()) {
      batch.swap(answered_here);
    } else if (completed_waiting.load(std::memory_order_acquire)) {
      // Set by a lane thread before it wakes the loop: one not seen on this
      // turn is seen on the next, which its wake-up starts.
      std::lock_guard lock(completed_mutex);
      batch.swap(completed);
      completed_waiting.store(false, std::memory_order_relaxed);
    }
    if (batch.empty()) break;
    for (Connection* c : batch) take_back(*c);
  }
  spare_batch.swap(batch);
}

// --- stopping -----------------------------------------------------------------

void EventLoop::Impl::begin_stop() {
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

void EventLoop::Impl::begin_abandon() {
  abandoning = true;
  for (auto& c : connections) {
    if (!c.lent && c.fd >= 0) close(c);
  }
}

// --- the loop -----------------------------------------------------------------

int EventLoop::Impl::wait_timeout_ms(Clock::time_point now) const {
  if (connections.empty() && !accept_paused) return -1;
  const auto until = accept_paused ? std::min(next_sweep, accept_paused_until) : next_sweep;
  return static_cast<int>(std::clamp<std::int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1, 0, kSweepEvery.count()));
}

void EventLoop::Impl::run() {
  loop_thread = std::this_thread::get_id();
  epoll_event events[kMaxEvents];
  turn_time = Clock::now();
  next_sweep = turn_time + kSweepEvery;
  while (!finished()) {
    const int n = ::epoll_wait(epoll_fd, events, kMaxEvents, wait_timeout_ms(turn_time));
    turn_time = Clock::now();
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
    turn_time = Clock::now();  // for the wait's timeout too
    const auto now = turn_time;
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

// --- EventLoop ----------------------------------------------------------------

Result<std::unique_ptr<EventLoop>> EventLoop::create(const fcgi::Limits& limits, LoopOptions options, Dispatch dispatch) {
  auto impl = std::make_unique<Impl>(limits);
  impl->options = std::move(options);
  impl->dispatch = std::move(dispatch);
  const int listen_fd = impl->options.listen_fd;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return fail(Errc::io, "the FastCGI socket: " + Impl::errno_text(errno));
  }
  impl->unix_socket = address.ss_family == AF_UNIX;
  const int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return fail(Errc::io, "the FastCGI socket: " + Impl::errno_text(errno));
  }
  impl->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->epoll_fd < 0 || impl->wake_fd < 0) return fail(Errc::io, "epoll/eventfd: " + Impl::errno_text(errno));
  epoll_event event{};
  event.events = EPOLLIN | EPOLLEXCLUSIVE;
  event.data.ptr = &impl->listen_tag;
  if (::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, listen_fd, &event) != 0) {
    return fail(Errc::io, "epoll_ctl on the FastCGI socket: " + Impl::errno_text(errno));
  }
  impl->listen_registered = true;
  event.events = EPOLLIN;
  event.data.ptr = &impl->wake_tag;
  if (::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &event) != 0) {
    return fail(Errc::io, "epoll_ctl on the eventfd: " + Impl::errno_text(errno));
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
