// The incremental reader of one FastCGI connection: bytes go in as they
// arrive (from an event loop, in any pieces), complete requests come out.
// It never blocks and never reads a socket itself, so a connection whose web
// server trickles a request costs a buffer, never a thread.
//
// One request at a time per connection: a second FCGI_BEGIN_REQUEST while one
// is open is refused with FCGI_END_REQUEST{FCGI_CANT_MPX_CONN}, a role other
// than Responder or Authorizer with FCGI_UNKNOWN_ROLE. FCGI_GET_VALUES is
// answered (no multiplexing), other management records with
// FCGI_UNKNOWN_TYPE. Size caps are checked as the bytes arrive: a request
// over them is answered at once (reject). A request answered early is over
// (FastCGI 1.0 §5.5: the web server may stop sending its input then): the
// records of it that still come are skipped, and the next
// FCGI_BEGIN_REQUEST, whatever its id, starts a new request.
//
// On a kept connection an early answer holds back its FCGI_END_REQUEST until
// the web server has sent the rest of the request (the empty FCGI_STDIN
// record, or FCGI_ABORT_REQUEST), read and dropped: a web server that is
// still writing the body when the request ends may reuse or free the
// connection mid-write (H2O 2.2 aborts). At most
// `early_answer_discard_bytes` are dropped so; past them the connection is
// broken (closed). The limits (fcgi/limits.hpp) are read by reference: the
// parser does not outlive them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "authd/error.hpp"
#include "fcgi/limits.hpp"
#include "fcgi/protocol.hpp"
#include "fcgi/records.hpp"
#include "fcgi/request_params.hpp"

namespace authd::fcgi {

// A complete request. params starts with FCGI_ROLE=RESPONDER|AUTHORIZER (as
// libfcgi puts it), then the web server's parameters in the order sent.
struct Request {
  std::uint16_t id = 0;
  Role role = Role::responder;
  bool keep_conn = false;  // FCGI_KEEP_CONN: the web server reuses the connection
  std::shared_ptr<const RequestParams> params;  // never null in a request take_request() made
  std::string body;  // FCGI_STDIN; empty for an authorizer
};

struct Step {
  enum class Kind {
    need_more,  // nothing more to do until more bytes arrive
    request,    // a complete request: take_request()
    reject,     // answer the open request with `error` now: its FCGI_STDOUT only, the
                // parser appends FCGI_END_REQUEST to `replies` with the `ended` step that
                // follows (at once, or once the rest of the request was dropped)
    ended,      // a request ended without a worker (rejected, aborted, or of a refused role)
    broken,     // not FastCGI as we speak it: close the connection (`error` says why)
  };
  Kind kind = Kind::need_more;
  std::optional<Error> error;  // reject, broken
  bool keep_conn = false;      // ended: the web server keeps the connection open
};

class RequestParser {
 public:
  enum class Phase {
    idle,  // between requests (a partial record may be buffered)
    head,  // FCGI_BEGIN_REQUEST read, FCGI_PARAMS still arriving
    body,  // FCGI_STDIN arriving
    drain, // answered early on a kept connection: dropping the rest of its input
  };

  // `recycled`: a buffer of a parser that is done with, whose capacity (not
  // its contents) the input buffer takes over (a closed connection's, reused
  // for the next one: no allocation per connection).
  explicit RequestParser(const Limits& limits, std::string recycled = {}) noexcept : limits_(&limits), in_(std::move(recycled)) { in_.clear(); }
  // Not from a temporary: the parser keeps a reference to its limits.
  explicit RequestParser(const Limits&& limits, std::string recycled = {}) = delete;

  void append(std::string_view bytes);

  // Decodes buffered records until something happens. Answers that need no
  // worker (management records, refusals) are appended to `replies`.
  Step next(std::string& replies);

  // The request of the last `request` step.
  Request take_request();

  // Gives up the open request (it is being answered, e.g. 408): it is over,
  // as after a reject; what still comes of it is skipped. The caller answers
  // it whole (FCGI_STDOUT and FCGI_END_REQUEST).
  void abandon_request();

  Phase phase() const noexcept { return phase_; }
  // Bytes received that are not yet part of a whole decoded record.
  bool has_buffered_bytes() const noexcept { return pos_ < in_.size(); }
  // The open (or last) request's id and FCGI_KEEP_CONN flag.
  std::uint16_t request_id() const noexcept { return id_; }
  bool keep_conn() const noexcept { return keep_conn_; }
  // The input buffer, contents and all, for a parser made later (its
  // constructor empties it); this parser is left with none.
  std::string release_input_buffer() noexcept;

 private:
  // What a record led to; need_more means "go on with the next record".
  Step handle(const Header& header, std::string_view content, std::string& replies);
  Step begin(std::uint16_t id, std::string_view content, std::string& replies);
  Step params(std::string_view content);
  Step end_of_params();
  Step stdin_record(std::string_view content);
  Step reject(Error error);
  // Ends the open request; true when its FCGI_END_REQUEST may go now, false
  // when it waits for the rest of the input (phase drain).
  bool end_request(bool may_drain);
  Step drained_input(std::string_view content, bool last);
  void compact();

  // What an idle connection's input buffer keeps of its capacity (a closed
  // one hands on less: Connection::kRecycledCapacity).
  static constexpr std::size_t kKeptInputCapacity = 16384;

  const Limits* limits_;  // never null
  std::string in_;
  std::size_t pos_ = 0;
  Phase phase_ = Phase::idle;
  std::uint16_t id_ = 0;
  Role role_ = Role::responder;
  bool keep_conn_ = false;
  bool end_pending_ = false;  // after a reject: `ended` comes next
  std::size_t drained_ = 0;   // bytes dropped in phase drain
  std::shared_ptr<RequestParams> params_;  // the open request's (null between requests)
  std::optional<std::size_t> content_length_;
  std::string body_;
  bool request_ready_ = false;
};

}  // namespace authd::fcgi
