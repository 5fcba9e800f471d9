#include "authd/return_to.hpp"

#include <algorithm>
#include <charconv>

namespace authd {
namespace {

constexpr std::size_t kMaxAddress = 2048;

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), lower);
  return out;
}

bool is_host_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

bool is_ipv6_char(char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9') || c == ':' || c == '.'; }

// "host[:port]" (lower case already) -> normalised authority, or nullopt.
std::optional<std::string> normalized_authority(std::string_view authority, unsigned default_port) {
  std::string_view host;
  std::string_view rest;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos || close < 3) return std::nullopt;
    const auto inside = authority.substr(1, close - 1);
    if (!std::all_of(inside.begin(), inside.end(), is_ipv6_char)) return std::nullopt;
    host = authority.substr(0, close + 1);
    rest = authority.substr(close + 1);
  } else {
    const auto colon = authority.find(':');
    host = authority.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : authority.substr(colon);
    if (host.empty() || host.front() == '.' || host.front() == '-') return std::nullopt;
    if (!std::all_of(host.begin(), host.end(), is_host_char)) return std::nullopt;
  }
  std::string out(host);
  if (rest.empty()) return out;
  if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6) return std::nullopt;
  const auto digits = rest.substr(1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc() || end != digits.data() + digits.size() || port < 1 || port > 65535) return std::nullopt;
  if (port == default_port) return out;
  return out + ":" + std::to_string(port);
}

// Splits "scheme://authority<rest>" at the first '/', '?' or '#' after the
// authority: the normalised origin, and what follows it.
std::optional<std::pair<std::string, std::string_view>> split_origin(std::string_view url) {
  const auto separator = url.find("://");
  if (separator == std::string_view::npos) return std::nullopt;
  const std::string scheme = lowered(url.substr(0, separator));
  unsigned default_port = 0;
  if (scheme == "http") default_port = 80;
  else if (scheme == "https") default_port = 443;
  else return std::nullopt;
  const auto after = url.substr(separator + 3);
  const auto end = std::min(after.find_first_of("/?#"), after.size());
  const auto authority = lowered(after.substr(0, end));
  if (authority.find('@') != std::string::npos) return std::nullopt;
  auto normal = normalized_authority(authority, default_port);
  if (!normal) return std::nullopt;
  return std::pair{scheme + "://" + *normal, after.substr(end)};
}

}  // namespace

std::optional<std::string> normalized_origin(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return std::nullopt;
  }
  auto split = split_origin(text);
  if (!split || !(split->second.empty() || split->second == "/")) return std::nullopt;
  return split->first;
}

bool return_address_allowed(std::string_view address, std::span<const std::string> origins) {
  if (address.empty() || address.size() > kMaxAddress) return false;
  for (const char c : address) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f || c == '\\') return false;
  }
  if (address.front() == '/') return address.size() == 1 || address[1] != '/';
  const auto split = split_origin(address);
  if (!split) return false;
  return std::find(origins.begin(), origins.end(), split->first) != origins.end();
}

std::string choose_return_address(std::string_view requested, const PortalSettings& settings) {
  if (return_address_allowed(requested, settings.return_origins)) return std::string(requested);
  return settings.default_return;
}

std::vector<settings::Setting> portal_settings(PortalSettings& p) {
  settings::Setting origins;
  origins.name = "portal_return_origins";
  origins.kind = settings::Kind::list;
  origins.doc =
      "After a sign-in the portal (/login, docs/pages.md) sends the browser back to its ?rd= (or ?return_to=) "
      "address, checked by authd (GET /auth/return), never by page script alone: a path on this site is always "
      "allowed; an absolute URL only when its origin (scheme://host[:port], no path) is listed here, separated by "
      "spaces or commas, e.g. `https://app.example.com, http://127.0.0.1:8081`. Anything else (other hosts, "
      "//host, javascript:, userinfo tricks, control characters) goes to portal_default_return. The `auth` "
      "cookie is host-only, so an app on another origin receives it only on the same host name (another port).";
  origins.assign = [&p](std::string_view v) -> Result<void> {
    std::vector<std::string> parsed;
    for (const auto item : settings::list_items(v)) {
      auto origin = normalized_origin(item);
      if (!origin) {
        return fail(Errc::config, "'" + std::string(item) + "' is not an origin like https://app.example.com");
      }
      parsed.push_back(std::move(*origin));
    }
    p.return_origins = std::move(parsed);  // the whole list: a later value replaces an earlier one
    return {};
  };
  origins.show = [&p] {
    std::string out;
    for (const auto& origin : p.return_origins) out += (out.empty() ? "" : " ") + origin;
    return out;
  };
  return settings::grouped("Sign-in portal", {
      std::move(origins),
      settings::text("portal_default_return", p.default_return,
                     "Where a sign-in leads when the return address is missing or refused: a path on this site, "
                     "or a URL on one of portal_return_origins."),
  });
}

Result<void> validate_portal_settings(const PortalSettings& p) {
  if (!return_address_allowed(p.default_return, p.return_origins)) {
    return fail(Errc::config,
                "portal_default_return must be a path on this site (/account) or a URL on an origin of "
                "portal_return_origins");
  }
  return {};
}

}  // namespace authd
