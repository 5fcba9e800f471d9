#include "http/forwarded.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "authd/text.hpp"

namespace authd::http {
namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// Comma-separated list elements, trimmed, right to left.
std::vector<std::string_view> elements_right_to_left(std::string_view header) {
  std::vector<std::string_view> out;
  while (!header.empty()) {
    const auto comma = std::min(header.find(','), header.size());
    out.push_back(text::trim_ows(header.substr(0, comma)));
    header.remove_prefix(std::min(comma + 1, header.size()));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// The for= parameter of one Forwarded element ("for=192.0.2.1;proto=https").
std::string_view forwarded_for(std::string_view element) {
  while (!element.empty()) {
    const auto semi = std::min(element.find(';'), element.size());
    const auto pair = text::trim_ows(element.substr(0, semi));
    element.remove_prefix(std::min(semi + 1, element.size()));
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && text::iequals(text::trim_ows(pair.substr(0, eq)), "for")) {
      return text::trim_ows(pair.substr(eq + 1));
    }
  }
  return {};
}

}  // namespace

bool IpAddress::v4() const noexcept { return std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), bytes.begin()); }

std::optional<IpAddress> parse_ip(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    text = text.substr(1, close - 1);
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    text = text.substr(0, text.find(':'));  // IPv4 with a port
  }
  if (text.empty() || text.size() > 64) return std::nullopt;
  const std::string copy(text);
  IpAddress address;
  in_addr v4{};
  if (::inet_pton(AF_INET, copy.c_str(), &v4) == 1) {
    std::copy(kMappedPrefix.begin(), kMappedPrefix.end(), address.bytes.begin());
    std::memcpy(address.bytes.data() + 12, &v4, 4);
    return address;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, copy.c_str(), &v6) == 1) {
    std::memcpy(address.bytes.data(), &v6, 16);
    return address;
  }
  return std::nullopt;
}

std::string to_string(const IpAddress& address) {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (address.v4()) {
    ::inet_ntop(AF_INET, address.bytes.data() + 12, buffer, sizeof buffer);
  } else {
    ::inet_ntop(AF_INET6, address.bytes.data(), buffer, sizeof buffer);
  }
  return buffer;
}

bool Cidr::contains(const IpAddress& address) const noexcept {
  unsigned left = bits;
  for (std::size_t i = 0; i < 16 && left > 0; ++i) {
    const unsigned take = std::min(left, 8u);
    const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
    if ((address.bytes[i] & mask) != (network.bytes[i] & mask)) return false;
    left -= take;
  }
  return true;
}

bool TrustedProxies::trusts(std::string_view candidate) const {
  const auto address = parse_ip(candidate);
  return address && std::any_of(networks.begin(), networks.end(), [&](const Cidr& c) { return c.contains(*address); });
}

Result<TrustedProxies> parse_trusted_proxies(std::string_view value) {
  TrustedProxies proxies;
  proxies.text = std::string(text::trim(value));
  std::string spaced(value);
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  for (const auto word : text::words(spaced)) {
    const auto slash = word.find('/');
    const auto host = word.substr(0, slash);
    const auto address = parse_ip(host);
    const bool with_port = host.front() == '[' || std::count(host.begin(), host.end(), ':') == 1;
    if (!address || with_port) {
      return fail(Errc::config, "'" + std::string(word) + "' is not an address or address/prefix-length");
    }
    Cidr cidr{*address, 128};
    if (slash != std::string_view::npos) {
      const auto length = word.substr(slash + 1);
      unsigned bits = 0;
      if (length.empty() || length.size() > 3 || !std::all_of(length.begin(), length.end(), ::isdigit)) {
        return fail(Errc::config, "'" + std::string(word) + "': bad prefix length");
      }
      bits = static_cast<unsigned>(std::stoul(std::string(length)));
      const unsigned max = address->v4() ? 32 : 128;
      if (bits > max) return fail(Errc::config, "'" + std::string(word) + "': prefix length over " + std::to_string(max));
      cidr.bits = address->v4() ? bits + 96 : bits;
    }
    proxies.networks.push_back(cidr);
  }
  return proxies;
}

settings::Setting trusted_proxies_setting(TrustedProxies& proxies) {
  settings::Setting s;
  s.name = "trusted_proxies";
  s.kind = settings::Kind::text;
  s.doc = "addresses/CIDRs whose X-Forwarded-For, Forwarded and X-Original-*/X-Forwarded-Method|Uri are believed";
  s.assign = [&proxies](std::string_view value) -> Result<void> {
    auto parsed = parse_trusted_proxies(value);
    if (!parsed) return std::unexpected(parsed.error());
    proxies = std::move(*parsed);
    return {};
  };
  s.show = [&proxies] { return proxies.text; };
  return s;
}

std::string client_address(const TrustedProxies& proxies, std::string_view remote_addr,
                           std::string_view x_forwarded_for, std::string_view forwarded) {
  const auto direct = parse_ip(remote_addr);
  std::string client = direct ? to_string(*direct) : std::string(remote_addr);
  if (!proxies.trusts(client)) return client;
  const bool use_xff = !x_forwarded_for.empty();
  for (const auto element : elements_right_to_left(use_xff ? x_forwarded_for : forwarded)) {
    const auto hop = parse_ip(use_xff ? element : forwarded_for(element));
    if (!hop) break;  // garbage: the last address we could trust stays the client
    client = to_string(*hop);
    if (!proxies.trusts(client)) break;
  }
  return client;
}

}  // namespace authd::http
