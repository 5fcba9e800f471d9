#include "authd/store.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "authd/accounts.hpp"
#include "authd/clock.hpp"
#include "authd/records.hpp"
#include "authd/store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMapSize = std::size_t{16} << 20;  // 16 MiB

bool is_object_id(std::string_view id) {
  return id.size() == 24 && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0xffffffffu;
  return static_cast<unsigned>(st.st_mode) & 07777u;
}

// What a test asks to create; the store's caller assigns id and version.
struct NewUser {
  std::string username;
  std::string password_hash;
  std::string fullname;
  std::string email;
  Role role = Role::user;
};

NewUser new_user(std::string username, Role role = Role::user) {
  NewUser u;
  u.username = std::move(username);
  u.password_hash = "$argon2id$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g";
  u.fullname = "Full Name of " + u.username;
  u.email = u.username + "@example.org";
  u.role = role;
  return u;
}

// The user operations under test: the store's primitives create and find;
// the Accounts use cases do the read-modify-writes.
class UserStore {
 public:
  explicit UserStore(Store& store) : store_(store), accounts_(store, hasher_, CredentialPolicy{}) {}

  Result<User> create(const NewUser& fresh) {
    User user;
    user.id = new_object_id();
    user.username = fresh.username;
    user.password_hash = fresh.password_hash;
    user.fullname = fresh.fullname;
    user.email = fresh.email;
    user.role = fresh.role;
    user.created_at = user.updated_at = unix_now();
    auto done = store_.write([&](StoreTxn& txn) { return txn.insert_user(user); });
    if (!done) return std::unexpected(done.error());
    return user;
  }
  Result<User> find(std::string_view username) { return store_.find_user(username); }
  // Storage tests: forced past the last-admin rule (accounts_test.cpp has its own).
  Result<User> set_role(std::string_view username, Role role) { return accounts_.set_role(username, role, true); }
  Result<void> remove(std::string_view username) { return accounts_.remove(username, true); }
  Result<void> replace(const User& user) {
    return store_.write([&](StoreTxn& txn) { return txn.replace_user(user); });
  }
  Result<std::vector<User>> list() {
    auto page = accounts_.list(UserQuery{});
    if (!page) return std::unexpected(page.error());
    return page->users;
  }

 private:
  Store& store_;
  PasswordHasher hasher_{test::kFastArgon2};
  Accounts accounts_;
};

// Records with parsed answers, for checking fields.
class RecordStore {
 public:
  explicit RecordStore(Store& store) : records_(store) {}
  Result<Json> create(std::string_view owner, const Json& fields) { return records_.create(owner, fields); }
  Result<Json> replace(std::string_view id, const Json& fields) { return records_.replace(id, fields); }
  Result<void> remove(std::string_view id) { return records_.remove(id); }
  Result<Json> find(std::string_view id) const {
    auto text = records_.find_text(id);
    if (!text) return std::unexpected(text.error());
    return Json::parse(*text);
  }
  Result<std::vector<Json>> list() const {
    auto text = records_.list_text();
    if (!text) return std::unexpected(text.error());
    auto array = Json::parse(*text);
    if (!array) return std::unexpected(array.error());
    std::vector<Json> all;
    for (std::size_t i = 0; i < array->size(); ++i) all.push_back(array->at(i));
    return all;
  }

 private:
  Records records_;
};

LmdbOptions options_in(const fs::path& directory, std::size_t map_size = kMapSize) {
  LmdbOptions options;
  options.directory = directory;
  options.map_size_bytes = map_size;
  options.sync = false;
  return options;
}

// How many records `records` lists: a failed check, and 0, when it cannot list.
std::size_t listed(RecordStore& records) {
  auto all = records.list();
  EXPECT_TRUE(all.has_value()) << all.error().message;
  return all ? all->size() : 0;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { open_db(); }

  void open_db(std::size_t map_size = kMapSize) {
    db_.reset();
    auto db = open_lmdb_store(options_in(dir_.path() / "db", map_size));
    ASSERT_TRUE(db.has_value()) << db.error().message;
    db_ = std::move(*db);
  }

  Store& db() { return *db_; }

  test::TempDir dir_;
  std::unique_ptr<Store> db_;
};

