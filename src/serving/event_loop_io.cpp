// One connection on the loop: readiness, reading and decoding its records,
// lending a complete request, output limits, deadlines.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "serving/event_loop_impl.hpp"
#include "fcgi/records.hpp"
#include "http/error_response.hpp"
#include "program/log.hpp"

namespace authd {

void EventLoop::Impl::arm(Connection& c) {
  std::uint32_t events = EPOLLRDHUP;
  // Output the web server does not take past the pause mark: read no
  // more of what would make more output (management records answer too).
  if (!c.close_after_write && c.pending_bytes() <= limits.output_pause_bytes) events |= EPOLLIN;
  if (c.output_pending()) events |= EPOLLOUT;
  if (!options.answers_inline) events |= EPOLLONESHOT;
  else if (c.registered && c.interest == events) return;
  set_interest(c, events);
}

void EventLoop::Impl::disarm(Connection& c) {
  if (!c.registered || (c.interest & EPOLLONESHOT)) return;
  epoll_event event{};
  event.events = EPOLLONESHOT;
  event.data.ptr = &c;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &event) != 0) log::warn("epoll_ctl: " + errno_text(errno));
  else c.interest = EPOLLONESHOT;
}

void EventLoop::Impl::set_interest(Connection& c, std::uint32_t events) {
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

void EventLoop::Impl::on_event(Connection& c, std::uint32_t events) {
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
      c.last_activity = turn_time;
      if (was_between) c.request_started = turn_time;
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
void EventLoop::Impl::process(Connection& c) {
  for (;;) {
    if (c.close_after_write || c.linger_until) {  // nothing more is decoded from a connection we are closing
      if (!c.flush()) close(c);
      return;
    }
    if (c.pending_bytes() > limits.output_pause_bytes) {  // decoded on once the web server reads
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
        c.request_started = turn_time;
        break;
      case fcgi::Step::Kind::ended:
        c.served = true;
        c.idle_since = turn_time;
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

// Unsent output past the hard limit: the web server does not read what it
// asks for (or a worker's answer landed on a full buffer). True if closed.
bool EventLoop::Impl::over_output_limit(Connection& c) {
  if (c.pending_bytes() <= limits.output_limit_bytes) return false;
  log::warn("closing a FastCGI connection with " + std::to_string(c.pending_bytes()) + " bytes of output unsent");
  close(c);
  return true;
}

// After the loop has done its part: close, or wait for the next event.
void EventLoop::Impl::settle(Connection& c) {
  if (c.failed) return close(c);
  if (c.close_after_write && !c.output_pending()) return close(c);
  if (stopping && c.between_requests() && !c.output_pending()) return close(c);
  arm(c);
}

// --- deadlines ----------------------------------------------------------------

void EventLoop::Impl::time_out(Connection& c, Clock::time_point now) {
  using Phase = fcgi::RequestParser::Phase;
  if (c.output_pending()) return close(c);  // the web server stopped taking the response
  if (c.linger_until) return;
  if (c.between_requests()) {
    if (now - c.idle_since >= limits.idle_connection_timeout) close(c);
    return;
  }
  if (now - c.request_started < limits.request_read_timeout) return;
  const Phase phase = c.parser.phase();
  if (phase == Phase::head || phase == Phase::body) {
    log::info("request not received within " + std::to_string(limits.request_read_timeout.count()) + " ms: answered 408");
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
  if (phase == Phase::drain) log::info("rest of a request answered early not received within " + std::to_string(limits.request_read_timeout.count()) + " ms: connection dropped");
  else log::info("request not received within " + std::to_string(limits.request_read_timeout.count()) + " ms: connection dropped");
  close(c);
}

void EventLoop::Impl::sweep(Clock::time_point now) {
  for (auto& c : connections) {
    if (c.lent || c.fd < 0) continue;
    if (c.linger_until && now >= *c.linger_until) {
      close(c);
      continue;
    }
    if (c.output_pending()) {
      if (now - c.write_progress >= limits.request_read_timeout) time_out(c, now);
      continue;
    }
    time_out(c, now);
  }
}

}  // namespace authd
