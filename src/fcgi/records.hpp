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

// The same, appending views into `bytes` (which must outlive them) to `out`:
// no name or value is copied. False when a length runs past the end.
bool decode_pair_views(std::string_view bytes, std::size_t max_pairs, std::vector<ParamView>& out);

// Appends one name-value pair in the same encoding.
void append_pair(std::string& out, std::string_view name, std::string_view value);

}  // namespace authd::fcgi
