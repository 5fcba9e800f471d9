// Attack: reading the signing key. A signing.key that the group or other
// local users can read (copied with the wrong umask, restored from a backup,
// chmod 644 by hand) lets any of them mint tokens for any user. authd refuses
// to start with such a key instead of signing with it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "authd/signing_key.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

TEST(SecuritySigningKeyMode, AKeyReadableByGroupOrOthersStopsTheStart) {
  const auto dir = fs::temp_directory_path() / ("authd-keymode-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto file = dir / "signing.key";
  { std::ofstream(file) << std::string(32, 'k'); }
  for (auto mode : {fs::perms::group_read, fs::perms::others_read, fs::perms::group_write, fs::perms::others_write}) {
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | mode, fs::perm_options::replace);
    auto key = load_or_create_signing_key(file);
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, Errc::config);
    EXPECT_NE(key.error().message.find("chmod 600"), std::string::npos);
  }
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  EXPECT_TRUE(load_or_create_signing_key(file));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace authd
