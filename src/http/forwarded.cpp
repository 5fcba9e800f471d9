#include "http/forwarded.hpp"

#include <algorithm>

#include "authd/text.hpp"

namespace authd::http {
namespace {

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

// REMOTE_ADDR judged on its own: its canonical text and whether it is a
// trusted proxy. Remembered per thread for the last address and list seen:
// when the web server stands behind a proxy or load balancer (what
// trusted_proxies is for), REMOTE_ADDR is one of a few addresses, and parsing
// and matching it was a twentieth of a guarded read; a web server facing the
// clients itself misses, for the cost of two short comparisons and copies.
// Keyed on the list's configured text, which determines its contents, so a
// reload that changes trusted_proxies is never answered from the old list.
struct DirectPeer {
  std::string remote_addr;
  std::string proxies;
  std::string canonical;  // remote_addr itself when it is no address
  bool trusted = false;
};

const DirectPeer& direct_peer(const AddressList& proxies, std::string_view remote_addr) {
  thread_local DirectPeer last;
  thread_local bool known = false;
  if (known && last.remote_addr == remote_addr && last.proxies == proxies.text()) return last;
  const auto direct = parse_ip(remote_addr);
  last.remote_addr = remote_addr;
  last.proxies = proxies.text();
  last.canonical = direct ? to_string(*direct) : std::string(remote_addr);
  last.trusted = direct && proxies.contains(*direct);
  known = true;
  return last;
}

}  // namespace

settings::Setting trusted_proxies_setting(AddressList& proxies) {
  return address_list_setting(
      "trusted_proxies", proxies,
      "Addresses and CIDR ranges of the proxies in front of authd's web server, separated by spaces or commas. "
      "Only their X-Forwarded-For or Forwarded name the client (for the throttle and the limits per address), and "
      "only their X-Original-Method/-URI (nginx) or X-Forwarded-Method/-Uri (Traefik, Caddy) are believed by GET "
      "/auth/check.");
}

ClientAddress client_address(const AddressList& proxies, std::string_view remote_addr,
                             std::string_view x_forwarded_for, std::string_view forwarded) {
  const DirectPeer& direct = direct_peer(proxies, remote_addr);
  ClientAddress client{direct.canonical, false};
  if (!direct.trusted) return client;
  client.from_trusted_proxy = true;
  const bool use_xff = !x_forwarded_for.empty();
  for (const auto element : elements_right_to_left(use_xff ? x_forwarded_for : forwarded)) {
    const auto hop = parse_ip(use_xff ? element : forwarded_for(element));
    if (!hop) break;  // garbage: the last address we could trust stays the client
    client.address = to_string(*hop);
    if (!proxies.contains(*hop)) break;
  }
  return client;
}

}  // namespace authd::http
