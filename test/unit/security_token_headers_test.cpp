// Stops key injection through the token header (RFC 8725 §3.10, the
// "jku/x5u/jwk/kid" attacks): authd never fetches a key from a `jku` or `x5u`
// URL, never trusts a key embedded as `jwk`/`x5c`, and treats `kid` as an
// opaque string (no file path, no query) — a token MACed with an attacker's
// key is refused whatever its header says, and no connection is ever made to
// a URL it names.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "authd/json.hpp"
#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;

// A TCP listener on 127.0.0.1 (ephemeral port) that records whether anybody
// connected to it.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd_, 16) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    socklen_t length = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~Listener() { ::close(fd_); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  unsigned short port() const noexcept { return port_; }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  // True when a connection is waiting (checked for up to `millis`).
  bool contacted(int millis = 300) const {
    pollfd ready{fd_, POLLIN, 0};
    return ::poll(&ready, 1, millis) > 0;
  }

 private:
  int fd_ = -1;
  unsigned short port_ = 0;
};

const std::string kAttackerKey = "attacker-chosen-key-0123456789abcdef";

std::string header_plus(std::string_view members) {
  return R"({"alg":"HS256","typ":"at+jwt",)" + std::string(members) + "}";
}

TEST(SecurityTokenHeaders, ControlTheListenerNoticesAConnection) {
  Listener listener;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(listener.port());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_TRUE(listener.contacted());
  ::close(fd);
}

TEST(SecurityTokenHeaders, KeyUrlsAreNeverFetched) {
  Listener listener;
  const auto tokens = service();
  const std::vector<std::string> headers{
      header_plus(R"("jku":")" + listener.url("/jwks.json") + "\""),
      header_plus(R"("x5u":")" + listener.url("/cert.pem") + "\""),
      header_plus(R"("jku":")" + listener.url("/a") + R"(","x5u":")" + listener.url("/b") + R"(","kid":")" +
                  listener.url("/c") + "\""),
  };
  for (const auto& header : headers) {
    // MACed with the attacker's key (what the URL would serve): refused.
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload(), kAttackerKey), kAccessTokenType, kNow)),
              "invalid_token")
        << header;
    // MACed with our key: accepted on our key alone; the header is inert.
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload()), kAccessTokenType, kNow)), "ok") << header;
  }
  EXPECT_FALSE(listener.contacted()) << "verify() connected to a URL named in a token header";
}

TEST(SecurityTokenHeaders, AnEmbeddedKeyIsNeverTrusted) {
  const auto tokens = service();
  const std::string jwk = R"("jwk":{"kty":"oct","k":")" + b64u(kAttackerKey) + R"("})";
  EXPECT_EQ(outcome(tokens.verify(forge(header_plus(jwk), payload(), kAttackerKey), kAccessTokenType, kNow)),
            "invalid_token");
  const std::string x5c = R"("x5c":["MIIBszCCAVmgAwIBAgIUexample"])";
  EXPECT_EQ(outcome(tokens.verify(forge(header_plus(x5c), payload(), kAttackerKey), kAccessTokenType, kNow)),
            "invalid_token");
}

TEST(SecurityTokenHeaders, KidIsOpaque) {
  const auto tokens = service();
  // The classic kid tricks: a path to a known file (/dev/null -> empty key),
  // SQL, a URL. MACed with the key those would produce: refused.
  const std::vector<std::pair<std::string, std::string>> tricks{
      {"/dev/null", ""},
      {"../../../../../../dev/null", ""},
      {"' UNION SELECT 'attacker-chosen-key-0123456789abcdef' --", kAttackerKey},
      {"signing.key", kAttackerKey},
  };
  for (const auto& [kid, key] : tricks) {
    const auto header = header_plus(R"("kid":)" + Json::string(kid).dump());
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload(), key), kAccessTokenType, kNow)), "invalid_token")
        << "kid " << kid;
    // With our key any kid is fine: it selects nothing.
    EXPECT_EQ(outcome(tokens.verify(forge(header, payload()), kAccessTokenType, kNow)), "ok") << "kid " << kid;
  }
}

}  // namespace
}  // namespace authd
