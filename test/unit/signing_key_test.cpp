#include "authd/signing_key.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <span>
#include <vector>

#include "authd/crypto.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0xffffffffu;
  return static_cast<unsigned>(st.st_mode) & 07777u;
}

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
}

TEST(SigningKey, CreatesA32ByteKeyFileWithMode0600InA0700Directory) {
  test::TempDir tmp;
  const fs::path dir = tmp.path() / "state";
  const fs::path file = dir / "signing.key";
  auto key = load_or_create_signing_key(file);
  ASSERT_TRUE(key.has_value()) << key.error().message;
  EXPECT_EQ(key->bytes().size(), kMinSigningKeyBytes);
  EXPECT_EQ(key->bytes().size(), 32u);
  ASSERT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(fs::file_size(file), 32u);
  EXPECT_EQ(mode_of(file), 0600u);
  EXPECT_EQ(mode_of(dir), 0700u);
}

TEST(SigningKey, SecondLoadReturnsTheSameKey) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "signing.key";
  auto first = load_or_create_signing_key(file);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto second = load_or_create_signing_key(file);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(first->bytes(), second->bytes());
}

TEST(SigningKey, ConcurrentProcessesAllGetTheSameKey) {
  // The contract: several processes starting at once end up with one key.
  test::TempDir tmp;
  const fs::path file = tmp.path() / "state" / "signing.key";
  constexpr int kProcesses = 8;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: wait for the start signal (EOF on the pipe), then race.
      ::close(ready[1]);
      char c;
      while (::read(ready[0], &c, 1) > 0) {
      }
      auto key = load_or_create_signing_key(file);
      const fs::path out = tmp.path() / ("out." + std::to_string(i));
      std::ofstream o(out, std::ios::binary);
      if (key) {
        o << crypto::to_hex(std::span<const unsigned char>(
            reinterpret_cast<const unsigned char*>(key->bytes().data()), key->bytes().size()));
      } else {
        o << "ERROR " << key.error().message;
      }
      o.close();
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(ready[0]);
  ::close(ready[1]);  // start
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> keys;
  for (int i = 0; i < kProcesses; ++i) {
    std::ifstream in(tmp.path() / ("out." + std::to_string(i)), std::ios::binary);
    std::string line;
    std::getline(in, line);
    keys.push_back(line);
  }
  for (int i = 0; i < kProcesses; ++i) {
    const std::string& k = keys[static_cast<std::size_t>(i)];
    EXPECT_EQ(k.size(), 64u) << "process " << i << ": " << k;
    EXPECT_EQ(k, keys[0]) << "process " << i;
  }
  auto reloaded = load_or_create_signing_key(file);
  ASSERT_TRUE(reloaded.has_value());
  EXPECT_EQ(crypto::to_hex(std::span<const unsigned char>(
                reinterpret_cast<const unsigned char*>(reloaded->bytes().data()),
                reloaded->bytes().size())),
            keys[0]);
  // No temporary files are left behind.
  for (const auto& entry : fs::directory_iterator(file.parent_path())) {
    EXPECT_EQ(entry.path().filename(), "signing.key") << entry.path();
  }
}

TEST(SigningKey, DifferentFilesGetDifferentKeys) {
  test::TempDir tmp;
  auto a = load_or_create_signing_key(tmp.path() / "a.key");
  auto b = load_or_create_signing_key(tmp.path() / "b.key");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a->bytes(), b->bytes());
}

TEST(SigningKey, ExistingFileIsReadAsIs) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "signing.key";
  const std::string content(48, 'k');
  write_file(file, content);
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  auto key = load_or_create_signing_key(file);
  ASSERT_TRUE(key.has_value()) << key.error().message;
  EXPECT_EQ(key->bytes(), content);
}

TEST(SigningKey, ShortFileIsAnError) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "signing.key";
  write_file(file, std::string(10, 'x'));
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  auto key = load_or_create_signing_key(file);
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().code, Errc::config) << key.error().message;
  // The short file is not silently replaced.
  EXPECT_EQ(fs::file_size(file), 10u);
}

TEST(SigningKey, EmptyFileIsAnError) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "signing.key";
  write_file(file, "");
  auto key = load_or_create_signing_key(file);
  EXPECT_FALSE(key.has_value());
}

TEST(SigningKey, DirectoryPathIsAnIoError) {
  test::TempDir tmp;
  auto key = load_or_create_signing_key(tmp.path());
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().code, Errc::io) << key.error().message;
}

TEST(SigningKey, FromHexAcceptsA32ByteKey) {
  const std::string hex =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  auto key = signing_key_from_hex(hex);
  ASSERT_TRUE(key.has_value()) << key.error().message;
  ASSERT_EQ(key->bytes().size(), 32u);
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(static_cast<unsigned char>(key->bytes()[i]), i);
  }
}

TEST(SigningKey, FromHexRejectsShortKeys) {
  auto key = signing_key_from_hex(std::string(62, 'a'));  // 31 bytes
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().code, Errc::config);
  auto empty = signing_key_from_hex("");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, Errc::config);
}

TEST(SigningKey, FromHexRejectsNonHex) {
  std::string hex(64, 'a');
  hex[10] = 'g';
  auto key = signing_key_from_hex(hex);
  ASSERT_FALSE(key.has_value());
  EXPECT_EQ(key.error().code, Errc::config);
  auto odd = signing_key_from_hex(std::string(65, 'a'));
  ASSERT_FALSE(odd.has_value());
  EXPECT_EQ(odd.error().code, Errc::config);
}

TEST(SigningKey, CopiesKeepTheBytes) {
  SigningKey a(std::string(32, 'z'));
  SigningKey b = a;
  EXPECT_EQ(a.bytes(), b.bytes());
  SigningKey c = std::move(b);
  EXPECT_EQ(c.bytes(), std::string(32, 'z'));
}

}  // namespace
}  // namespace authd
