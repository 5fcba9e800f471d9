// A list of client addresses and CIDR ranges ("127.0.0.1/8 ::1 10.0.0.0/8"),
// for routes only some clients may reach (GET /metrics). The address checked
// is REMOTE_ADDR as the web server passes it: behind a proxy that is the
// proxy's address.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "authd/error.hpp"

namespace authd::http {

class AddressList {
 public:
  // Entries separated by spaces or commas. Error: config naming the entry.
  static Result<AddressList> parse(std::string_view text);
  // IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked as IPv4.
  bool contains(std::string_view address) const;

 private:
  struct Range {
    bool v6 = false;
    std::array<std::uint8_t, 16> bytes{};
    unsigned prefix = 0;
  };
  std::vector<Range> ranges_;
};

}  // namespace authd::http
