#include "authd/password.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::string_view kPhcPrefix = "$argon2id$v=19$";

// `hasher`'s hash of `password`: a failed check, and "", when hashing fails.
std::string hashed(const PasswordHasher& hasher, std::string_view password) {
  auto hash = hasher.hash(password);
  EXPECT_TRUE(hash.has_value()) << hash.error().message;
  return hash.value_or("");
}

TEST(Password, DefaultParamsAreOwasp) {
  Argon2Params p;
  EXPECT_EQ(p.iterations, 2u);
  EXPECT_EQ(p.memory_kib, 19456u);
  EXPECT_EQ(p.parallelism, 1u);
}

TEST(Password, DefaultParamsAppearInThePhcString) {
  PasswordHasher hasher(Argon2Params{});
  auto hash = hasher.hash("correct horse battery staple");
  ASSERT_TRUE(hash.has_value()) << hash.error().message;
  EXPECT_TRUE(hash->starts_with("$argon2id$v=19$m=19456,t=2,p=1$")) << *hash;
  EXPECT_TRUE(hasher.verify(*hash, "correct horse battery staple"));
  EXPECT_FALSE(hasher.verify(*hash, "correct horse battery stapl"));
}

TEST(Password, HashHasPhcFormat) {
  PasswordHasher hasher(test::kFastArgon2);
  EXPECT_EQ(hasher.params().memory_kib, 256u);
  auto hash = hasher.hash("secret");
  ASSERT_TRUE(hash.has_value()) << hash.error().message;
  EXPECT_TRUE(hash->starts_with(kPhcPrefix)) << *hash;
  EXPECT_TRUE(hash->starts_with("$argon2id$v=19$m=256,t=1,p=1$")) << *hash;
  // $argon2id$v=19$m=..,t=..,p=..$<salt>$<hash>: 5 '$' separators.
  EXPECT_EQ(std::count(hash->begin(), hash->end(), '$'), 5) << *hash;
  EXPECT_EQ(hash->find("secret"), std::string::npos);
}

TEST(Password, VerifyAcceptsTheRightPasswordOnly) {
  PasswordHasher hasher(test::kFastArgon2);
  const std::string hash = hashed(hasher, "s3cret:with:colons");
  EXPECT_TRUE(hasher.verify(hash, "s3cret:with:colons"));
  EXPECT_FALSE(hasher.verify(hash, "s3cret:with:colon"));
  EXPECT_FALSE(hasher.verify(hash, "S3cret:with:colons"));
  EXPECT_FALSE(hasher.verify(hash, ""));
}

TEST(Password, TwoHashesOfTheSamePasswordDiffer) {
  PasswordHasher hasher(test::kFastArgon2);
  const std::string a = hashed(hasher, "same");
  const std::string b = hashed(hasher, "same");
  EXPECT_NE(a, b);
  EXPECT_TRUE(hasher.verify(a, "same"));
  EXPECT_TRUE(hasher.verify(b, "same"));
}

TEST(Password, VerifyUsesTheParametersInTheHash) {
  PasswordHasher fast(test::kFastArgon2);
  PasswordHasher other(Argon2Params{2, 512, 2});
  auto hash = other.hash("pw");
  ASSERT_TRUE(hash.has_value()) << hash.error().message;
  EXPECT_TRUE(hash->starts_with("$argon2id$v=19$m=512,t=2,p=2$")) << *hash;
  EXPECT_TRUE(fast.verify(*hash, "pw"));
}

TEST(Password, EmptyAndBinaryPasswordsWork) {
  PasswordHasher hasher(test::kFastArgon2);
  const std::string empty = hashed(hasher, "");
  EXPECT_TRUE(hasher.verify(empty, ""));
  EXPECT_FALSE(hasher.verify(empty, "x"));

  const std::string binary("a\0b", 3);
  const std::string bin = hashed(hasher, binary);
  EXPECT_TRUE(hasher.verify(bin, binary));
  EXPECT_FALSE(hasher.verify(bin, "a"));
}

TEST(Password, MalformedHashesVerifyFalse) {
  PasswordHasher hasher(test::kFastArgon2);
  auto good = hasher.hash("pw");
  ASSERT_TRUE(good.has_value());
  std::string truncated = good->substr(0, good->size() - 5);
  std::string argon2i = *good;
  argon2i.replace(0, 9, "$argon2i");  // "$argon2id" -> "$argon2i"
  for (const std::string& bad :
       {std::string(), std::string("pw"), std::string("$argon2id$"),
        std::string("$argon2id$v=19$m=256,t=1,p=1$"), truncated, argon2i,
        std::string("$2b$10$abcdefghijklmnopqrstuu5Zx1.9k3e1Y2p0Qv2nJ8bQ6pC0b1aG"),
        std::string("$argon2id$v=19$m=256,t=1,p=1$!!!!$????")}) {
    EXPECT_FALSE(hasher.verify(bad, "pw")) << '"' << bad << '"';
  }
}

TEST(Password, TamperedHashVerifiesFalse) {
  PasswordHasher hasher(test::kFastArgon2);
  auto good = hasher.hash("pw");
  ASSERT_TRUE(good.has_value());
  std::string tampered = *good;
  char& last = tampered[tampered.size() - 2];
  last = (last == 'A') ? 'B' : 'A';
  EXPECT_FALSE(hasher.verify(tampered, "pw"));
}

TEST(Password, VerifyDummyReturnsFalse) {
  PasswordHasher hasher(test::kFastArgon2);
  EXPECT_FALSE(hasher.verify_dummy("anything"));
  EXPECT_FALSE(hasher.verify_dummy(""));
}

TEST(Password, HasherIsCopyable) {
  PasswordHasher a(test::kFastArgon2);
  PasswordHasher b = a;
  auto hash = a.hash("pw");
  ASSERT_TRUE(hash.has_value());
  EXPECT_TRUE(b.verify(*hash, "pw"));
}

}  // namespace
}  // namespace authd

// The PHC string is written and read by our own code (to reuse argon2's
// working memory); it must stay byte-compatible with libargon2's encoder.
TEST(PasswordCompatibility, VerifiesAHashWrittenByLibargon2) {
  // argon2id_hash_encoded(t=2, m=256, p=1, "correct horse", salt "somesaltsomesalt", 32 bytes)
  constexpr const char* kFromLibargon2 =
      "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2Tz31/DvwM3ZDNXezOIBNEq021DwStEmw1lLBM1roy4";
  authd::PasswordHasher hasher({2, 256, 1});
  EXPECT_TRUE(hasher.verify(kFromLibargon2, "correct horse"));
  EXPECT_FALSE(hasher.verify(kFromLibargon2, "correct horsf"));
}

TEST(PasswordCompatibility, RefusesPlantedParametersBeyondBounds) {
  authd::PasswordHasher hasher({1, 256, 1});
  // 8 GiB of memory or 1000 iterations would be a denial of service.
  EXPECT_FALSE(hasher.verify("$argon2id$v=19$m=8388608,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2Tz31/DvwM3ZDNXezOIBNEq021DwStEmw1lLBM1roy4", "x"));
  EXPECT_FALSE(hasher.verify("$argon2id$v=19$m=256,t=1000,p=1$c29tZXNhbHRzb21lc2FsdA$2Tz31/DvwM3ZDNXezOIBNEq021DwStEmw1lLBM1roy4", "x"));
  EXPECT_FALSE(hasher.verify("$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2Tz31/DvwM3ZDNXezOIBNEq021DwStEmw1lLBM1roy4", "correct horse"));
}