// ---- LMDB environment ---------------------------------------------------------------

TEST(LmdbStore, RefusesAStateDirectoryWhoseParentIsMissing) {
  test::TempDir tmp;
  auto db = open_lmdb_store(options_in(tmp.path() / "missing" / "db"));
  ASSERT_FALSE(db.has_value());
  EXPECT_EQ(db.error().code, Errc::io);
  EXPECT_FALSE(fs::exists(tmp.path() / "missing"));
}

TEST(LmdbStore, TightensAnExistingDirectoryOthersCanRead) {
  test::TempDir tmp;
  const auto options = options_in(tmp.path() / "db");
  fs::create_directory(options.directory);
  fs::permissions(options.directory, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read |
                                         fs::perms::group_exec | fs::perms::others_exec);
  auto db = open_lmdb_store(options);
  ASSERT_TRUE(db.has_value()) << db.error().message;
  EXPECT_EQ(mode_of(options.directory), 0700u);
}

TEST(LmdbStore, CreatesThePrivateDirectoryAndFiles) {
  test::TempDir tmp;
  const auto options = options_in(tmp.path() / "db");
  auto db = open_lmdb_store(options);
  ASSERT_TRUE(db.has_value()) << db.error().message;
  EXPECT_TRUE(fs::is_directory(options.directory));
  EXPECT_EQ(mode_of(options.directory), 0700u);
  bool saw_file = false;
  for (const auto& entry : fs::directory_iterator(options.directory)) {
    if (!entry.is_regular_file()) continue;
    saw_file = true;
    EXPECT_EQ(mode_of(entry.path()), 0600u) << entry.path();
  }
  EXPECT_TRUE(saw_file);
}

TEST(LmdbStore, OpenFailsWhenTheDirectoryIsAFile) {
  test::TempDir tmp;
  const fs::path file = tmp.path() / "not-a-dir";
  std::ofstream(file) << "x";
  auto db = open_lmdb_store(options_in(file));
  ASSERT_FALSE(db.has_value());
  EXPECT_EQ(db.error().code, Errc::io) << db.error().message;
}

// ---- UserStore --------------------------------------------------------------

TEST_F(StoreTest, CreateAssignsIdAndVersionZero) {
  UserStore users(db());
  auto created = users.create(new_user("alice"));
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_TRUE(is_object_id(created->id)) << created->id;
  EXPECT_EQ(created->version, 0);
  EXPECT_EQ(created->username, "alice");
  EXPECT_EQ(created->password_hash, new_user("alice").password_hash);
  EXPECT_EQ(created->fullname, "Full Name of alice");
  EXPECT_EQ(created->email, "alice@example.org");
  EXPECT_EQ(created->role, Role::user);

  auto found = users.find("alice");
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(found->id, created->id);
  EXPECT_EQ(found->version, 0);
  EXPECT_EQ(found->username, "alice");
  EXPECT_EQ(found->password_hash, created->password_hash);
  EXPECT_EQ(found->fullname, created->fullname);
  EXPECT_EQ(found->email, created->email);
  EXPECT_EQ(found->role, Role::user);
}

TEST_F(StoreTest, CreateKeepsTheRequestedRole) {
  UserStore users(db());
  auto created = users.create(new_user("root", Role::admin));
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->role, Role::admin);
  EXPECT_EQ(users.find("root").value().role, Role::admin);
}

TEST_F(StoreTest, TimestampsAreSet) {
  UserStore users(db());
  const std::int64_t before = unix_now();
  auto created = users.create(new_user("alice"));
  const std::int64_t after = unix_now();
  ASSERT_TRUE(created.has_value());
  EXPECT_GE(created->created_at, before);
  EXPECT_LE(created->created_at, after);
  auto found = users.find("alice");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->created_at, created->created_at);
}

TEST_F(StoreTest, DistinctUsersGetDistinctIds) {
  UserStore users(db());
  auto a = users.create(new_user("alice"));
  auto b = users.create(new_user("bob"));
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a->id, b->id);
}

