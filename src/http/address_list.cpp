#include "http/address_list.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "authd/text.hpp"

namespace authd::http {
namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// One entry: an address, or an address, '/' and a prefix length in decimal.
// Only the characters of such a text pass (no brackets, quotes, ports or
// zones), so an entry that is not one is refused as a whole before any part
// of it is read: "/24", "10.0.0.0/", "/", "::/", "10.0.0.0/8/8", "10.0.0.0/33".
Result<Cidr> parse_entry(std::string_view word) {
  const auto quoted = "'" + std::string(word) + "'";
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':' || c == '/';
  });
  const auto slash = word.find('/');
  const auto host = word.substr(0, slash);
  if (!plain || host.empty() || host.size() > 45) return fail(Errc::config, quoted + " is not an IP address or CIDR range");
  const auto address = parse_ip(host);
  // parse_ip also reads "192.0.2.1:80" (an address and a port): not here.
  const bool with_port = std::count(host.begin(), host.end(), ':') == 1;
  if (!address || with_port) return fail(Errc::config, quoted + " is not an IP address or CIDR range");
  Cidr cidr{*address, 128};
  if (slash == std::string_view::npos) return cidr;
  const auto length = word.substr(slash + 1);
  const unsigned max = address->v4() ? 32 : 128;
  unsigned bits = 0;
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), bits);
  if (length.empty() || length.size() > 3 || ec != std::errc() || end != length.data() + length.size() || bits > max) {
    return fail(Errc::config, quoted + " has a bad prefix length (0 to " + std::to_string(max) + ")");
  }
  cidr.bits = address->v4() ? bits + 96 : bits;
  return cidr;
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
  if (address.v4()) {
    // By hand: every request names its client, and glibc's inet_ntop formats
    // IPv4 through sprintf (a tenth of a guarded read's own time).
    char buffer[16];
    char* end = buffer;
    for (std::size_t i = 12; i < 16; ++i) {
      if (i > 12) *end++ = '.';
      end = std::to_chars(end, buffer + sizeof buffer, address.bytes[i]).ptr;
    }
    return std::string(buffer, end);
  }
  char buffer[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET6, address.bytes.data(), buffer, sizeof buffer);
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

Result<AddressList> AddressList::parse(std::string_view value) {
  AddressList list;
  list.text_ = std::string(text::trim(value));
  for (const auto word : settings::list_items(value)) {
    auto cidr = parse_entry(word);
    if (!cidr) return std::unexpected(cidr.error());
    list.networks_.push_back(*cidr);
  }
  return list;
}

bool AddressList::contains(std::string_view candidate) const {
  if (networks_.empty()) return false;  // the usual case: no parsing per request
  const auto address = parse_ip(candidate);
  return address && contains(*address);
}

bool AddressList::contains(const IpAddress& address) const noexcept {
  return std::any_of(networks_.begin(), networks_.end(), [&](const Cidr& c) { return c.contains(address); });
}

settings::Setting address_list_setting(std::string name, AddressList& list, std::string doc) {
  settings::Setting s;
  s.name = std::move(name);
  s.kind = settings::Kind::text;
  s.doc = std::move(doc);
  s.assign = [&list](std::string_view value) -> Result<void> {
    auto parsed = AddressList::parse(value);
    if (!parsed) return std::unexpected(parsed.error());
    list = std::move(*parsed);
    return {};
  };
  s.show = [&list] { return list.text(); };
  return s;
}

}  // namespace authd::http
