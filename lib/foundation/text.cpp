#include "authd/text.hpp"

#include <cctype>

namespace authd::text {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

namespace {

bool is_space(char c) noexcept { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Calls fn(name, value) for each non-empty '&'-separated pair, still encoded.
template <class Fn>
void for_each_pair(std::string_view query, Fn&& fn) {
  while (!query.empty()) {
    const auto amp = std::min(query.find('&'), query.size());
    const auto pair = query.substr(0, amp);
    query.remove_prefix(std::min(amp + 1, query.size()));
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    if (!fn(pair.substr(0, eq), eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1))) return;
  }
}

}  // namespace

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view trim_ows(std::string_view text) noexcept {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  while (!(text = trim(text)).empty()) {
    std::size_t end = 0;
    while (end < text.size() && !is_space(text[end])) ++end;
    out.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  // ASCII only, as HTTP's case-insensitive tokens are (and std::tolower, a
  // call per byte, would follow a locale): every request compares a few.
  // Equal bytes are the usual case ("Bearer" as written): the fold only for the others.
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x == y) continue;
    const auto lower = static_cast<unsigned char>(x | 0x20);
    if (lower != (y | 0x20) || lower < 'a' || lower > 'z') return false;
  }
  return true;
}

bool has_control(std::string_view text) noexcept {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::optional<std::string> percent_decode(std::string_view encoded, bool plus_is_space) {
  std::string out;
  out.reserve(encoded.size());
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      if (i + 2 >= encoded.size()) return std::nullopt;
      const int high = hex_value(encoded[i + 1]), low = hex_value(encoded[i + 2]);
      if (high < 0 || low < 0 || (high == 0 && low == 0)) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> split_form(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> fields;
  for_each_pair(query, [&](std::string_view name, std::string_view value) {
    fields.emplace_back(percent_decode(name, true).value_or(std::string(name)),
                        percent_decode(value, true).value_or(std::string(value)));
    return true;
  });
  return fields;
}

std::optional<std::string_view> query_value(std::string_view query, std::string_view name) noexcept {
  std::optional<std::string_view> found;
  for_each_pair(query, [&](std::string_view key, std::string_view value) {
    if (key != name) return true;
    found = value;
    return false;
  });
  return found;
}

std::string html_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace authd::text
