// lib/foundation/text: HTTP's case-insensitive comparison and white space.
#include <gtest/gtest.h>

#include <string>

#include "authd/text.hpp"

namespace authd {
namespace {

TEST(Text, IequalsFoldsAsciiLettersOnly) {
  EXPECT_TRUE(text::iequals("Bearer", "bEARER"));
  EXPECT_TRUE(text::iequals("x-request-id", "X-Request-ID"));
  EXPECT_TRUE(text::iequals("", ""));
  EXPECT_FALSE(text::iequals("Bearer", "Bearer "));
  EXPECT_FALSE(text::iequals("Bearer", "Bearex"));
  // Only A-Z and a-z fold: '@' and '`', '[' and '{' differ by the same bit.
  EXPECT_FALSE(text::iequals("@", "`"));
  EXPECT_FALSE(text::iequals("[", "{"));
  // Bytes over 0x7f compare as they are (Latin-1's É and é are not one letter here).
  EXPECT_FALSE(text::iequals("\xC9", "\xE9"));
  EXPECT_TRUE(text::iequals("\xC9", "\xC9"));
}

// Every pair of bytes, against the plain rule (fold A-Z to a-z, compare).
TEST(Text, IequalsAgreesWithTheFoldOnEveryPairOfBytes) {
  const auto fold = [](int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
  for (int x = 0; x < 256; ++x) {
    for (int y = 0; y < 256; ++y) {
      const std::string a(1, static_cast<char>(x)), b(1, static_cast<char>(y));
      ASSERT_EQ(text::iequals(a, b), fold(x) == fold(y)) << x << " " << y;
    }
  }
}

TEST(Text, TrimOwsRemovesSpacesAndTabsOnly) {
  EXPECT_EQ(text::trim_ows(" \tBearer x\t "), "Bearer x");
  EXPECT_EQ(text::trim_ows("\nx\n"), "\nx\n");
  EXPECT_EQ(text::trim_ows("  "), "");
}

}  // namespace
}  // namespace authd
