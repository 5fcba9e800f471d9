#include "serving/connection.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <string>
#include <utility>

#include "serving/event_loop.hpp"
#include "fcgi/http_request.hpp"
#include "fcgi/records.hpp"
#include "http/error_response.hpp"

namespace authd {

bool Connection::flush() {
  const bool new_answer = out_pos == 0;
  bool progressed = false;
  while (output_pending()) {
    const ssize_t n = ::send(fd, out.data() + out_pos, out.size() - out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      out_pos += static_cast<std::size_t>(n);
      progressed = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // Output left for later: its stall clock starts now (a new answer) or
      // starts over (some of it went out). Read only here: most answers go
      // out whole, and then no clock is needed.
      if (new_answer || progressed) write_progress = Clock::now();
      return true;
    }
    failed = true;
    return false;
  }
  out.clear();
  out_pos = 0;
  if (out.capacity() > kKeptOutputCapacity) std::string().swap(out);
  return true;
}

Connection::Buffers Connection::release_buffers() noexcept {
  // Contents are left in: the constructor that takes them empties them.
  Buffers buffers{parser.release_input_buffer(), std::exchange(out, std::string())};
  for (std::string* buffer : {&buffers.input, &buffers.output}) {
    if (buffer->capacity() > kRecycledCapacity) *buffer = std::string();
  }
  return buffers;
}

// --- Lease -------------------------------------------------------------------

namespace {

http::Response stopping_answer() {
  return http::unrouted_error_response(Error::retry_later(Errc::unavailable, 1, "the server is stopping"));
}

}  // namespace

Lease::Lease(Lease&& other) noexcept : connection_(std::exchange(other.connection_, nullptr)) {}

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (connection_) answer(stopping_answer());
    connection_ = std::exchange(other.connection_, nullptr);
  }
  return *this;
}

Lease::~Lease() {
  if (connection_) answer(stopping_answer());
}

http::Request Lease::take_request() { return fcgi::to_http_request(std::move(connection_->request)); }

void Lease::answer(const http::Response& response) {
  Connection* c = std::exchange(connection_, nullptr);
  if (!c) return;
  // Serialized into a buffer this thread keeps, then framed into the
  // connection's output: no allocation per answer.
  thread_local std::string wire;
  wire.clear();
  http::serialize_into(wire, response);
  fcgi::append_response(c->out, c->request.id, wire);
  if (wire.capacity() > 65536) std::string().swap(wire);  // a large answer's buffer is not kept
  c->flush();  // most answers fit in the socket's buffer: written here, off the loop
  c->loop.give_back(*c);
}

}  // namespace authd