TEST_F(StoreTest, DuplicateUsernameIsAConflictAndLeavesTheOriginal) {
  UserStore users(db());
  auto original = users.create(new_user("alice"));
  ASSERT_TRUE(original.has_value());
  NewUser intruder = new_user("alice", Role::admin);
  intruder.password_hash = "$argon2id$v=19$m=256,t=1,p=1$b3RoZXI$b3RoZXI";
  intruder.email = "evil@example.org";
  auto dup = users.create(intruder);
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().code, Errc::conflict);

  auto found = users.find("alice");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->id, original->id);
  EXPECT_EQ(found->password_hash, original->password_hash);
  EXPECT_EQ(found->email, "alice@example.org");
  EXPECT_EQ(found->role, Role::user);
  EXPECT_EQ(found->version, 0);
  auto all = users.list();
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(StoreTest, UsernamesAreCaseSensitiveKeys) {
  UserStore users(db());
  ASSERT_TRUE(users.create(new_user("alice")).has_value());
  EXPECT_EQ(outcome(users.find("Alice")), "not_found");
  EXPECT_EQ(outcome(users.find("alic")), "not_found");
  EXPECT_EQ(outcome(users.find("alicee")), "not_found");
}

TEST_F(StoreTest, FindUnknownIsNotFound) {
  UserStore users(db());
  auto found = users.find("nobody");
  ASSERT_FALSE(found.has_value());
  EXPECT_EQ(found.error().code, Errc::not_found);
  EXPECT_EQ(outcome(users.find(std::string(600, 'u'))), "not_found");  // over LMDB's key limit
}

TEST_F(StoreTest, FindEmptyUsernameIsNotFound) {
  UserStore users(db());
  ASSERT_TRUE(users.create(new_user("alice")).has_value());
  EXPECT_EQ(outcome(users.find("")), "not_found");
  EXPECT_EQ(outcome(users.set_role("", Role::admin)), "not_found");
  EXPECT_EQ(outcome(users.remove("")), "not_found");
}

TEST_F(StoreTest, SetRoleBumpsVersionAndPersistsAcrossReopen) {
  std::string id;
  {
    UserStore users(db());
    auto created = users.create(new_user("alice"));
    ASSERT_TRUE(created.has_value());
    id = created->id;
    auto updated = users.set_role("alice", Role::admin);
    ASSERT_TRUE(updated.has_value()) << updated.error().message;
    EXPECT_EQ(updated->role, Role::admin);
    EXPECT_EQ(updated->version, 1);
    EXPECT_EQ(updated->id, id);
    auto again = users.set_role("alice", Role::editor);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->version, 2);
  }
  open_db();  // close and reopen the environment
  UserStore users(db());
  auto found = users.find("alice");
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(found->role, Role::editor);
  EXPECT_EQ(found->version, 2);
  EXPECT_EQ(found->id, id);
  EXPECT_EQ(found->email, "alice@example.org");
}

TEST_F(StoreTest, SetRoleOfUnknownUserIsNotFound) {
  UserStore users(db());
  auto result = users.set_role("ghost", Role::admin);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, Errc::not_found);
}

TEST_F(StoreTest, ReplaceStoresTheWholeRecord) {
  UserStore users(db());
  auto created = users.create(new_user("alice"));
  ASSERT_TRUE(created.has_value());
  User changed = *created;
  changed.fullname = "Alice Changed";
  changed.email = "new@example.org";
  changed.version = 7;
  auto replaced = users.replace(changed);
  ASSERT_TRUE(replaced.has_value()) << replaced.error().message;
  auto found = users.find("alice");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->fullname, "Alice Changed");
  EXPECT_EQ(found->email, "new@example.org");
  EXPECT_EQ(found->version, 7);
  EXPECT_EQ(found->id, created->id);
}

TEST_F(StoreTest, ReplaceOfUnknownUserIsNotFoundAndCreatesNothing) {
  UserStore users(db());
  User ghost;
  ghost.id = new_object_id();
  ghost.username = "ghost";
  auto result = users.replace(ghost);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, Errc::not_found);
  EXPECT_EQ(outcome(users.find("ghost")), "not_found");
}

