#include "fcgi/request_parser.hpp"

#include <charconv>
#include <utility>

namespace authd::fcgi {
namespace {

Step broken(std::string why) { return Step{Step::Kind::broken, Error(Errc::invalid_input, std::move(why)), false}; }

// FCGI_GET_VALUES: the variables we know, each with our value, each once
// whatever the number of times it was asked for: the reply is at most three
// short pairs, far below the 65535 bytes a record can carry.
void answer_get_values(std::string_view content, const Limits& limits, std::string& replies) {
  std::string body;
  bool conns = false, reqs = false, mpxs = false;
  if (auto names = decode_pairs(content)) {
    for (const auto& [name, unused] : *names) {
      if (name == "FCGI_MAX_CONNS" && !std::exchange(conns, true)) append_pair(body, name, std::to_string(limits.max_connections));
      else if (name == "FCGI_MAX_REQS" && !std::exchange(reqs, true)) append_pair(body, name, std::to_string(limits.max_connections));
      else if (name == "FCGI_MPXS_CONNS" && !std::exchange(mpxs, true)) append_pair(body, name, "0");
    }
  }
  append_record(replies, RecordType::get_values_result, 0, body);
}

}  // namespace

void RequestParser::append(std::string_view bytes) {
  compact();
  in_.append(bytes);
}

void RequestParser::compact() {
  if (pos_ == 0) return;
  in_.erase(0, pos_);
  pos_ = 0;
  // An idle kept connection should cost next to nothing.
  if (in_.empty() && in_.capacity() > kKeptInputCapacity) std::string().swap(in_);
}

std::string RequestParser::release_input_buffer() noexcept { return std::exchange(in_, std::string()); }

Step RequestParser::next(std::string& replies) {
  for (;;) {
    if (end_pending_) {
      end_pending_ = false;
      append_end_request(replies, id_, ProtocolStatus::request_complete);
      return Step{Step::Kind::ended, std::nullopt, keep_conn_};
    }
    const std::string_view available = std::string_view(in_).substr(pos_);
    if (available.size() < kHeaderLength) return Step{};
    const Header header = decode_header(available);
    if (header.version != kVersion) return broken("FastCGI version " + std::to_string(header.version));
    const std::size_t total = kHeaderLength + header.content_length + header.padding_length;
    if (available.size() < total) return Step{};
    const std::string_view content = available.substr(kHeaderLength, header.content_length);
    pos_ += total;  // `content` stays valid: in_ only changes in append()
    Step step = handle(header, content, replies);
    if (step.kind != Step::Kind::need_more) return step;
  }
}

Step RequestParser::handle(const Header& header, std::string_view content, std::string& replies) {
  const std::uint16_t id = header.request_id;
  switch (header.type) {
    case RecordType::begin_request: return begin(id, content, replies);
    case RecordType::abort_request:
      if (id != id_ || phase_ == Phase::idle) return Step{};
      if (phase_ == Phase::drain) return drained_input({}, true);
      append_end_request(replies, id, ProtocolStatus::request_complete);
      phase_ = Phase::idle;
      return Step{Step::Kind::ended, std::nullopt, keep_conn_};
    case RecordType::params:
      if (id == id_ && phase_ == Phase::drain) return drained_input(content, false);
      if (id != id_ || phase_ != Phase::head) return Step{};
      return params(content);
    case RecordType::stdin_:
      if (id != id_ || phase_ == Phase::idle) return Step{};
      if (phase_ == Phase::drain) return drained_input(content, content.empty());
      if (phase_ == Phase::head) return broken("FCGI_STDIN before the end of FCGI_PARAMS");
      return stdin_record(content);
    case RecordType::get_values:
      if (id != 0) return Step{};
      answer_get_values(content, *limits_, replies);
      return Step{};
    default:
      // Unknown management records get FCGI_UNKNOWN_TYPE; stray application
      // records (FCGI_DATA, records of a finished request) are skipped.
      if (id == 0) append_unknown_type(replies, static_cast<std::uint8_t>(header.type));
      return Step{};
  }
}

Step RequestParser::begin(std::uint16_t id, std::string_view content, std::string& replies) {
  if (id == 0 || content.size() != 8) return broken("malformed FCGI_BEGIN_REQUEST");
  // A new request while one answered early is being drained: the web server
  // gave up the old one's input (and its FCGI_END_REQUEST, which would now be
  // taken for the new request's when the id is the same): it starts afresh.
  if (phase_ == Phase::drain) phase_ = Phase::idle;
  if (phase_ != Phase::idle) {
    append_end_request(replies, id, ProtocolStatus::cant_mpx_conn);
    return Step{};
  }
  const auto role = static_cast<std::uint16_t>((static_cast<std::uint8_t>(content[0]) << 8) | static_cast<std::uint8_t>(content[1]));
  const bool keep = (static_cast<std::uint8_t>(content[2]) & kKeepConn) != 0;
  if (role != static_cast<std::uint16_t>(Role::responder) && role != static_cast<std::uint16_t>(Role::authorizer)) {
    append_end_request(replies, id, ProtocolStatus::unknown_role);
    id_ = id;
    keep_conn_ = keep;
    return Step{Step::Kind::ended, std::nullopt, keep};
  }
  id_ = id;
  role_ = static_cast<Role>(role);
  keep_conn_ = keep;
  phase_ = Phase::head;
  params_ = RequestParams::acquire();
  body_.clear();
  content_length_.reset();
  request_ready_ = false;
  return Step{};
}

Step RequestParser::params(std::string_view content) {
  if (content.empty()) return end_of_params();
  if (content.size() > limits_->max_params_bytes - params_->encoded_size()) {
    // Headers this large are abuse, not a request: answer, then close.
    keep_conn_ = false;
    return reject(Error(Errc::too_large, "request parameters over " + std::to_string(limits_->max_params_bytes) + " bytes"));
  }
  params_->append_encoded(content);
  return Step{};
}

Step RequestParser::end_of_params() {
  const bool decoded =
      params_->decode(role_ == Role::authorizer ? "AUTHORIZER" : "RESPONDER", limits_->max_request_params);
  if (!decoded) {
    keep_conn_ = false;
    return reject(Error(Errc::invalid_input, "malformed FastCGI parameters"));
  }
  if (params_->size() > limits_->max_request_params + 1) {  // + FCGI_ROLE
    // Thousands of empty pairs in 256 KiB would be a large index to build:
    // abuse, as parameters over the size cap.
    keep_conn_ = false;
    return reject(Error(Errc::too_large, "more than " + std::to_string(limits_->max_request_params) + " request parameters"));
  }
  // An authorizer sees the original request's CONTENT_LENGTH but no body
  // (FastCGI 1.0 §6.3): the request is complete.
  if (role_ == Role::authorizer) {
    phase_ = Phase::idle;
    request_ready_ = true;
    return Step{Step::Kind::request, std::nullopt, keep_conn_};
  }
  // "-1" is Caddy's (2.6) CONTENT_LENGTH for a chunked request body: the
  // length is unknown, as when there is none; the body is the stdin stream
  // up to its end, capped at max_body_bytes like any other.
  if (const auto text = params_->find("CONTENT_LENGTH"); text && !text->empty() && *text != "-1") {
    std::size_t length = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), length);
    if (ec != std::errc() || end != text->data() + text->size()) {
      return reject(Error(Errc::invalid_input, "invalid Content-Length"));
    }
    if (length > limits_->max_body_bytes) {
      return reject(Error(Errc::too_large, "body of " + std::to_string(length) + " bytes"));
    }
    content_length_ = length;
  }
  phase_ = Phase::body;
  return Step{};
}

