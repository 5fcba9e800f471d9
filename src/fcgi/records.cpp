#include "fcgi/records.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "http/append_in_place.hpp"

namespace authd::fcgi {
namespace {

// Full STDOUT records carry a multiple of 8 bytes, so they need no padding.
constexpr std::size_t kChunk = kMaxContentLength - kMaxContentLength % 8;

std::uint8_t byte(std::string_view bytes, std::size_t at) noexcept { return static_cast<std::uint8_t>(bytes[at]); }

void append_length(std::string& out, std::size_t length) {
  if (length < 128) {
    out += static_cast<char>(length);
    return;
  }
  out += static_cast<char>(((length >> 24) & 0x7f) | 0x80);
  out += static_cast<char>((length >> 16) & 0xff);
  out += static_cast<char>((length >> 8) & 0xff);
  out += static_cast<char>(length & 0xff);
}

// The eight bytes of a record's header at `at`.
void write_header(char* at, RecordType type, std::uint16_t request_id, std::size_t length, std::size_t padding) noexcept {
  at[0] = static_cast<char>(kVersion);
  at[1] = static_cast<char>(type);
  at[2] = static_cast<char>(request_id >> 8);
  at[3] = static_cast<char>(request_id & 0xff);
  at[4] = static_cast<char>(length >> 8);
  at[5] = static_cast<char>(length & 0xff);
  at[6] = static_cast<char>(padding);
  at[7] = 0;
}

std::size_t padding_of(std::size_t length) noexcept { return (8 - length % 8) % 8; }

}  // namespace

Header decode_header(std::string_view bytes) noexcept {
  Header header;
  header.version = byte(bytes, 0);
  header.type = static_cast<RecordType>(byte(bytes, 1));
  header.request_id = static_cast<std::uint16_t>((byte(bytes, 2) << 8) | byte(bytes, 3));
  header.content_length = static_cast<std::uint16_t>((byte(bytes, 4) << 8) | byte(bytes, 5));
  header.padding_length = byte(bytes, 6);
  return header;
}

void append_record(std::string& out, RecordType type, std::uint16_t request_id, std::string_view content) {
  if (content.size() > kMaxContentLength) throw std::length_error("FastCGI record content over 65535 bytes");
  const std::size_t padding = padding_of(content.size());
  append_in_place(out, kHeaderLength + content.size() + padding, [&](char* to) {
    write_header(to, type, request_id, content.size(), padding);
    if (!content.empty()) std::memcpy(to + kHeaderLength, content.data(), content.size());
    std::memset(to + kHeaderLength + content.size(), 0, padding);
  });
}

void append_stream(std::string& out, RecordType type, std::uint16_t request_id, std::string_view content) {
  out.reserve(out.size() + content.size() + (content.size() / kChunk + 2) * 16);
  while (!content.empty()) {
    const std::size_t n = std::min(content.size(), kChunk);
    append_record(out, type, request_id, content.substr(0, n));
    content.remove_prefix(n);
  }
  append_record(out, type, request_id, {});
}

void append_end_request(std::string& out, std::uint16_t request_id, ProtocolStatus status) {
  const char body[8] = {0, 0, 0, 0, static_cast<char>(status), 0, 0, 0};
  append_record(out, RecordType::end_request, request_id, std::string_view(body, sizeof body));
}

void append_response(std::string& out, std::uint16_t request_id, std::string_view stdout_bytes) {
  append_stream(out, RecordType::stdout_, request_id, stdout_bytes);
  append_end_request(out, request_id, ProtocolStatus::request_complete);
}

void append_unknown_type(std::string& out, std::uint8_t type) {
  const char body[8] = {static_cast<char>(type), 0, 0, 0, 0, 0, 0, 0};
  append_record(out, RecordType::unknown_type, 0, std::string_view(body, sizeof body));
}

std::optional<Params> decode_pairs(std::string_view bytes, std::size_t max_pairs) {
  Params pairs;
  const bool whole = for_each_pair(bytes, max_pairs, [&](std::string_view name, std::string_view value) {
    pairs.emplace_back(std::string(name), std::string(value));
  });
  if (!whole) return std::nullopt;
  return pairs;
}

void append_pair(std::string& out, std::string_view name, std::string_view value) {
  append_length(out, name.size());
  append_length(out, value.size());
  out.append(name);
  out.append(value);
}

}  // namespace authd::fcgi
