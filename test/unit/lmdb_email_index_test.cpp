// The LMDB store's email index (lib/store/lmdb/email_index.hpp) where the
// contract suite cannot see it: a store made before the index gets it built
// at open (growing the map when the index does not fit), and a full map
// leaves the index exactly as complete as the users table.
#include <gtest/gtest.h>
#include <lmdb.h>

#include <string>
#include <vector>

#include "authd/store.hpp"
#include "authd/store_backends.hpp"
#include "store/lmdb/user_codec.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr const char* kIndexTable = "users_by_email";

User user_with(std::string username, std::string email) {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.email = std::move(email);
  user.created_at = 1700000000;
  user.updated_at = 1700000000;
  return user;
}

LmdbOptions options_in(const std::filesystem::path& directory, std::size_t max_bytes = std::size_t{64} << 20) {
  LmdbOptions options;
  options.directory = directory;
  options.map_size_bytes = max_bytes;
  options.initial_map_bytes = std::size_t{64} << 10;
  options.sync = false;
  return options;
}

// The environment opened with LMDB's own API, as another program (or an
// older authd) would: to take the index away or build a store without it.
class RawEnv {
 public:
  explicit RawEnv(const std::filesystem::path& directory, std::size_t map_bytes = std::size_t{64} << 20) {
    std::filesystem::create_directories(directory);
    EXPECT_EQ(0, mdb_env_create(&env_));
    mdb_env_set_maxdbs(env_, 8);
    mdb_env_set_mapsize(env_, map_bytes);
    EXPECT_EQ(0, mdb_env_open(env_, directory.c_str(), 0, 0600));
    EXPECT_EQ(0, mdb_txn_begin(env_, nullptr, 0, &txn_));
  }
  ~RawEnv() {
    if (txn_) mdb_txn_abort(txn_);
    mdb_env_close(env_);
  }
  MDB_txn* txn() const { return txn_; }
  void commit() {
    EXPECT_EQ(0, mdb_txn_commit(txn_));
    txn_ = nullptr;
  }
  // Entries of `table`, or -1 when it does not exist.
  long entries(const char* table) {
    MDB_dbi dbi = 0;
    if (mdb_dbi_open(txn_, table, 0, &dbi) != 0) return -1;
    MDB_stat stat{};
    mdb_stat(txn_, dbi, &stat);
    return static_cast<long>(stat.ms_entries);
  }

 private:
  MDB_env* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
};

// The users of `email`, by name.
std::vector<std::string> users_of(Store& store, std::string email) {
  UserQuery query;
  query.email = std::move(email);
  std::vector<std::string> names;
  auto read = store.read([&](StoreTxn& txn) -> Result<void> {
    auto page = txn.list_users(query);
    if (!page) return std::unexpected(page.error());
    for (const auto& user : page->users) names.push_back(user.username);
    return {};
  });
  EXPECT_TRUE(read.has_value()) << read.error().message;
  return names;
}

Result<void> insert(Store& store, const User& user) {
  return store.write([&](StoreTxn& txn) { return txn.insert_user(user); });
}

using Names = std::vector<std::string>;

// Opens the LMDB store at `db` (made when missing), inserts `users`, closes it.
void store_with(const std::filesystem::path& db, const std::vector<User>& users) {
  auto store = open_lmdb_store(options_in(db));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  for (const User& user : users) ASSERT_EQ("ok", outcome(insert(**store, user))) << user.username;
}

TEST(LmdbEmailIndex, AStoreWhoseIndexIsMissingGetsItBuiltAtOpen) {
  test::TempDir dir;
  const auto db = dir.path() / "db";
  ASSERT_NO_FATAL_FAILURE(store_with(db, {user_with("alice", "Alice@example.org"), user_with("bob", "shared@example.org"),
                                           user_with("carl", "SHARED@example.org"), user_with("nomail", "")}));
  {
    RawEnv raw(db);
    ASSERT_EQ(3, raw.entries(kIndexTable));
    MDB_dbi index = 0;
    ASSERT_EQ(0, mdb_dbi_open(raw.txn(), kIndexTable, 0, &index));
    ASSERT_EQ(0, mdb_drop(raw.txn(), index, 1));  // as a store from before the index
    raw.commit();
  }
  {
    RawEnv raw(db);
    ASSERT_EQ(-1, raw.entries(kIndexTable));
  }
  auto store = open_lmdb_store(options_in(db));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ(Names{"alice"}, users_of(**store, "alice@example.org"));
  EXPECT_EQ((Names{"bob", "carl"}), users_of(**store, "shared@example.org"));
  // And it is kept from then on.
  User alice = user_with("alice", "new@example.org");
  ASSERT_EQ("ok", outcome((*store)->write([&](StoreTxn& txn) { return txn.replace_user(alice); })));
  EXPECT_TRUE(users_of(**store, "alice@example.org").empty());
  EXPECT_EQ(Names{"alice"}, users_of(**store, "new@example.org"));
}

