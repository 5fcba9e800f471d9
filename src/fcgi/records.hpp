// Encoding and decoding of single FastCGI records and of the name-value
// pairs that FCGI_PARAMS and FCGI_GET_VALUES carry. Pure functions on bytes:
// no sockets, no state (the per-connection state is RequestParser's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fcgi/protocol.hpp"

namespace authd::fcgi {

using Params = std::vector<std::pair<std::string, std::string>>;
using ParamView = std::pair<std::string_view, std::string_view>;

// The header at the start of `bytes` (at least kHeaderLength long).
Header decode_header(std::string_view bytes) noexcept;

// Appends one record (header, content, zero padding to a multiple of 8).
// A content over kMaxContentLength would break the framing (the length
// field has 16 bits): it throws std::length_error and appends nothing.
// Here and below, `content` must not lie in `out` (it may move).
void append_record(std::string& out, RecordType type, std::uint16_t request_id, std::string_view content);

// Appends a whole stream: the content cut into records of at most 65528
// bytes, then the empty record that ends the stream.
void append_stream(std::string& out, RecordType type, std::uint16_t request_id, std::string_view content);

// FCGI_END_REQUEST with appStatus 0.
void append_end_request(std::string& out, std::uint16_t request_id, ProtocolStatus status);

// The whole answer to a request: its FCGI_STDOUT stream and FCGI_END_REQUEST.
void append_response(std::string& out, std::uint16_t request_id, std::string_view stdout_bytes);

// FCGI_UNKNOWN_TYPE for a management record of a type we do not know.
void append_unknown_type(std::string& out, std::uint8_t type);

// Decodes name-value pairs (1-byte lengths below 128, else 4 bytes with the
// top bit set). nullopt when a length runs past the end. Stops after
// max_pairs + 1 pairs (the caller sees that there were too many without
// them all being built).
std::optional<Params> decode_pairs(std::string_view bytes, std::size_t max_pairs = SIZE_MAX);

// The same, calling on_pair(name, value) with views into `bytes` for each
// pair as it is read: no name or value is copied (every request's ~30
// parameters pass here). False when a length runs past the end.
template <class OnPair>
bool for_each_pair(std::string_view bytes, std::size_t max_pairs, OnPair&& on_pair);

// Appends one name-value pair in the same encoding.
void append_pair(std::string& out, std::string_view name, std::string_view value);

namespace detail {
// One length: a byte below 128, else four with the top bit set.
inline bool read_pair_length(const unsigned char*& at, const unsigned char* end, std::size_t& length) noexcept {
  if (at == end) return false;
  if (*at < 0x80) {
    length = *at++;
    return true;
  }
  if (end - at < 4) return false;
  length = (static_cast<std::size_t>(at[0] & 0x7f) << 24) | (static_cast<std::size_t>(at[1]) << 16) |
           (static_cast<std::size_t>(at[2]) << 8) | at[3];
  at += 4;
  return true;
}
}  // namespace detail

template <class OnPair>
bool for_each_pair(std::string_view bytes, std::size_t max_pairs, OnPair&& on_pair) {
  const auto* at = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* const end = at + bytes.size();
  for (std::size_t decoded = 0; at != end && decoded <= max_pairs; ++decoded) {
    std::size_t name_length = 0, value_length = 0;
    if (end - at >= 2 && (at[0] | at[1]) < 0x80) {  // the usual pair: both lengths below 128
      name_length = at[0];
      value_length = at[1];
      at += 2;
    } else if (!detail::read_pair_length(at, end, name_length) || !detail::read_pair_length(at, end, value_length)) {
      return false;
    }
    const auto left = static_cast<std::size_t>(end - at);
    if (name_length > left || value_length > left - name_length) return false;
    const auto* name = reinterpret_cast<const char*>(at);
    on_pair(std::string_view(name, name_length), std::string_view(name + name_length, value_length));
    at += name_length + value_length;
  }
  return true;
}

}  // namespace authd::fcgi