TEST_F(StoreTest, RemoveThenFindIsNotFound) {
  UserStore users(db());
  auto created = users.create(new_user("alice"));
  ASSERT_TRUE(created.has_value());
  ASSERT_TRUE(users.create(new_user("bob")).has_value());
  auto removed = users.remove("alice");
  ASSERT_TRUE(removed.has_value()) << removed.error().message;
  EXPECT_EQ(outcome(users.find("alice")), "not_found");
  EXPECT_TRUE(users.find("bob").has_value());

  auto again = users.remove("alice");
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, Errc::not_found);

  // The name is free again, and the new account is a different one.
  auto recreated = users.create(new_user("alice"));
  ASSERT_TRUE(recreated.has_value()) << recreated.error().message;
  EXPECT_NE(recreated->id, created->id);
  EXPECT_EQ(recreated->version, 0);
}

TEST_F(StoreTest, ListReturnsEveryUser) {
  UserStore users(db());
  auto empty = users.list();
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  for (const char* name : {"carol", "alice", "bob"}) {
    ASSERT_TRUE(users.create(new_user(name)).has_value());
  }
  ASSERT_TRUE(users.set_role("bob", Role::admin).has_value());
  auto all = users.list();
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 3u);
  std::set<std::string> names;
  for (const User& u : *all) {
    names.insert(u.username);
    EXPECT_TRUE(is_object_id(u.id));
    if (u.username == "bob") {
      EXPECT_EQ(u.role, Role::admin);
      EXPECT_EQ(u.version, 1);
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"alice", "bob", "carol"}));
}

TEST_F(StoreTest, ConcurrentCreatesOfOneUsernameHaveExactlyOneWinner) {
  UserStore users(db());
  constexpr int kThreads = 8;
  std::atomic<int> successes{0};
  std::atomic<int> conflicts{0};
  std::atomic<int> others{0};
  std::atomic<bool> go{false};
  {
    std::vector<std::jthread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        while (!go.load()) std::this_thread::yield();
        NewUser u = new_user("racer");
        u.fullname = "thread " + std::to_string(i);
        auto result = users.create(u);
        if (result) {
          ++successes;
        } else if (result.error().code == Errc::conflict) {
          ++conflicts;
        } else {
          ++others;
        }
      });
    }
    go = true;
  }
  EXPECT_EQ(successes.load(), 1);
  EXPECT_EQ(conflicts.load(), kThreads - 1);
  EXPECT_EQ(others.load(), 0);
  auto all = users.list();
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(StoreTest, ConcurrentCreatesOfDistinctUsersAllSucceed) {
  UserStore users(db());
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::atomic<int> failures{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          auto r = users.create(new_user("u" + std::to_string(t) + "_" + std::to_string(i)));
          if (!r) ++failures;
        }
      });
    }
  }
  EXPECT_EQ(failures.load(), 0);
  auto all = users.list();
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), std::size_t{kThreads * kPerThread});
  std::set<std::string> ids;
  for (const User& u : *all) ids.insert(u.id);
  EXPECT_EQ(ids.size(), all->size());
}

TEST_F(StoreTest, UnicodeAndLongFieldsRoundTrip) {
  UserStore users(db());
  NewUser u = new_user("j\xC3\xBCrgen");
  u.fullname = "J\xC3\xBCrgen \xF0\x9F\x98\x80 " + std::string(200, 'x');
  ASSERT_TRUE(users.create(u).has_value());
  auto found = users.find("j\xC3\xBCrgen");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->fullname, u.fullname);
}

// ---- RecordStore ------------------------------------------------------------

Json fields_of(std::string_view text) {
  auto parsed = Json::parse(text);
  if (!parsed) throw std::runtime_error("bad test JSON: " + parsed.error().message);
  return *parsed;
}

