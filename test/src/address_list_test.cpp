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

}  // namespace
}  // namespace authd::http
