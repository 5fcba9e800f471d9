// Who the client is when the web server stands behind proxies, and whether
// the request came from one of ours (trusted_proxies).
//
// The client address is REMOTE_ADDR, unless that is a trusted proxy: then
// X-Forwarded-For (else Forwarded: for=) is read from the right, one hop at a
// time, for as long as the hop just passed is trusted; the first untrusted
// address is the client. A client's own X-Forwarded-For entries (on the left)
// are never reached unless every hop after them is ours.
#pragma once

#include <string>
#include <string_view>

#include "authd/settings.hpp"
#include "http/address_list.hpp"

namespace authd::http {

// trusted_proxies (default: loopback only).
settings::Setting trusted_proxies_setting(AddressList& proxies);

struct ClientAddress {
  std::string address;             // the client, in canonical text
  bool from_trusted_proxy = false;  // REMOTE_ADDR itself is one of `proxies`
};

// The client address as described above. `remote_addr` as the web server
// gave it (its judgement is remembered per thread for the last address and
// list: this runs on every request); the header values "" when absent.
ClientAddress client_address(const AddressList& proxies, std::string_view remote_addr,
                             std::string_view x_forwarded_for, std::string_view forwarded);

}  // namespace authd::http
