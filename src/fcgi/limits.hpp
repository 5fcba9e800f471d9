// The serving limits: what one FastCGI connection and the requests on it may
// hold, each with its default written here once. The settings bind to these
// fields (program/server_settings.cpp: the setting of the same name, timeouts with
// _ms), ServerOptions carries them to the Server, which holds the one copy
// it serves with (max_connections resolved, Server::start); the event loops,
// their connections and the codec (RequestParser) read that copy by
// reference.
//
// It lives in the codec's folder because the codec checks four of them as
// bytes arrive (parameters, body, input dropped after an early answer, and
// FCGI_MAX_CONNS in FCGI_GET_VALUES_RESULT) and must include nothing of
// authd outside src/fcgi; the others are bounds on the same FastCGI
// connections, kept by the event loop, and none is an authd notion. A codec
// of its own plus a struct above it would write the shared fields twice.
#pragma once

#include <chrono>
#include <cstddef>

namespace authd::fcgi {

struct Limits {
  // A request must arrive whole within this time of its first byte (of the
  // accept, for a new connection): after it, one whose FCGI_BEGIN_REQUEST
  // came is answered 408, any other connection is dropped. A response the
  // web server stops taking for this long is dropped too.
  std::chrono::milliseconds request_read_timeout{10000};
  // Connections open at once, told to the web server as FCGI_MAX_CONNS (and
  // FCGI_MAX_REQS: one request per connection); at it, new ones wait in the
  // socket's backlog. 0 = the open-file limit less 64, put in by the Server
  // before any connection opens (the codec tells what it holds).
  unsigned max_connections = 0;
  // A kept connection with no request for this long is closed (longer than
  // nginx's and Apache's own idle limits, so they normally close first).
  // Management records (FCGI_GET_VALUES...) do not count as use.
  std::chrono::milliseconds idle_connection_timeout{std::chrono::minutes(5)};
  // Unsent output of one connection: above the first, the loop stops reading
  // and decoding it until the web server takes some; above the second (a
  // worker's answer on top of it), the connection is closed. The Server
  // serves with the second at least the first.
  std::size_t output_pause_bytes = 256 * 1024;
  std::size_t output_limit_bytes = 16 << 20;
  // One request: its encoded FCGI_PARAMS stream (HTTP headers and all; no
  // setting), its name-value pairs, and its body (FCGI_STDIN). Over them it
  // is answered 413 at once.
  std::size_t max_params_bytes = 256 * 1024;
  std::size_t max_request_params = 1000;
  std::size_t max_body_bytes = 65536;
  // Request input read and dropped after an early answer on a kept
  // connection (see RequestParser); past it the connection is closed.
  std::size_t early_answer_discard_bytes = 16 << 20;
};

}  // namespace authd::fcgi
