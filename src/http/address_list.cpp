#include "http/address_list.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <optional>
#include <string>

namespace authd::http {
namespace {

struct Parsed {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};
};

std::optional<Parsed> parse_address(std::string_view text) {
  const std::string address(text);
  Parsed out;
  if (::inet_pton(AF_INET, address.c_str(), out.bytes.data()) == 1) return out;
  if (::inet_pton(AF_INET6, address.c_str(), out.bytes.data()) != 1) return std::nullopt;
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket.
  static constexpr std::array<std::uint8_t, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(kMapped.begin(), kMapped.end(), out.bytes.begin())) {
    std::array<std::uint8_t, 16> v4{};
    std::copy(out.bytes.begin() + 12, out.bytes.end(), v4.begin());
    out.bytes = v4;
    return out;
  }
  out.v6 = true;
  return out;
}

bool same_prefix(const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b, unsigned bits) {
  for (unsigned i = 0; i < bits / 8; ++i) {
    if (a[i] != b[i]) return false;
  }
  if (bits % 8 == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - bits % 8));
  return (a[bits / 8] & mask) == (b[bits / 8] & mask);
}

}  // namespace

Result<AddressList> AddressList::parse(std::string_view text) {
  AddressList list;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find_first_of(" ,\t", at), text.size());
    const auto entry = text.substr(at, end - at);
    at = end + 1;
    if (entry.empty()) continue;
    const auto slash = entry.find('/');
    const auto address = parse_address(entry.substr(0, slash));
    if (!address) return fail(Errc::config, "'" + std::string(entry) + "' is not an IP address or CIDR range");
    Range range{address->v6, address->bytes, address->v6 ? 128u : 32u};
    if (slash != std::string_view::npos) {
      const auto bits = entry.substr(slash + 1);
      unsigned prefix = 0;
      const auto [ptr, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
      if (ec != std::errc() || ptr != bits.data() + bits.size() || prefix > range.prefix) {
        return fail(Errc::config, "'" + std::string(entry) + "' has a bad prefix length");
      }
      range.prefix = prefix;
    }
    list.ranges_.push_back(range);
  }
  return list;
}

bool AddressList::contains(std::string_view address) const {
  const auto parsed = parse_address(address);
  if (!parsed) return false;
  for (const auto& range : ranges_) {
    if (range.v6 == parsed->v6 && same_prefix(range.bytes, parsed->bytes, range.prefix)) return true;
  }
  return false;
}

}  // namespace authd::http
