// IP addresses and lists of addresses / CIDR ranges ("127.0.0.0/8, ::1"), as
// the settings that name clients use them: trusted_proxies (http/forwarded.hpp)
// and metrics_allow (GET /metrics).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"
#include "authd/settings.hpp"

namespace authd::http {

// An IPv4 address is stored as IPv4-mapped IPv6 (::ffff:a.b.c.d), so a
// dual-stack socket's ::ffff:a.b.c.d and a.b.c.d are the same client.
struct IpAddress {
  std::array<std::uint8_t, 16> bytes{};
  bool v4() const noexcept;
};

// "192.0.2.1", "2001:db8::1", "[2001:db8::1]:443", "192.0.2.1:80" (quotes
// allowed, as in Forwarded). nullopt otherwise.
std::optional<IpAddress> parse_ip(std::string_view text);
// Canonical text ("192.0.2.1", "2001:db8::1").
std::string to_string(const IpAddress& address);

struct Cidr {
  IpAddress network;
  unsigned bits = 128;  // in the IPv6 space (an IPv4 /24 is /120)
  bool contains(const IpAddress& address) const noexcept;
};

class AddressList {
 public:
  // Addresses and address/prefix-length, separated by blanks or commas; no
  // ports. Error: config naming the entry.
  static Result<AddressList> parse(std::string_view text);
  bool contains(std::string_view address) const;
  bool contains(const IpAddress& address) const noexcept;
  bool empty() const noexcept { return networks_.empty(); }
  const std::string& text() const noexcept { return text_; }

 private:
  std::vector<Cidr> networks_;
  std::string text_;  // as configured
};

// A setting holding an AddressList (`doc` says who is on it).
settings::Setting address_list_setting(std::string name, AddressList& list, std::string doc);

}  // namespace authd::http
