#include "http/query.hpp"

#include "authd/text.hpp"

namespace authd::http {

std::map<std::string, std::string, std::less<>> parse_query(std::string_view query) {
  std::map<std::string, std::string, std::less<>> fields;
  for (auto& [name, value] : text::split_form(query)) fields.try_emplace(std::move(name), std::move(value));
  return fields;
}

std::string percent_encoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    }
  }
  return out;
}

std::string_view cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto semicolon = std::min(header.find(';'), header.size());
    auto pair = header.substr(0, semicolon);
    header.remove_prefix(std::min(semicolon + 1, header.size()));
    pair = text::trim_ows(pair);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
      auto value = pair.substr(eq + 1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      return value;
    }
  }
  return {};
}

}  // namespace authd::http
