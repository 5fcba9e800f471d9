#include <gtest/gtest.h>

#include "http/forwarded.hpp"

namespace authd::http {
namespace {

AddressList list(std::string_view text) {
  auto parsed = AddressList::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed ? std::move(*parsed) : AddressList();
}

TEST(ClientAddress, AnUntrustedPeerIsTheClientWhateverItForwards) {
  const auto proxies = list("127.0.0.1");
  const auto client = client_address(proxies, "192.0.2.9", "203.0.113.5", "for=203.0.113.6");
  EXPECT_EQ(client.address, "192.0.2.9");
  EXPECT_FALSE(client.from_trusted_proxy);
}

TEST(ClientAddress, ATrustedPeerNamesTheClientFromTheRight) {
  const auto proxies = list("127.0.0.1 10.0.0.0/8");
  auto client = client_address(proxies, "127.0.0.1", "198.51.100.1, 203.0.113.5, 10.1.2.3", "");
  EXPECT_EQ(client.address, "203.0.113.5");
  EXPECT_TRUE(client.from_trusted_proxy);
  client = client_address(proxies, "127.0.0.1", "", "for=192.0.2.60;proto=http, for=10.0.0.4");
  EXPECT_EQ(client.address, "192.0.2.60");
  client = client_address(proxies, "127.0.0.1", "", "");
  EXPECT_EQ(client.address, "127.0.0.1");
  EXPECT_TRUE(client.from_trusted_proxy);
}

TEST(ClientAddress, AddressTextIsCanonicalAndNonAddressesPassThrough) {
  const auto proxies = list("::1");
  EXPECT_EQ(client_address(proxies, "10.100.0.9:8080", "", "").address, "10.100.0.9");
  EXPECT_EQ(client_address(proxies, "2001:DB8::0:1", "", "").address, "2001:db8::1");
  EXPECT_EQ(client_address(proxies, "unix:", "", "").address, "unix:");
  EXPECT_FALSE(client_address(proxies, "unix:", "", "").from_trusted_proxy);
}

// The REMOTE_ADDR judgement is remembered per thread (forwarded.cpp): it must
// follow the list it is asked about (a reload changes trusted_proxies) and the
// address, never answer from the last call's.
TEST(ClientAddress, TheSamePeerIsJudgedByEachListAnew) {
  const auto trusting = list("127.0.0.1");
  const auto other = list("10.0.0.1");
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(client_address(trusting, "127.0.0.1", "203.0.113.5", "").from_trusted_proxy);
    EXPECT_EQ(client_address(trusting, "127.0.0.1", "203.0.113.5", "").address, "203.0.113.5");
    const auto client = client_address(other, "127.0.0.1", "203.0.113.5", "");
    EXPECT_FALSE(client.from_trusted_proxy);
    EXPECT_EQ(client.address, "127.0.0.1");
    EXPECT_FALSE(client_address(trusting, "127.0.0.2", "203.0.113.5", "").from_trusted_proxy);
    EXPECT_EQ(client_address(trusting, "127.0.0.2", "203.0.113.5", "").address, "127.0.0.2");
  }
}

}  // namespace
}  // namespace authd::http