Step RequestParser::stdin_record(std::string_view content) {
  if (content.empty()) {
    if (content_length_ && body_.size() != *content_length_) {
      return reject(Error(Errc::invalid_input, "request body shorter than Content-Length"));
    }
    phase_ = Phase::idle;
    request_ready_ = true;
    return Step{Step::Kind::request, std::nullopt, keep_conn_};
  }
  if (content.size() > limits_->max_body_bytes - body_.size()) {
    return reject(Error(Errc::too_large, "body over " + std::to_string(limits_->max_body_bytes) + " bytes"));
  }
  if (content_length_ && content.size() > *content_length_ - body_.size()) {
    return reject(Error(Errc::invalid_input, "request body longer than Content-Length"));
  }
  body_.append(content);
  return Step{};
}

// The open request is answered now, and over: what still comes of it is
// skipped (its id no longer has an open request), or on a kept connection
// read and dropped before its FCGI_END_REQUEST goes (phase drain).
Step RequestParser::reject(Error error) {
  if (end_request(true)) end_pending_ = true;
  return Step{Step::Kind::reject, std::move(error), keep_conn_};
}

void RequestParser::abandon_request() { end_request(false); }

bool RequestParser::end_request(bool may_drain) {
  // An authorizer's request has no input after its parameters; a request
  // the web server does not keep ends with the connection (see linger).
  const bool hold_end =
      may_drain && keep_conn_ && role_ == Role::responder && (phase_ == Phase::head || phase_ == Phase::body);
  phase_ = hold_end ? Phase::drain : Phase::idle;
  drained_ = 0;
  params_.reset();
  std::string().swap(body_);
  request_ready_ = false;
  return !hold_end;
}

// Input of a request answered early on a kept connection: dropped, counted;
// its end (or an abort) lets the held FCGI_END_REQUEST go.
Step RequestParser::drained_input(std::string_view content, bool last) {
  if (last) {
    phase_ = Phase::idle;
    end_pending_ = true;
    return Step{};  // next() turns end_pending_ into the `ended` step
  }
  drained_ += content.size();
  if (drained_ > limits_->early_answer_discard_bytes) {
    return broken("request input after an early answer over " + std::to_string(limits_->early_answer_discard_bytes) + " bytes");
  }
  return Step{};
}

Request RequestParser::take_request() {
  Request request;
  if (!request_ready_) return request;
  request_ready_ = false;
  request.id = id_;
  request.role = role_;
  request.keep_conn = keep_conn_;
  request.params = std::move(params_);
  request.body = std::move(body_);
  body_.clear();
  return request;
}

}  // namespace authd::fcgi
