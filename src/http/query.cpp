#include "http/query.hpp"

#include <cgicc/CgiUtils.h>

namespace authd::http {

std::map<std::string, std::string, std::less<>> parse_query(std::string_view query) {
  std::map<std::string, std::string, std::less<>> fields;
  while (!query.empty()) {
    const auto amp = std::min(query.find('&'), query.size());
    const auto pair = query.substr(0, amp);
    query.remove_prefix(std::min(amp + 1, query.size()));
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const auto name = pair.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    // cgicc's decoder: %XX and '+' as in HTML forms.
    fields.try_emplace(cgicc::form_urldecode(std::string(name)), cgicc::form_urldecode(std::string(value)));
  }
  return fields;
}

std::string_view cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto semicolon = std::min(header.find(';'), header.size());
    auto pair = header.substr(0, semicolon);
    header.remove_prefix(std::min(semicolon + 1, header.size()));
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
      auto value = pair.substr(eq + 1);
      while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      return value;
    }
  }
  return {};
}

}  // namespace authd::http