TEST_F(StoreTest, RecordCreateAssignsServiceFields) {
  RecordStore records(db());
  auto created = records.create("owner-id", fields_of(R"({"title":"hello","n":3})"));
  ASSERT_TRUE(created.has_value()) << created.error().message;
  ASSERT_TRUE(created->is_object());
  auto id = created->get_string("_id");
  ASSERT_TRUE(id.has_value()) << created->dump();
  EXPECT_TRUE(is_object_id(*id)) << *id;
  EXPECT_EQ(created->get_integer("__v"), 0);
  EXPECT_EQ(created->get_string("owner"), "owner-id");
  EXPECT_EQ(created->get_string("title"), "hello");
  EXPECT_EQ(created->get_integer("n"), 3);

  auto found = records.find(*id);
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(found->get_string("_id"), *id);
  EXPECT_EQ(found->get_integer("__v"), 0);
  EXPECT_EQ(found->get_string("owner"), "owner-id");
  EXPECT_EQ(found->get_string("title"), "hello");
  EXPECT_EQ(found->get_integer("n"), 3);
}

TEST_F(StoreTest, RecordCreateDoesNotModifyTheCallersFields) {
  RecordStore records(db());
  Json fields = fields_of(R"({"title":"hello"})");
  ASSERT_TRUE(records.create("o", fields).has_value());
  EXPECT_EQ(fields.dump(), R"({"title":"hello"})");
}

TEST_F(StoreTest, RecordCreateRejectsNonObjects) {
  RecordStore records(db());
  for (const char* text : {"[]", "\"x\"", "3", "null"}) {
    auto result = records.create("o", fields_of(text));
    ASSERT_FALSE(result.has_value()) << text;
    EXPECT_EQ(result.error().code, Errc::invalid_input) << text;
  }
  auto result = records.create("o", Json());
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, Errc::invalid_input);
  EXPECT_EQ(listed(records), 0u);
}

TEST_F(StoreTest, RecordCreateIgnoresOrRejectsClientServiceFields) {
  RecordStore records(db());
  auto created =
      records.create("real-owner", fields_of(R"({"_id":"evil","__v":99,"owner":"mallory","t":1})"));
  if (created) {
    EXPECT_NE(created->get_string("_id"), "evil");
    EXPECT_TRUE(is_object_id(created->get_string("_id").value_or("")));
    EXPECT_EQ(created->get_integer("__v"), 0);
    EXPECT_EQ(created->get_string("owner"), "real-owner");
    EXPECT_FALSE(records.find("evil").has_value());
  } else {
    EXPECT_EQ(created.error().code, Errc::invalid_input);
  }
}

TEST_F(StoreTest, RecordFindUnknownIsNotFound) {
  RecordStore records(db());
  auto found = records.find(new_object_id());
  ASSERT_FALSE(found.has_value());
  EXPECT_EQ(found.error().code, Errc::not_found);
  EXPECT_EQ(outcome(records.find("not-an-id")), "not_found");
  EXPECT_EQ(outcome(records.find(std::string(600, 'a'))), "not_found");
}

TEST_F(StoreTest, RecordEmptyIdIsNotFound) {
  RecordStore records(db());
  EXPECT_EQ(outcome(records.find("")), "not_found");
  EXPECT_EQ(outcome(records.replace("", fields_of(R"({"a":1})"))), "not_found");
  EXPECT_EQ(outcome(records.remove("")), "not_found");
}

TEST_F(StoreTest, RecordListReturnsAll) {
  RecordStore records(db());
  std::set<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    Json fields = Json::object();
    fields.set("i", Json::integer(i));
    auto created = records.create("o", fields);
    ASSERT_TRUE(created.has_value());
    ids.insert(std::string(created->get_string("_id").value()));
  }
  auto all = records.list();
  ASSERT_TRUE(all.has_value());
  ASSERT_EQ(all->size(), 5u);
  std::set<std::string> listed;
  for (const Json& r : *all) listed.insert(std::string(r.get_string("_id").value_or("")));
  EXPECT_EQ(listed, ids);
}