// A store from before the index, written with LMDB's API: `count` users,
// every one with an address.
void write_store_without_index(const std::filesystem::path& db, int count) {
  RawEnv raw(db);
  MDB_dbi users = 0;
  ASSERT_EQ(0, mdb_dbi_open(raw.txn(), "users", MDB_CREATE, &users));
  for (const char* table : {"records", "links", "entries"}) {
    MDB_dbi other = 0;
    ASSERT_EQ(0, mdb_dbi_open(raw.txn(), table, MDB_CREATE, &other));
  }
  for (int i = 0; i < count; ++i) {
    const std::string name = "user" + std::to_string(i);
    const std::string bytes = store_detail::encode_user(user_with(name, name + "@a-rather-long-domain.example.org"));
    MDB_val key{name.size(), const_cast<char*>(name.data())};
    MDB_val value{bytes.size(), const_cast<char*>(bytes.data())};
    ASSERT_EQ(0, mdb_put(raw.txn(), users, &key, &value, 0));
  }
  raw.commit();
}

TEST(LmdbEmailIndex, BuildingTheIndexGrowsTheMapWhenItMust) {
  test::TempDir dir;
  const auto db = dir.path() / "db";
  write_store_without_index(db, 5000);
  const auto before = std::filesystem::file_size(db / "data.mdb");
  // The map starts at the data's size: the index cannot fit without growing.
  auto store = open_lmdb_store(options_in(db));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_GT(std::filesystem::file_size(db / "data.mdb"), before);
  EXPECT_EQ(Names{"user0"}, users_of(**store, "USER0@a-rather-long-domain.example.org"));
  EXPECT_EQ(Names{"user4999"}, users_of(**store, "user4999@a-rather-long-domain.example.org"));
  auto stats = (*store)->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(5000u, stats->users);
}

TEST(LmdbEmailIndex, AMapTooSmallForTheIndexFailsTheOpenAndChangesNothing) {
  test::TempDir dir;
  const auto db = dir.path() / "db";
  write_store_without_index(db, 5000);
  const auto size = std::filesystem::file_size(db / "data.mdb");
  auto refused = open_lmdb_store(options_in(db, size));
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(Errc::storage_full, refused.error().code) << refused.error().message;
  {
    RawEnv raw(db);
    EXPECT_EQ(-1, raw.entries(kIndexTable));
    EXPECT_EQ(5000, raw.entries("users"));
  }
  auto store = open_lmdb_store(options_in(db));  // a larger map_size_mb
  ASSERT_TRUE(store.has_value()) << store.error().message;
  EXPECT_EQ(Names{"user42"}, users_of(**store, "user42@a-rather-long-domain.example.org"));
}

TEST(LmdbEmailIndex, AFullMapLeavesTheIndexAsCompleteAsTheUsers) {
  test::TempDir dir;
  auto store = open_lmdb_store(options_in(dir.path() / "db", std::size_t{256} << 10));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  const std::string padding(200, 'p');
  int inserted = 0;
  Result<void> last;
  for (; inserted < 10000; ++inserted) {
    const std::string name = "u" + std::to_string(inserted);
    last = insert(**store, user_with(name, name + padding + "@example.org"));
    if (!last) break;
  }
  ASSERT_FALSE(last.has_value()) << "the map never filled";
  EXPECT_EQ(Errc::storage_full, last.error().code);
  ASSERT_GT(inserted, 10);
  const std::string refused = "u" + std::to_string(inserted);
  EXPECT_TRUE(users_of(**store, refused + padding + "@example.org").empty());
  for (int i = 0; i < inserted; ++i) {
    const std::string name = "u" + std::to_string(i);
    ASSERT_EQ(Names{name}, users_of(**store, name + padding + "@EXAMPLE.org")) << name;
  }
}

// The lookup reads the address's entries only: a user record it would trip
// over in a scan (here a corrupt one) is never read.
TEST(LmdbEmailIndex, TheLookupReadsOnlyTheUsersOfTheAddress) {
  test::TempDir dir;
  const auto db = dir.path() / "db";
  ASSERT_NO_FATAL_FAILURE(store_with(db, {user_with("alice", "alice@example.org")}));
  {
    RawEnv raw(db);
    MDB_dbi users = 0;
    ASSERT_EQ(0, mdb_dbi_open(raw.txn(), "users", 0, &users));
    std::string name = "broken", bytes = "not a user record";
    MDB_val key{name.size(), name.data()}, value{bytes.size(), bytes.data()};
    ASSERT_EQ(0, mdb_put(raw.txn(), users, &key, &value, 0));
    raw.commit();
  }
  auto store = open_lmdb_store(options_in(db));
  ASSERT_TRUE(store.has_value()) << store.error().message;
  auto scan = (*store)->read([](StoreTxn& txn) -> Result<void> {
    auto page = txn.list_users(UserQuery{});
    if (!page) return std::unexpected(page.error());
    return {};
  });
  EXPECT_EQ("internal", outcome(scan));  // a scan meets the corrupt record
  EXPECT_EQ(Names{"alice"}, users_of(**store, "alice@example.org"));
}

}  // namespace
}  // namespace authd
