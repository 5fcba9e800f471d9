// FastCGI 1.0 wire constants (the specification by Open Market, 1996:
// https://fastcgi-archives.github.io/FastCGI_Specification.html). Only what
// authd speaks: the Responder and Authorizer roles, one request at a time
// per connection (no multiplexing), connections kept open on FCGI_KEEP_CONN.
//
// Why our own codec and not libfcgi (2.4.2): its reading is blocking and
// all-or-nothing. FCGX_Accept_r accepts and then reads FCGI_BEGIN_REQUEST and
// the whole FCGI_PARAMS stream in one call (FillBuffProc -> read() on a
// blocking descriptor); on a kept connection it skips the accept and blocks in
// read() until the next request comes, so every idle kept connection pins the
// calling thread. FCGX_GetStr blocks the same way for the body. There is no
// way to hand it bytes as they arrive or to resume a half-read request later,
// a non-blocking descriptor makes EAGAIN a stream error that ends the
// request, and there is no deadline: SO_RCVTIMEO would bound one read(), not
// a request trickled a byte at a time, and the thread is held meanwhile. On a
// unix socket OS_Accept even waits up to 2 s in select() for the first bytes
// on the accepting thread. Writes (FCGX_PutStr -> write()) block too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace authd::fcgi {

inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::size_t kHeaderLength = 8;
inline constexpr std::size_t kMaxContentLength = 65535;

enum class RecordType : std::uint8_t {
  begin_request = 1,
  abort_request = 2,
  end_request = 3,
  params = 4,
  stdin_ = 5,
  stdout_ = 6,
  stderr_ = 7,
  data = 8,
  get_values = 9,
  get_values_result = 10,
  unknown_type = 11,
};

enum class Role : std::uint16_t { responder = 1, authorizer = 2, filter = 3 };

// FCGI_BEGIN_REQUEST flags
inline constexpr std::uint8_t kKeepConn = 1;

// FCGI_END_REQUEST protocolStatus
enum class ProtocolStatus : std::uint8_t {
  request_complete = 0,
  cant_mpx_conn = 1,
  overloaded = 2,
  unknown_role = 3,
};

// Every record starts with this header; all numbers are big-endian.
struct Header {
  std::uint8_t version = kVersion;
  RecordType type = RecordType::unknown_type;
  std::uint16_t request_id = 0;  // 0: a management record
  std::uint16_t content_length = 0;
  std::uint8_t padding_length = 0;
};

}  // namespace authd::fcgi