TEST_F(StoreTest, RecordReplaceBumpsVersionAndKeepsServiceFields) {
  RecordStore records(db());
  auto created = records.create("owner-id", fields_of(R"({"title":"old","keep":"gone"})"));
  ASSERT_TRUE(created.has_value());
  const std::string id(created->get_string("_id").value());

  auto replaced = records.replace(id, fields_of(R"({"title":"new"})"));
  ASSERT_TRUE(replaced.has_value()) << replaced.error().message;
  EXPECT_EQ(replaced->get_string("_id"), id);
  EXPECT_EQ(replaced->get_integer("__v"), 1);
  EXPECT_EQ(replaced->get_string("owner"), "owner-id");
  EXPECT_EQ(replaced->get_string("title"), "new");
  EXPECT_FALSE(replaced->has("keep"));

  auto found = records.find(id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get_integer("__v"), 1);
  EXPECT_EQ(found->get_string("title"), "new");
  EXPECT_FALSE(found->has("keep"));

  auto second = records.replace(id, fields_of(R"({"title":"newer"})"));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->get_integer("__v"), 2);
}

TEST_F(StoreTest, RecordReplaceCannotOverrideServiceFields) {
  RecordStore records(db());
  auto created = records.create("owner-id", fields_of(R"({"title":"old"})"));
  ASSERT_TRUE(created.has_value());
  const std::string id(created->get_string("_id").value());

  auto replaced = records.replace(
      id, fields_of(R"({"_id":"evil","__v":99,"owner":"mallory","title":"new"})"));
  if (replaced) {
    EXPECT_EQ(replaced->get_string("_id"), id);
    EXPECT_EQ(replaced->get_integer("__v"), 1);
    EXPECT_EQ(replaced->get_string("owner"), "owner-id");
  } else {
    EXPECT_EQ(replaced.error().code, Errc::invalid_input);
  }
  auto found = records.find(id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->get_string("_id"), id);
  EXPECT_EQ(found->get_string("owner"), "owner-id");
  EXPECT_NE(found->get_integer("__v"), 99);
  EXPECT_FALSE(records.find("evil").has_value());
  auto all = records.list();
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 1u);
}

