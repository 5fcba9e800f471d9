#include <gtest/gtest.h>

#include "http/address_list.hpp"

namespace authd::http {
namespace {

TEST(AddressList, LoopbackDefault) {
  auto list = AddressList::parse("127.0.0.1/8 ::1");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->contains("127.0.0.1"));
  EXPECT_TRUE(list->contains("127.3.2.1"));
  EXPECT_TRUE(list->contains("::1"));
  EXPECT_TRUE(list->contains("::ffff:127.0.0.1"));
  EXPECT_FALSE(list->contains("128.0.0.1"));
  EXPECT_FALSE(list->contains("::2"));
  EXPECT_FALSE(list->contains(""));
  EXPECT_FALSE(list->contains("localhost"));
}

TEST(AddressList, RangesAndErrors) {
  auto list = AddressList::parse("10.0.0.0/8, 192.0.2.7,2001:db8::/32");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->contains("10.200.1.1"));
  EXPECT_TRUE(list->contains("192.0.2.7"));
  EXPECT_FALSE(list->contains("192.0.2.8"));
  EXPECT_TRUE(list->contains("2001:db8:1::5"));
  EXPECT_FALSE(AddressList::parse("10.0.0.0/33"));
  EXPECT_FALSE(AddressList::parse("example.com"));
  auto empty = AddressList::parse("");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->contains("127.0.0.1"));
}

// to_string writes IPv4 itself (not through inet_ntop): every form parse_ip
// takes gives the canonical text, as inet_ntop would.
TEST(AddressList, CanonicalText) {
  const std::pair<const char*, const char*> cases[] = {
      {"0.0.0.0", "0.0.0.0"},           {"255.255.255.255", "255.255.255.255"},
      {"192.0.2.10", "192.0.2.10"},     {"10.100.0.9:8080", "10.100.0.9"},
      {"\"203.0.113.7\"", "203.0.113.7"}, {"::ffff:198.51.100.99", "198.51.100.99"},
      {"[2001:DB8::1]:443", "2001:db8::1"}, {"::1", "::1"}};
  for (const auto& [given, canonical] : cases) {
    const auto address = parse_ip(given);
    ASSERT_TRUE(address) << given;
    EXPECT_EQ(to_string(*address), canonical) << given;
  }
}

}  // namespace
}  // namespace authd::http
