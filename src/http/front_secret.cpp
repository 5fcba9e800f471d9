#include "http/front_secret.hpp"

#include <sys/socket.h>

#include <utility>

#include "authd/crypto.hpp"
#include "http/error_response.hpp"
#include "program/log.hpp"

namespace authd {

bool is_tcp_socket(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  return address.ss_family == AF_INET || address.ss_family == AF_INET6;
}

Prepare require_front_secret(std::string secret, Prepare prepare) {
  // Digests of equal length: the comparison's time tells nothing, not even the length.
  const auto expected = crypto::sha256(secret);
  crypto::wipe(secret.data(), secret.size());
  return [expected, prepare = std::move(prepare)](http::Request&& request) -> Prepared {
    if (crypto::equal_constant_time(crypto::sha256(request.param(kFrontSecretParam)), expected)) {
      return prepare(std::move(request));
    }
    // Never the value sent: it may be a near miss of the real one.
    log::warn(std::string("refused a FastCGI request over TCP without the right ") + kFrontSecretParam +
              " (a local program, not the web server?)");
    Prepared refused;
    refused.response = http::error_response(Error(Errc::not_permitted, "the web server did not send the front secret"));
    return refused;
  };
}

}  // namespace authd