TEST_F(StoreTest, RecordReplaceUnknownIsNotFound) {
  RecordStore records(db());
  auto result = records.replace(new_object_id(), fields_of(R"({"a":1})"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, Errc::not_found);
  EXPECT_EQ(listed(records), 0u);
}

TEST_F(StoreTest, RecordReplaceRejectsNonObjects) {
  RecordStore records(db());
  auto created = records.create("o", fields_of(R"({"a":1})"));
  ASSERT_TRUE(created.has_value());
  const std::string id(created->get_string("_id").value());
  auto result = records.replace(id, fields_of("[1]"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, Errc::invalid_input);
  EXPECT_EQ(records.find(id).value().get_integer("a"), 1);
}

TEST_F(StoreTest, RecordRemove) {
  RecordStore records(db());
  auto a = records.create("o", fields_of(R"({"a":1})"));
  auto b = records.create("o", fields_of(R"({"b":2})"));
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(b.has_value());
  const std::string id_a(a->get_string("_id").value());
  const std::string id_b(b->get_string("_id").value());
  ASSERT_TRUE(records.remove(id_a).has_value());
  EXPECT_EQ(outcome(records.find(id_a)), "not_found");
  EXPECT_TRUE(records.find(id_b).has_value());
  auto again = records.remove(id_a);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, Errc::not_found);
  EXPECT_EQ(listed(records), 1u);
}

TEST_F(StoreTest, RecordsPersistAcrossReopen) {
  std::string id;
  {
    RecordStore records(db());
    auto created = records.create("o", fields_of(R"({"x":"y"})"));
    ASSERT_TRUE(created.has_value());
    id = created->get_string("_id").value();
  }
  open_db();
  RecordStore records(db());
  auto found = records.find(id);
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(found->get_string("x"), "y");
}

TEST_F(StoreTest, UsersAndRecordsDoNotCollide) {
  UserStore users(db());
  RecordStore records(db());
  auto user = users.create(new_user("alice"));
  ASSERT_TRUE(user.has_value());
  EXPECT_EQ(outcome(records.find(user->id)), "not_found");
  auto rec = records.create(user->id, fields_of(R"({"username":"alice"})"));
  ASSERT_TRUE(rec.has_value());
  auto all_users = users.list();
  ASSERT_TRUE(all_users.has_value());
  EXPECT_EQ(all_users->size(), 1u);
  auto all_records = records.list();
  ASSERT_TRUE(all_records.has_value());
  EXPECT_EQ(all_records->size(), 1u);
}

// ---- A full map ---------------------------------------------------------------

TEST(StoreFull, WritesAreRefusedWithStorageFullAndReadsStillWork) {
  test::TempDir tmp;
  auto options = options_in(tmp.path() / "db", std::size_t{64} << 10);  // 64 KiB
  auto opened = open_lmdb_store(options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Store& db = **opened;
  UserStore users(db);
  RecordStore records(db);

  auto alice = users.create(new_user("alice"));
  ASSERT_TRUE(alice.has_value()) << alice.error().message;

  std::vector<std::string> ids;
  bool full = false;
  const std::string blob(512, 'x');
  for (int i = 0; i < 2000 && !full; ++i) {
    Json fields = Json::object();
    fields.set("blob", Json::string(blob));
    fields.set("i", Json::integer(i));
    auto created = records.create("o", fields);
    if (created) {
      ids.emplace_back(created->get_string("_id").value());
    } else {
      ASSERT_EQ(created.error().code, Errc::storage_full) << created.error().message;
      full = true;
    }
  }
  ASSERT_TRUE(full) << "never got storage_full after " << ids.size() << " records";
  ASSERT_FALSE(ids.empty());

  // Further big writes keep failing cleanly.
  Json big = Json::object();
  big.set("blob", Json::string(std::string(4096, 'y')));
  auto refused = records.create("o", big);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, Errc::storage_full);

  // Reads still work.
  auto found_user = users.find("alice");
  ASSERT_TRUE(found_user.has_value()) << found_user.error().message;
  EXPECT_EQ(found_user->id, alice->id);
  auto first = records.find(ids.front());
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->get_integer("i"), 0);
  auto last = records.find(ids.back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(listed(records), ids.size());

  // Removing is a write too: on a full LMDB map it may itself be refused
  // (copy-on-write needs free pages); if so, it says storage_full and
  // changes nothing.
  auto removed = records.remove(ids.front());
  if (!removed) {
    EXPECT_EQ(outcome(removed), "storage_full") << removed.error().message;
    EXPECT_EQ(outcome(records.find(ids.front())), "ok");
  } else {
    EXPECT_EQ(outcome(records.find(ids.front())), "not_found");
  }
}

TEST(StoreFull, ReopeningWithALargerMapMakesRoomAgain) {
  test::TempDir tmp;
  auto options = options_in(tmp.path() / "db", std::size_t{64} << 10);
  std::vector<std::string> ids;
  {
    auto opened = open_lmdb_store(options);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    RecordStore records(**opened);
    const std::string blob(512, 'x');
    for (int i = 0; i < 2000; ++i) {
      Json fields = Json::object();
      fields.set("blob", Json::string(blob));
      auto created = records.create("o", fields);
      if (!created) {
        ASSERT_EQ(outcome(created), "storage_full");
        break;
      }
      ids.emplace_back(created->get_string("_id").value());
    }
  }
  ASSERT_FALSE(ids.empty());
  options.map_size_bytes = std::size_t{16} << 20;
  auto reopened = open_lmdb_store(options);
  ASSERT_TRUE(reopened.has_value()) << reopened.error().message;
  RecordStore records(**reopened);
  auto created = records.create("o", fields_of(R"({"after":true})"));
  EXPECT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(listed(records), ids.size() + 1);
  EXPECT_TRUE(records.remove(ids.front()).has_value());
}

// ---- A map that grows by itself -------------------------------------------------

TEST(StoreGrowth, TheMapDoublesWhenFullUpToItsMaximum) {
  test::TempDir tmp;
  auto options = options_in(tmp.path() / "db", std::size_t{4} << 20);  // at most 4 MiB
  options.initial_map_bytes = std::size_t{64} << 10;                     // starting at 64 KiB
  auto opened = open_lmdb_store(options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  RecordStore records(**opened);
  const std::string blob(512, 'x');
  int written = 0;
  Result<Json> last;
  for (; written < 20000; ++written) {
    Json fields = Json::object();
    fields.set("blob", Json::string(blob));
    last = records.create("o", fields);
    if (!last) break;
  }
  // 64 KiB holds about a hundred such records; 4 MiB several thousand.
  EXPECT_GT(written, 2000) << "the map did not grow";
  ASSERT_FALSE(last.has_value()) << "never reached the maximum";
  EXPECT_EQ(last.error().code, Errc::storage_full);
  EXPECT_EQ(listed(records), static_cast<std::size_t>(written));
  auto stats = (*opened)->stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->bytes_capacity, std::size_t{4} << 20);
}

TEST(StoreGrowth, ReadersAndWritersOfOtherThreadsSurviveAGrowth) {
  test::TempDir tmp;
  auto options = options_in(tmp.path() / "db", std::size_t{64} << 20);
  options.initial_map_bytes = std::size_t{64} << 10;
  auto opened = open_lmdb_store(options);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Store& store = **opened;
  UserStore users(store);
  ASSERT_TRUE(users.create(new_user("reader")).has_value());
  std::atomic<bool> stop{false};
  std::atomic<int> read_failures{0}, write_failures{0}, reads{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        while (!stop.load()) {
          if (!users.find("reader")) ++read_failures;
          ++reads;
        }
      });
    }
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 1500; ++i) {
          NewUser u = new_user("w" + std::to_string(t) + "_" + std::to_string(i));
          u.fullname = std::string(300, 'f');
          if (!users.create(u)) ++write_failures;
        }
      });
    }
    while (reads.load() < 1000) std::this_thread::yield();
    threads[3].join();
    threads[4].join();
    stop = true;
  }
  EXPECT_EQ(read_failures.load(), 0);
  EXPECT_EQ(write_failures.load(), 0);
  auto all = users.list();
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->size(), 3001u);
}

