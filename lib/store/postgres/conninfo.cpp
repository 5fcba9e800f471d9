// redact_database_url: a connection string safe to print.
#include <cctype>
#include <string>

#include "authd/postgres_store.hpp"

namespace authd {
namespace {

constexpr std::string_view kMask = "*****";

bool is_uri(std::string_view url) { return url.starts_with("postgresql://") || url.starts_with("postgres://"); }

std::string redact_uri(std::string_view url) {
  const auto scheme_end = url.find("://") + 3;
  std::string out(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end);
  const auto authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    const auto colon = userinfo.find(':');
    out += userinfo.substr(0, colon);
    if (colon != std::string_view::npos) (out += ':') += kMask;
    out += authority.substr(at);
  } else {
    out += authority;
  }
  // ...?a=b&password=secret&c=d
  const auto query = rest.find('?');
  out += rest.substr(0, query);
  if (query == std::string_view::npos) return out;
  std::string_view params = rest.substr(query + 1);
  out += '?';
  bool first = true;
  while (true) {
    const auto amp = params.find('&');
    const std::string_view param = params.substr(0, amp);
    if (!first) out += '&';
    first = false;
    if (param.starts_with("password=")) {
      (out += "password=") += kMask;
    } else {
      out += param;
    }
    if (amp == std::string_view::npos) break;
    params.remove_prefix(amp + 1);
  }
  return out;
}

// key = value pairs; a value is 'quoted' (\' and \\ escapes) or runs to the
// next blank.
std::string redact_keywords(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  auto skip_blanks = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) out += text[i++];
  };
  while (i < text.size()) {
    skip_blanks();
    const std::size_t key_start = i;
    while (i < text.size() && text[i] != '=' && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const std::string_view key = text.substr(key_start, i - key_start);
    out += key;
    skip_blanks();
    if (i >= text.size() || text[i] != '=') continue;
    out += text[i++];
    skip_blanks();
    const std::size_t value_start = i;
    if (i < text.size() && text[i] == '\'') {
      for (++i; i < text.size() && text[i] != '\''; ++i)
        if (text[i] == '\\') ++i;
      if (i < text.size()) ++i;
    } else {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    }
    if (key == "password") {
      out += kMask;
    } else {
      out += text.substr(value_start, std::min(i, text.size()) - value_start);
    }
  }
  return out;
}

}  // namespace

std::string redact_database_url(std::string_view url) { return is_uri(url) ? redact_uri(url) : redact_keywords(url); }

}  // namespace authd
