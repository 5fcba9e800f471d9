#include "authd/request_path.hpp"

#include <vector>

#include "authd/text.hpp"

namespace authd {
namespace {

std::unexpected<Error> refuse(std::string why) { return fail(Errc::invalid_input, "the path " + why); }

// Whether `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool valid_utf8(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    unsigned min = 0, code = 0;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) { extra = 1; min = 0x80; code = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { extra = 2; min = 0x800; code = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { extra = 3; min = 0x10000; code = c & 0x07; }
    else return false;
    if (i + extra >= text.size()) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0) != 0x80) return false;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

// One %-decoding pass that refuses what would be read differently by the
// next decoder or path parser.
Result<std::string> decode_once(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out.push_back(raw[i]);
      continue;
    }
    if (i + 2 >= raw.size()) return refuse("has a malformed %-escape");
    const int hi = text::hex_value(raw[i + 1]), lo = text::hex_value(raw[i + 2]);
    if (hi < 0 || lo < 0) return refuse("has a malformed %-escape");
    const char c = static_cast<char>(hi * 16 + lo);
    switch (c) {
      case '/': case '\\': return refuse("has an encoded slash or backslash");
      case '%': return refuse("is encoded twice");
      case ';': case '?': case '#': return refuse("has an encoded delimiter");
      default: break;
    }
    out.push_back(c);
    i += 2;
  }
  return out;
}

}  // namespace

Result<std::string> canonical_path(std::string_view raw, bool decode) {
  if (raw.empty() || raw.front() != '/') return refuse("must start with /");
  std::string decoded;
  if (decode) {
    auto once = decode_once(raw);
    if (!once) return std::unexpected(once.error());
    decoded = std::move(*once);
  } else {
    decoded = std::string(raw);
  }
  for (unsigned char c : decoded) {
    if (c < 0x20 || c == 0x7f) return refuse("has a control character");
    if (c == '\\') return refuse("has a backslash");
  }
  if (!valid_utf8(decoded)) return refuse("is not valid UTF-8");

  std::vector<std::string_view> segments;
  std::string_view rest = decoded;
  bool trailing_slash = false;
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    const auto end = std::min(rest.find('/'), rest.size());
    auto segment = rest.substr(0, end);
    rest.remove_prefix(end);
    segment = segment.substr(0, std::min(segment.find(';'), segment.size()));  // path parameters
    const bool last = rest.empty();
    if (segment.empty() || segment == ".") {
      trailing_slash = last;
      continue;
    }
    if (segment == "..") {
      if (segments.empty()) return refuse("climbs above the root");
      segments.pop_back();
      trailing_slash = last;
      continue;
    }
    segments.push_back(segment);
    trailing_slash = false;
  }
  std::string path;
  path.reserve(decoded.size());
  for (const auto& segment : segments) {
    path.push_back('/');
    path.append(segment);
  }
  if (path.empty() || trailing_slash) path.push_back('/');
  return path;
}

Result<std::string> canonical_uri_path(std::string_view uri) {
  return canonical_path(uri.substr(0, std::min(uri.find_first_of("?#"), uri.size())));
}

}  // namespace authd