// ---- new_object_id ------------------------------------------------------------

std::uint64_t hex_value(std::string_view hex) {
  std::uint64_t v = 0;
  for (char c : hex) {
    v = v * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return v;
}

TEST(ObjectId, UniqueWellFormedAndOrdered) {
  constexpr int kCount = 10000;
  const std::int64_t before = unix_now();
  std::vector<std::string> ids;
  ids.reserve(kCount);
  for (int i = 0; i < kCount; ++i) ids.push_back(new_object_id());
  const std::int64_t after = unix_now();

  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());

  const std::string process_part = ids.front().substr(8, 10);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    ASSERT_TRUE(is_object_id(id)) << id;
    // 4 bytes of seconds.
    const auto seconds = static_cast<std::int64_t>(hex_value(std::string_view(id).substr(0, 8)));
    EXPECT_GE(seconds, before) << id;
    EXPECT_LE(seconds, after) << id;
    // 5 bytes fixed per process.
    EXPECT_EQ(id.substr(8, 10), process_part) << id;
    if (i > 0) {
      // 3 bytes of counter: the next value (mod 2^24).
      const std::uint64_t prev = hex_value(std::string_view(ids[i - 1]).substr(18, 6));
      const std::uint64_t cur = hex_value(std::string_view(id).substr(18, 6));
      EXPECT_EQ((cur - prev) & 0xffffffu, 1u) << ids[i - 1] << " -> " << id;
      // Monotonic within a second (barring counter wrap-around).
      if (id.substr(0, 8) == ids[i - 1].substr(0, 8) && cur > prev) {
        EXPECT_LT(ids[i - 1], id);
      }
    }
  }
}

TEST(ObjectId, UniqueAcrossThreads) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 2000;
  std::vector<std::vector<std::string>> per(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&per, t] {
        for (int i = 0; i < kPerThread; ++i) per[static_cast<std::size_t>(t)].push_back(new_object_id());
      });
    }
  }
  std::set<std::string> all;
  for (const auto& v : per) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), std::size_t{kThreads * kPerThread});
}

}  // namespace
}  // namespace authd
