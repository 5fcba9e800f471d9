// The LMDB store's one-read lookups answer from a cache kept until the next
// commit (lib/store/lmdb/snapshot_cache.hpp). What it must never do: answer
// with a user, record or list that a commit has changed, whichever process
// committed (authd's own writes, a second node or authctl on the same files).
#include "store/lmdb/snapshot_cache.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "authd/clock.hpp"
#include "authd/store.hpp"
#include "authd/store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

LmdbOptions options_in(const std::filesystem::path& directory) {
  LmdbOptions options;
  options.directory = directory;
  options.map_size_bytes = std::size_t{64} << 20;
  options.sync = false;
  return options;
}

User user_named(std::string username, Role role) {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.role = role;
  user.created_at = user.updated_at = 1700000000;
  return user;
}

Result<void> write(Store& store, const std::function<Result<void>(StoreTxn&)>& work) { return store.write(work); }

Role role_of(Store& store, std::string_view username) {
  auto user = store.find_user(username);
  EXPECT_TRUE(user.has_value());
  return user ? user->role : Role::user;
}

class LmdbSnapshotCache : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = open_lmdb_store(options_in(dir_.path() / "db"));
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
  }
  test::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(LmdbSnapshotCache, ThisProcesssCommitsAreSeenAtOnce) {
  Store& s = *store_;
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.insert_user(user_named("alice", Role::user)); }));

  EXPECT_EQ(Role::user, role_of(s, "alice"));
  EXPECT_EQ(Role::user, role_of(s, "alice"));  // the second from the cache
  ASSERT_TRUE(write(s, [](StoreTxn& txn) -> Result<void> {
    auto alice = txn.find_user("alice");
    if (!alice) return std::unexpected(alice.error());
    alice->role = Role::admin;
    return txn.replace_user(*alice);
  }));
  EXPECT_EQ(Role::admin, role_of(s, "alice"));
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.delete_user("alice"); }));
  auto gone = s.find_user("alice");
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(Errc::not_found, gone.error().code);
}

TEST_F(LmdbSnapshotCache, RecordsAndTheirListFollowEveryCommit) {
  Store& s = *store_;

  EXPECT_EQ("[]", s.list_records().value_or("?"));
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.insert_record("r1", R"({"v":1})"); }));
  EXPECT_EQ(R"([{"v":1}])", s.list_records().value_or("?"));
  EXPECT_EQ(R"({"v":1})", s.find_record("r1").value_or("?"));
  EXPECT_EQ(R"({"v":1})", s.find_record("r1").value_or("?"));
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.replace_record("r1", R"({"v":2})"); }));
  EXPECT_EQ(R"({"v":2})", s.find_record("r1").value_or("?"));
  EXPECT_EQ(R"([{"v":2}])", s.list_records().value_or("?"));
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.delete_record("r1"); }));
  EXPECT_FALSE(s.find_record("r1").has_value());
  EXPECT_EQ("[]", s.list_records().value_or("?"));
}

// A failed write commits nothing: what was kept stays good, and right.
TEST_F(LmdbSnapshotCache, AnAbortedWriteLeavesTheKeptAnswersRight) {
  Store& s = *store_;
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.insert_user(user_named("alice", Role::user)); }));
  EXPECT_EQ(Role::user, role_of(s, "alice"));
  auto refused = write(s, [](StoreTxn& txn) -> Result<void> {
    auto alice = txn.find_user("alice");
    if (!alice) return std::unexpected(alice.error());
    alice->role = Role::admin;
    if (auto ok = txn.replace_user(*alice); !ok) return ok;
    return fail(Errc::conflict, "changed my mind");
  });
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(Role::user, role_of(s, "alice"));
}

// Another process (a second node, authctl) commits on the same files while
// this one holds answers: the next lookups read its change.
TEST(LmdbSnapshotCacheAcrossProcesses, AnotherProcesssCommitsAreSeenAtOnce) {
  test::TempDir dir;
  const auto db = dir.path() / "db";
  int go[2];
  ASSERT_EQ(0, ::pipe(go));
  const pid_t child = ::fork();  // before this process opens the environment
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) ::_exit(10);
    auto other = open_lmdb_store(options_in(db));
    if (!other) ::_exit(11);
    auto done = (*other)->write([](StoreTxn& txn) -> Result<void> {
      auto alice = txn.find_user("alice");
      if (!alice) return std::unexpected(alice.error());
      alice->role = Role::editor;
      if (auto ok = txn.replace_user(*alice); !ok) return ok;
      return txn.insert_record("r2", R"({"by":"other"})");
    });
    ::_exit(done ? 0 : 12);
  }
  ::close(go[0]);
  auto store = open_lmdb_store(options_in(db));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  Store& s = **store;
  ASSERT_TRUE(write(s, [](StoreTxn& txn) { return txn.insert_user(user_named("alice", Role::user)); }));
  EXPECT_EQ(Role::user, role_of(s, "alice"));
  EXPECT_EQ("[]", s.list_records().value_or("?"));
  EXPECT_FALSE(s.find_record("r2").has_value());

  ASSERT_EQ(1, ::write(go[1], "x", 1));
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(child, ::waitpid(child, &status, 0));
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(0, WEXITSTATUS(status));

  EXPECT_EQ(Role::editor, role_of(s, "alice"));
  EXPECT_EQ(R"([{"by":"other"}])", s.list_records().value_or("?"));
  EXPECT_EQ(R"({"by":"other"})", s.find_record("r2").value_or("?"));
}

TEST(SnapshotCache, AnswersOnlyForTheSnapshotItWasReadFrom) {
  lmdb::SnapshotCache<std::string> cache(64);
  cache.put("k", 5, "five");
  EXPECT_EQ("five", cache.find("k", 5).value_or("-"));
  EXPECT_FALSE(cache.find("k", 6).has_value());
  cache.put("k", 4, "four");  // a read that began before the one kept
  EXPECT_EQ("five", cache.find("k", 5).value_or("-"));
  cache.put("k", 7, "seven");
  EXPECT_EQ("seven", cache.find("k", 7).value_or("-"));
  EXPECT_FALSE(cache.find("other", 7).has_value());
}

TEST(SnapshotCache, StaysWithinItsCapacity) {
  lmdb::SnapshotCache<std::string> cache(16);  // one entry per shard
  for (int i = 0; i < 1000; ++i) cache.put("key" + std::to_string(i), 1, "v");
  int kept = 0;
  for (int i = 0; i < 1000; ++i) kept += cache.find("key" + std::to_string(i), 1).has_value() ? 1 : 0;
  EXPECT_LE(kept, 16);
  EXPECT_GE(kept, 1);
  cache.put("last", 1, "here");
  EXPECT_EQ("here", cache.find("last", 1).value_or("-"));
}

}  // namespace
}  // namespace authd
