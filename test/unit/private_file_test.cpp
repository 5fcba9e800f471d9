// PrivateFile (authd/private_file.hpp), the way every file authctl writes is
// made (export, backup, restore's copy, the signing key).
// Attack (SECURITY.md, issue 41 class 13): `authctl export FILE` created FILE
// with mode 0666 less the umask, followed a symlink planted at FILE (writing
// the export, password hashes and second factors, wherever it pointed) and
// only then narrowed the mode. A PrivateFile is created exclusively under a
// random name beside FILE with its final mode whatever the umask, and renamed
// onto FILE: a link there is replaced, never written through.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "authd/private_file.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned mode_of(const fs::path& file) {
  struct stat info{};
  if (::lstat(file.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

// The umask of the test, set for one scope.
struct Umask {
  explicit Umask(mode_t mask) : old(::umask(mask)) {}
  ~Umask() { ::umask(old); }
  mode_t old;
};

std::size_t entries(const fs::path& directory) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(directory), fs::directory_iterator()));
}

TEST(PrivateFile, FinalModeWhateverTheUmask) {
  test::TempDir dir;
  for (const mode_t mask : {mode_t{0}, mode_t{022}, mode_t{0277}}) {
    Umask umask(mask);
    const auto file = dir.path() / ("out" + std::to_string(mask));
    ASSERT_TRUE(write_private_file(file, "secret\n"));
    EXPECT_EQ(mode_of(file), 0600u) << "umask " << mask;
    EXPECT_EQ(read(file), "secret\n");
  }
  Umask open_umask(0);
  const auto shared = dir.path() / "shared";
  ASSERT_TRUE(write_private_file(shared, "x", 0640));
  EXPECT_EQ(mode_of(shared), 0640u);
}

TEST(PrivateFile, ALinkAtTheTargetIsReplacedNeverFollowed) {
  test::TempDir dir;
  const auto victim = dir.path() / "victim";
  { std::ofstream(victim) << "the user's own file\n"; }
  ::chmod(victim.c_str(), 0644);
  const auto file = dir.path() / "export.jsonl";
  fs::create_symlink(victim, file);
  ASSERT_TRUE(write_private_file(file, "exported\n"));
  EXPECT_EQ(read(victim), "the user's own file\n") << "the link's target is untouched";
  EXPECT_EQ(mode_of(victim), 0644u);
  EXPECT_FALSE(fs::is_symlink(file)) << "the link itself was replaced";
  EXPECT_EQ(read(file), "exported\n");
  EXPECT_EQ(mode_of(file), 0600u);

  // A dangling link: nothing is created where it points.
  const auto dangling = dir.path() / "dangling";
  fs::create_symlink(dir.path() / "created-elsewhere", dangling);
  ASSERT_TRUE(write_private_file(dangling, "x"));
  EXPECT_FALSE(fs::exists(dir.path() / "created-elsewhere"));
  EXPECT_FALSE(fs::is_symlink(dangling));
}

TEST(PrivateFile, RefuseKeepsWhatIsThereLinksIncluded) {
  test::TempDir dir;
  const auto victim = dir.path() / "victim";
  { std::ofstream(victim) << "kept\n"; }
  const auto link = dir.path() / "backup.mdb";
  fs::create_symlink(victim, link);
  auto refused = write_private_file(link, "new", 0600, PrivateFile::Existing::refuse);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::conflict);
  EXPECT_EQ(read(victim), "kept\n");
  EXPECT_TRUE(fs::is_symlink(link));
  const auto fresh = dir.path() / "fresh";
  ASSERT_TRUE(write_private_file(fresh, "new", 0600, PrivateFile::Existing::refuse));
  EXPECT_EQ(read(fresh), "new");
  EXPECT_EQ(entries(dir.path()), 3u) << "no temporary file left behind";
}

TEST(PrivateFile, NothingUnderTheNameUntilCommitAndNothingLeftWithout) {
  test::TempDir dir;
  const auto file = dir.path() / "partial";
  {
    auto open = PrivateFile::create(file);
    ASSERT_TRUE(open);
    ASSERT_TRUE(open->write("half"));
    EXPECT_FALSE(fs::exists(file));
    EXPECT_EQ(entries(dir.path()), 1u);
  }
  EXPECT_EQ(entries(dir.path()), 0u) << "dropped without commit: the temporary file is gone";
  EXPECT_FALSE(PrivateFile::create(dir.path() / "no-such-dir" / "file"));
}

}  // namespace
}  // namespace authd
