// Stops brute-forcing of the HMAC key (RFC 7518 §3.2, RFC 8725 §3.5): a
// signing key shorter than 32 bytes is refused wherever it comes from (inline
// hex, a key file, the token service itself), and a generated key is 32
// random bytes in a 0600 file inside a 0700 directory.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "authd/signing_key.hpp"
#include "authd/token.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

// Owner-only, as a key file must be (security_signing_key_mode_test.cpp).
void write_file(const std::filesystem::path& path, const std::string& bytes) {
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace);
}

unsigned mode_of(const std::filesystem::path& path) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) return 07777;
  return info.st_mode & 07777;
}

TEST(SecuritySigningKey, TheTokenServiceRefusesAKeyUnder32Bytes) {
  for (std::size_t size : {0u, 1u, 16u, 31u}) {
    auto created = TokenService::create(SigningKey(std::string(size, 'k')), TokenPolicy{});
    ASSERT_FALSE(created) << size << " bytes";
    EXPECT_EQ(created.error().code, Errc::config);
  }
  EXPECT_TRUE(TokenService::create(SigningKey(std::string(32, 'k')), TokenPolicy{}));  // control
}

TEST(SecuritySigningKey, HexKeysUnder32BytesAreRefused) {
  EXPECT_EQ(outcome(signing_key_from_hex(std::string(62, 'a'))), "config") << "31 bytes";
  EXPECT_EQ(outcome(signing_key_from_hex("")), "config");
  EXPECT_EQ(outcome(signing_key_from_hex("00")), "config");
  EXPECT_EQ(outcome(signing_key_from_hex(std::string(63, 'a'))), "config") << "odd length";
  EXPECT_EQ(outcome(signing_key_from_hex(std::string(62, 'a') + "zz")), "config") << "not hex";
  EXPECT_EQ(outcome(signing_key_from_hex(std::string(64, 'a'))), "ok");  // control
}

TEST(SecuritySigningKey, KeyFilesUnder32BytesAreRefused) {
  test::TempDir dir;
  const auto file = dir.path() / "signing.key";
  write_file(file, std::string(31, 'k'));
  EXPECT_EQ(outcome(load_or_create_signing_key(file)), "config") << "31 bytes";
  write_file(file, "");
  EXPECT_EQ(outcome(load_or_create_signing_key(file)), "config") << "empty file: not replaced by a new key";
  EXPECT_EQ(std::filesystem::file_size(file), 0u);
  write_file(file, std::string(32, 'k'));
  EXPECT_EQ(outcome(load_or_create_signing_key(file)), "ok");  // control
}

TEST(SecuritySigningKey, AGeneratedKeyIs32PrivateRandomBytes) {
  test::TempDir dir;
  const auto first = dir.path() / "a" / "signing.key";
  const auto second = dir.path() / "b" / "signing.key";
  auto a = load_or_create_signing_key(first);
  auto b = load_or_create_signing_key(second);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->bytes().size(), 32u);
  EXPECT_NE(a->bytes(), b->bytes());
  EXPECT_EQ(mode_of(first), 0600u);
  EXPECT_EQ(mode_of(first.parent_path()), 0700u);
}

}  // namespace
}  // namespace authd
