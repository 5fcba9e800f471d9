// Who the client is when the web server stands behind proxies, and whether
// the request came from one of ours (trusted_proxies).
//
// The client address is REMOTE_ADDR, unless that is a trusted proxy: then
// X-Forwarded-For (else Forwarded: for=) is read from the right, one hop at a
// time, for as long as the hop just passed is trusted; the first untrusted
// address is the client. A client's own X-Forwarded-For entries (on the left)
// are never reached unless every hop after them is ours.
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

// An IPv4 address is stored as IPv4-mapped IPv6 (::ffff:a.b.c.d).
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

struct TrustedProxies {
  std::vector<Cidr> networks;
  std::string text;  // as configured
  bool trusts(std::string_view address) const;
};

// "127.0.0.0/8, ::1, 10.1.2.3" (commas or blanks). Error config.
Result<TrustedProxies> parse_trusted_proxies(std::string_view text);

// trusted_proxies (default: loopback only).
settings::Setting trusted_proxies_setting(TrustedProxies& proxies);

// The client address as described above, in canonical text. `remote_addr`
// as the web server gave it; the header values "" when absent.
std::string client_address(const TrustedProxies& proxies, std::string_view remote_addr,
                           std::string_view x_forwarded_for, std::string_view forwarded);

}  // namespace authd::http
