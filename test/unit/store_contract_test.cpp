// The store contract: every behaviour of Store / StoreTxn
// (authd/store.hpp) that the modules above rely on, run against
// every registered backend (store_backends.hpp). A backend is done when this
// suite passes on it unchanged.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "authd/store.hpp"
#include "store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using test::StoreBackend;
using test::StoreUnderTest;
using namespace std::chrono_literals;

User make_user(std::string username, Role role = Role::user) {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.password_hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
  user.fullname = "Full Name";
  user.email = "someone@example.org";
  user.role = role;
  user.version = 0;
  user.created_at = 1700000000;
  user.updated_at = 1700000000;
  return user;
}

// Like read_value (authd/store.hpp), in a write transaction: what `query`
// answers; a failed answer ends the transaction without a commit.
template <class Query>
auto write_value(Store& store, Query&& query) -> decltype(query(std::declval<StoreTxn&>())) {
  std::optional<decltype(query(std::declval<StoreTxn&>()))> answer;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    auto got = query(txn);
    if (!got) return std::unexpected(got.error());
    answer.emplace(std::move(got));
    return {};
  });
  if (!done) return std::unexpected(done.error());
  return std::move(*answer);
}

// Every field of a user (authd/user.hpp), in its order: two users compare in
// one check, and a mismatch prints both.
auto fields(const User& u) {
  return std::tie(u.id, u.username, u.password_hash, u.fullname, u.email, u.email_verified, u.role, u.version,
                  u.created_at, u.updated_at, u.links, u.token_generation, u.last_revocation);
}

void expect_same_user(const User& expected, const User& actual) { EXPECT_EQ(fields(expected), fields(actual)); }

class StoreContract : public test::StoreBackendTest {
 protected:
  Result<User> find(std::string_view username) {
    return read_value(store(), [&](StoreTxn& txn) { return txn.find_user(username); });
  }
  std::string records() {
    return read_ok([](StoreTxn& txn) { return txn.list_records(); });
  }
};

// --- users -------------------------------------------------------------------

TEST_P(StoreContract, InsertedUserIsFoundWithEveryField) {
  User user = make_user("alice", Role::editor);
  user.fullname = "Äli Çe \"quoted\" \\ back";
  user.links = {"github:1", "oidc:a,b", "x:\"q\"", "y:\\z", "z:{}", "NULL", "with space"};
  user.version = 7;
  user.created_at = -5;
  user.updated_at = (std::int64_t{1} << 40);
  user.token_generation = 3;
  user.last_revocation = 1800000001;
  user.email_verified = true;
  insert(user);
  auto found = find("alice");
  ASSERT_EQ("ok", outcome(found));
  expect_same_user(user, *found);
}

TEST_P(StoreContract, UserWithEmptyFieldsRoundTrips) {
  User user = make_user("nopass");
  user.password_hash.clear();
  user.fullname.clear();
  user.email.clear();
  insert(user);
  auto found = find("nopass");
  ASSERT_EQ("ok", outcome(found));
  expect_same_user(user, *found);
}

TEST_P(StoreContract, MissingUserIsNotFound) {
  EXPECT_EQ("not_found", outcome(find("nobody")));
  EXPECT_EQ("not_found", outcome(store().find_user("nobody")));
}

TEST_P(StoreContract, UsernamesAreCaseSensitive) {
  insert(make_user("Bob"));
  EXPECT_EQ("not_found", outcome(find("bob")));
  insert(make_user("bob"));
  EXPECT_EQ("ok", outcome(find("bob")));
}

TEST_P(StoreContract, TakenUsernameIsAConflictAndKeepsTheFirst) {
  User first = make_user("carol", Role::admin);
  insert(first);
  User second = make_user("carol", Role::user);
  EXPECT_EQ("conflict", outcome(write([&](StoreTxn& txn) { return txn.insert_user(second); })));
  auto found = find("carol");
  ASSERT_EQ("ok", outcome(found));
  expect_same_user(first, *found);
}

TEST_P(StoreContract, ConflictDoesNotSpoilTheTransaction) {
  // Third-party sign-in tries "hint", then "hint.provider": the transaction
  // must go on after the first insert answers conflict.
  insert(make_user("dave"));
  auto wrote = write([&](StoreTxn& txn) -> Result<void> {
    auto taken = txn.insert_user(make_user("dave"));
    if (taken || taken.error().code != Errc::conflict) return fail(Errc::internal, "expected conflict");
    if (auto ok = txn.insert_user(make_user("dave.github")); !ok) return ok;
    return txn.insert_link("github:42", "dave.github");
  });
  ASSERT_EQ("ok", outcome(wrote));
  EXPECT_EQ("ok", outcome(find("dave.github")));
}

TEST_P(StoreContract, ReplaceStoresEveryFieldAsGiven) {
  User user = make_user("erin");
  insert(user);
  User changed = user;
  changed.id = new_object_id();
  changed.role = Role::writer;
  changed.fullname = "Erin E.";
  changed.email = "erin@example.org";
  changed.password_hash = "$argon2id$other";
  changed.version = 3;
  changed.updated_at = 1800000000;
  changed.links = {"google:9"};
  changed.token_generation = 12;
  changed.last_revocation = 1800000002;
  changed.email_verified = !user.email_verified;
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(changed); })));
  auto found = find("erin");
  ASSERT_EQ("ok", outcome(found));
  expect_same_user(changed, *found);
}

TEST_P(StoreContract, ReplaceOrDeleteOfMissingUserIsNotFound) {
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.replace_user(make_user("ghost")); })));
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.delete_user("ghost"); })));
  EXPECT_EQ("not_found", outcome(find("ghost")));
}

TEST_P(StoreContract, DeletedUserIsGoneAndTheNameFree) {
  insert(make_user("frank", Role::admin));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_user("frank"); })));
  EXPECT_EQ("not_found", outcome(find("frank")));
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.delete_user("frank"); })));
  insert(make_user("frank"));
  auto again = find("frank");
  ASSERT_EQ("ok", outcome(again));
  EXPECT_EQ(Role::user, again->role);
}

class ListUsers : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    // Byte order: upper case before lower case, '.' before letters.
    for (auto [name, role] : std::vector<std::pair<std::string, Role>>{{"bob", Role::admin},
                                                                        {"Zed", Role::user},
                                                                        {"alice", Role::user},
                                                                        {"al.x", Role::writer},
                                                                        {"carol", Role::admin},
                                                                        {"malice", Role::editor}})
      insert(make_user(name, role));
  }
  UserPage list(const UserQuery& query) { return list_users(query); }
};

TEST_P(ListUsers, AllInUsernameByteOrder) {
  auto page = list({});
  EXPECT_EQ((std::vector<std::string>{"Zed", "al.x", "alice", "bob", "carol", "malice"}), names(page));
  EXPECT_EQ(6u, page.total);
  EXPECT_EQ(Role::admin, page.users[3].role);
}

TEST_P(ListUsers, UsernamesPageAfterTheLastNameOfTheOneBefore) {
  auto names_after = [&](std::string after, std::size_t limit) {
    return read_ok([&](StoreTxn& txn) { return txn.list_usernames(after, limit); });
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ((Names{"Zed", "al.x"}), names_after("", 2));
  EXPECT_EQ((Names{"alice", "bob"}), names_after("al.x", 2));
  EXPECT_EQ((Names{"carol", "malice"}), names_after("bob", 10));
  EXPECT_EQ(Names{}, names_after("malice", 10));
  EXPECT_EQ(Names{}, names_after("", 0));
  // After a name nobody has, and after one longer than any key LMDB stores.
  EXPECT_EQ((Names{"bob", "carol"}), names_after("b", 2));
  EXPECT_EQ((Names{"al.x", "alice", "bob", "carol", "malice"}), names_after(std::string(600, 'a'), 10));
  EXPECT_EQ((Names{"Zed", "al.x", "alice", "bob", "carol", "malice"}), names_after("", static_cast<std::size_t>(-1)));
}

TEST_P(ListUsers, FilterByRole) {
  UserQuery query;
  query.role = Role::admin;
  auto page = list(query);
  EXPECT_EQ((std::vector<std::string>{"bob", "carol"}), names(page));
  EXPECT_EQ(2u, page.total);
}

TEST_P(ListUsers, FilterByContainedTextIsCaseSensitive) {
  UserQuery query;
  query.contains = "lic";
  auto page = list(query);
  EXPECT_EQ((std::vector<std::string>{"alice", "malice"}), names(page));
  EXPECT_EQ(2u, page.total);
  query.contains = "LIC";
  EXPECT_EQ(0u, list(query).total);
  query.contains = "%";  // no wildcard meaning
  EXPECT_EQ(0u, list(query).total);
  query.contains = ".";
  EXPECT_EQ((std::vector<std::string>{"al.x"}), names(list(query)));
}

TEST_P(ListUsers, BothFiltersTogether) {
  UserQuery query;
  query.role = Role::user;
  query.contains = "e";
  auto page = list(query);
  EXPECT_EQ((std::vector<std::string>{"Zed", "alice"}), names(page));
  EXPECT_EQ(2u, page.total);
}

TEST_P(ListUsers, OffsetAndLimitSliceTheMatchesTotalCountsThemAll) {
  UserQuery query;
  query.offset = 1;
  query.limit = 2;
  auto page = list(query);
  EXPECT_EQ((std::vector<std::string>{"al.x", "alice"}), names(page));
  EXPECT_EQ(6u, page.total);

  query.offset = 5;
  query.limit = 10;
  EXPECT_EQ((std::vector<std::string>{"malice"}), names(list(query)));

  query.offset = 100;
  page = list(query);
  EXPECT_TRUE(page.users.empty());
  EXPECT_EQ(6u, page.total);

  query.offset = 0;
  query.limit = 0;
  page = list(query);
  EXPECT_TRUE(page.users.empty());
  EXPECT_EQ(6u, page.total);
}

TEST_P(ListUsers, EmptyStoreListsNothing) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              for (auto name : {"bob", "Zed", "alice", "al.x", "carol", "malice"})
                if (auto gone = txn.delete_user(name); !gone) return gone;
              return {};
            })));
  auto page = list({});
  EXPECT_TRUE(page.users.empty());
  EXPECT_EQ(0u, page.total);
}

// --- links -------------------------------------------------------------------

TEST_P(StoreContract, LinksInsertFindDelete) {
  EXPECT_EQ("not_found", outcome(write_value(store(), [](StoreTxn& txn) { return txn.find_link("github:1"); })));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_link("github:1", "alice"); })));
  EXPECT_EQ("conflict", outcome(write([&](StoreTxn& txn) { return txn.insert_link("github:1", "bob"); })));
  auto owner = read_value(store(), [](StoreTxn& txn) { return txn.find_link("github:1"); });
  ASSERT_EQ("ok", outcome(owner));
  EXPECT_EQ("alice", *owner);
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_link("github:1"); })));
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.delete_link("github:1"); })));
  EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_link("github:1", "bob"); })));
}

// --- records -----------------------------------------------------------------

TEST_P(StoreContract, RecordsKeepTheirTextExactly) {
  const std::string body = R"({"_id":"a1",  "name" : "x y", "n":[1, 2.50],"u":"\u00e9"})";
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_record("a1", body); })));
  auto found = read_value(store(), [](StoreTxn& txn) { return txn.find_record("a1"); });
  ASSERT_EQ("ok", outcome(found));
  EXPECT_EQ(body, *found);
}

TEST_P(StoreContract, RecordsConflictNotFoundReplaceDelete) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_record("r1", R"({"v":1})"); })));
  EXPECT_EQ("conflict", outcome(write([&](StoreTxn& txn) { return txn.insert_record("r1", R"({"v":2})"); })));
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.replace_record("r9", R"({"v":2})"); })));
  EXPECT_EQ("not_found", outcome(write([&](StoreTxn& txn) { return txn.delete_record("r9"); })));
  EXPECT_EQ("not_found", outcome(read_value(store(), [](StoreTxn& txn) { return txn.find_record("r9"); })));
  EXPECT_EQ(R"([{"v":1}])", records());
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_record("r1", R"({"v":3})"); })));
  EXPECT_EQ(R"([{"v":3}])", records());
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_record("r1"); })));
  EXPECT_EQ("[]", records());
}

TEST_P(StoreContract, ListRecordsIsOneArrayInIdOrder) {
  EXPECT_EQ("[]", records());
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              for (auto [id, body] : std::vector<std::pair<std::string, std::string>>{
                       {"b", R"({"_id":"b"})"}, {"A", R"({"_id":"A"})"}, {"a", R"({"_id":"a"})"}})
                if (auto ok = txn.insert_record(id, body); !ok) return ok;
              return {};
            })));
  EXPECT_EQ(R"([{"_id":"A"},{"_id":"a"},{"_id":"b"}])", records());
}

// --- entries -----------------------------------------------------------------

TEST_P(StoreContract, EntriesPutGetOverwriteDelete) {
  const std::string binary_key("k\0\xff", 3);
  const std::string binary_value("\0\x01\x02\xfe\xff", 5);
  auto get = [&](std::string_view ns, std::string_view key) {
    return read_ok([&](StoreTxn& txn) { return txn.get_entry(ns, key); });
  };
  EXPECT_EQ(std::nullopt, get("throttle", "u:alice"));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.put_entry("throttle", "u:alice", "3", 0); })));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.put_entry("throttle", binary_key, binary_value, 0); })));
  EXPECT_EQ(std::optional<std::string>("3"), get("throttle", "u:alice"));
  EXPECT_EQ(std::optional<std::string>(binary_value), get("throttle", binary_key));
  EXPECT_EQ(std::nullopt, get("revoked", "u:alice"));  // namespaces are separate
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.put_entry("throttle", "u:alice", "", 99); })));
  EXPECT_EQ(std::optional<std::string>(""), get("throttle", "u:alice"));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_entry("throttle", "u:alice"); })));
  EXPECT_EQ(std::nullopt, get("throttle", "u:alice"));
  EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_entry("throttle", "u:alice"); })));
}

TEST_P(StoreContract, ListEntriesOfOneNamespaceInKeyOrder) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              for (auto [ns, key, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
                       {"a", "k2", "v2"}, {"a", "K1", "v1"}, {"a", "k1", "v3"}, {"b", "k0", "other"}, {"ab", "k", "x"}})
                if (auto ok = txn.put_entry(ns, key, value, 0); !ok) return ok;
              return {};
            })));
  auto listed = read_value(store(), [](StoreTxn& txn) { return txn.list_entries("a"); });
  ASSERT_EQ("ok", outcome(listed));
  EXPECT_EQ((std::vector<std::pair<std::string, std::string>>{{"K1", "v1"}, {"k1", "v3"}, {"k2", "v2"}}), *listed);
  listed = read_value(store(), [](StoreTxn& txn) { return txn.list_entries("none"); });
  ASSERT_EQ("ok", outcome(listed));
  EXPECT_TRUE(listed->empty());
}

// Removing an OpenID client sweeps every user's refresh namespace: the
// entries of the namespaces under a prefix, and of no other.
TEST_P(StoreContract, ListEntriesUnderANamespacePrefix) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              for (auto [ns, key, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
                       {"refresh:u2", "f1", "a"}, {"refresh:u1", "f2", "b"}, {"refresh:u1", "f1", "c"},
                       {"refresh", "x", "no colon"}, {"refresh;", "y", "next"}, {"refresg:z", "z", "before"},
                       {"other", "f1", "d"}, {"refresh:", "k", "empty rest"}})
                if (auto ok = txn.put_entry(ns, key, value, 0); !ok) return ok;
              return {};
            })));
  auto listed = read_value(store(), [](StoreTxn& txn) { return txn.list_entries_under("refresh:"); });
  ASSERT_EQ("ok", outcome(listed));
  EXPECT_EQ((std::vector<NamespacedEntry>{{"refresh:", "k", "empty rest"},
                                          {"refresh:u1", "f1", "c"},
                                          {"refresh:u1", "f2", "b"},
                                          {"refresh:u2", "f1", "a"}}),
            *listed);
  listed = read_value(store(), [](StoreTxn& txn) { return txn.list_entries_under("nothing:"); });
  ASSERT_EQ("ok", outcome(listed));
  EXPECT_TRUE(listed->empty());
}

TEST_P(StoreContract, ExpiredEntriesStayUntilPurgedThenGo) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              for (auto [key, expires] : std::vector<std::pair<std::string, std::int64_t>>{
                       {"never", 0}, {"past", 100}, {"now", 200}, {"future", 201}})
                if (auto ok = txn.put_entry("ns", key, "v", expires); !ok) return ok;
              return txn.put_entry("other", "past", "v", 50);
            })));
  // The store reads no clock: an expired entry is there until purged.
  auto past = read_value(store(), [](StoreTxn& txn) { return txn.get_entry("ns", "past"); });
  ASSERT_EQ("ok", outcome(past));
  EXPECT_EQ(std::optional<std::string>("v"), *past);

  auto purged = write_value(store(), [](StoreTxn& txn) { return txn.purge_expired(200); });
  ASSERT_EQ("ok", outcome(purged));
  EXPECT_EQ(3u, *purged);  // past, now, and other/past
  auto left = read_value(store(), [](StoreTxn& txn) { return txn.list_entries("ns"); });
  ASSERT_EQ("ok", outcome(left));
  EXPECT_EQ((std::vector<std::pair<std::string, std::string>>{{"future", "v"}, {"never", "v"}}), *left);
  purged = write_value(store(), [](StoreTxn& txn) { return txn.purge_expired(200); });
  ASSERT_EQ("ok", outcome(purged));
  EXPECT_EQ(0u, *purged);
}

// --- transactions --------------------------------------------------------------

TEST_P(StoreContract, FailedWriteLeavesNothingAndPassesItsErrorOn) {
  auto wrote = write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.insert_user(make_user("henry")); !ok) return ok;
    if (auto ok = txn.insert_record("r1", "{}"); !ok) return ok;
    if (auto ok = txn.put_entry("ns", "k", "v", 0); !ok) return ok;
    if (auto ok = txn.insert_link("github:7", "henry"); !ok) return ok;
    return fail(Error::invalid_field("email", "changed my mind"));
  });
  ASSERT_FALSE(wrote);
  EXPECT_EQ(Errc::invalid_input, wrote.error().code);
  EXPECT_EQ("email", wrote.error().field);
  EXPECT_EQ("changed my mind", wrote.error().message);
  EXPECT_EQ("not_found", outcome(find("henry")));
  EXPECT_EQ("not_found", outcome(store().find_user("henry")));
  EXPECT_EQ("[]", records());
  EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              auto entry = txn.get_entry("ns", "k");
              if (!entry) return std::unexpected(entry.error());
              if (*entry) return fail(Errc::internal, "entry survived the rollback");
              auto link = txn.find_link("github:7");
              if (link || link.error().code != Errc::not_found) return fail(Errc::internal, "link survived");
              return {};
            })));
}

TEST_P(StoreContract, WriteSeesItsOwnWrites) {
  auto wrote = write([&](StoreTxn& txn) -> Result<void> {
    User user = make_user("ivy");
    if (auto ok = txn.insert_user(user); !ok) return ok;
    auto found = txn.find_user("ivy");
    if (!found) return std::unexpected(found.error());
    user.role = Role::admin;
    if (auto ok = txn.replace_user(user); !ok) return ok;
    found = txn.find_user("ivy");
    if (!found || found->role != Role::admin) return fail(Errc::internal, "own replace not seen");
    if (auto ok = txn.insert_record("x", "{}"); !ok) return ok;
    auto list = txn.list_records();
    if (!list || *list != "[{}]") return fail(Errc::internal, "own record not listed");
    return {};
  });
  EXPECT_EQ("ok", outcome(wrote));
}

TEST_P(StoreContract, ReadTransactionRefusesWrites) {
  auto result = read([&](StoreTxn& txn) -> Result<void> {
    EXPECT_EQ("internal", outcome(txn.insert_user(make_user("jack"))));
    EXPECT_EQ("internal", outcome(txn.insert_record("r", "{}")));
    EXPECT_EQ("internal", outcome(txn.put_entry("ns", "k", "v", 0)));
    EXPECT_EQ("internal", outcome(txn.insert_link("l:1", "jack")));
    return {};
  });
  (void)result;  // a backend may also report the refused writes from read()
  EXPECT_EQ("not_found", outcome(find("jack")));
  EXPECT_EQ("[]", records());
}

TEST_P(StoreContract, ReadIsASnapshot) {
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_record("x", R"({"v":1})"); })));
  std::promise<void> first_read_done;
  std::promise<void> writer_done;
  std::thread writer([&] {
    first_read_done.get_future().wait();
    EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
                if (auto ok = txn.replace_record("x", R"({"v":2})"); !ok) return ok;
                if (auto ok = txn.insert_record("y", R"({"v":2})"); !ok) return ok;
                return txn.insert_user(make_user("kate"));
              })));
    writer_done.set_value();
  });
  std::string x_before, x_after, list_after;
  bool user_seen = true;
  auto ran = read([&](StoreTxn& txn) -> Result<void> {
    auto x = txn.find_record("x");
    if (!x) return std::unexpected(x.error());
    x_before = *x;
    first_read_done.set_value();
    writer_done.get_future().wait();
    x = txn.find_record("x");
    if (!x) return std::unexpected(x.error());
    x_after = *x;
    auto list = txn.list_records();
    if (!list) return std::unexpected(list.error());
    list_after = *list;
    user_seen = txn.find_user("kate").has_value();
    return {};
  });
  writer.join();
  ASSERT_EQ("ok", outcome(ran));
  EXPECT_EQ(R"({"v":1})", x_before);
  EXPECT_EQ(R"({"v":1})", x_after);
  EXPECT_EQ(R"([{"v":1}])", list_after);
  EXPECT_FALSE(user_seen);
  EXPECT_EQ(R"([{"v":2},{"v":2}])", records());
}

TEST_P(StoreContract, TwentyThreadsInsertingOneUsernameMakeOneUser) {
  constexpr int kThreads = 20;
  std::atomic<int> ok{0}, conflict{0}, other{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (!go.load()) std::this_thread::yield();
      User user = make_user("race");
      user.fullname = "thread " + std::to_string(i);
      auto wrote = store().write([&](StoreTxn& txn) { return txn.insert_user(user); });
      if (wrote) {
        ++ok;
      } else if (wrote.error().code == Errc::conflict) {
        ++conflict;
      } else {
        ++other;
        ADD_FAILURE() << "unexpected error: " << wrote.error().message;
      }
    });
  go = true;
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(1, ok.load());
  EXPECT_EQ(kThreads - 1, conflict.load());
  EXPECT_EQ(0, other.load());
  UserQuery query;
  query.contains = "race";
  std::size_t total = 0;
  ASSERT_EQ("ok", outcome(read([&](StoreTxn& txn) -> Result<void> {
              auto page = txn.list_users(query);
              if (!page) return std::unexpected(page.error());
              total = page->total;
              return {};
            })));
  EXPECT_EQ(1u, total);
}

TEST_P(StoreContract, ConcurrentReadModifyWritesLoseNoUpdate) {
  constexpr int kThreads = 8, kIncrements = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      for (int n = 0; n < kIncrements; ++n) {
        auto wrote = store().write([&](StoreTxn& txn) -> Result<void> {
          auto current = txn.get_entry("counter", "c");
          if (!current) return std::unexpected(current.error());
          const int value = *current ? std::stoi(**current) : 0;
          return txn.put_entry("counter", "c", std::to_string(value + 1), 0);
        });
        if (!wrote) {
          ++failures;
          ADD_FAILURE() << "increment failed: " << wrote.error().message;
        }
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(0, failures.load());
  auto final_value = read_value(store(), [](StoreTxn& txn) { return txn.get_entry("counter", "c"); });
  ASSERT_EQ("ok", outcome(final_value));
  EXPECT_EQ(std::optional<std::string>(std::to_string(kThreads * kIncrements)), *final_value);
}

// The last-admin rule (Accounts::set_role/remove) counts admins and demotes
// one in one write: two such writes at once must not both see two admins
// (write skew). LMDB has one writer; PostgreSQL must refuse one (SERIALIZABLE)
// and the store runs it again.
TEST_P(StoreContract, CountThenWriteHasNoWriteSkew) {
  for (int round = 0; round < 10; ++round) {
    const std::string a = "skew-a" + std::to_string(round), b = "skew-b" + std::to_string(round);
    insert(make_user(a, Role::admin));
    insert(make_user(b, Role::admin));
    std::atomic<bool> go{false};
    auto demote = [&](const std::string& name) {
      while (!go.load()) std::this_thread::yield();
      auto wrote = store().write([&](StoreTxn& txn) -> Result<void> {
        auto admins = txn.list_users(UserQuery{.role = Role::admin, .contains = {}, .offset = 0, .limit = 2});
        if (!admins) return std::unexpected(admins.error());
        if (admins->total <= 1) return fail(Errc::conflict, "last admin");
        auto user = txn.find_user(name);
        if (!user) return std::unexpected(user.error());
        user->role = Role::user;
        return txn.replace_user(*user);
      });
      if (!wrote && wrote.error().code != Errc::conflict) ADD_FAILURE() << wrote.error().message;
    };
    std::thread one(demote, a), two(demote, b);
    go = true;
    one.join();
    two.join();
    std::size_t admins = 0;
    ASSERT_EQ("ok", outcome(read([&](StoreTxn& txn) -> Result<void> {
                auto page = txn.list_users(UserQuery{.role = Role::admin, .contains = {}, .offset = 0, .limit = static_cast<std::size_t>(-1)});
                if (!page) return std::unexpected(page.error());
                admins = page->total;
                return {};
              })));
    ASSERT_EQ(1u, admins) << "round " << round;
    ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
                for (const auto& name : {a, b}) {
                  auto user = txn.find_user(name);
                  if (!user) return std::unexpected(user.error());
                  user->role = Role::user;
                  if (auto ok = txn.replace_user(*user); !ok) return ok;
                }
                return {};
              })));
  }
}

// --- Store::find_user (the guard's lookup, possibly cached) -------------------

TEST_P(StoreContract, FindUserFollowsEveryWriteOfThisStore) {
  User user = make_user("liam", Role::admin);
  insert(user);
  for (int i = 0; i < 3; ++i) {  // fill any cache
    auto found = store().find_user("liam");
    ASSERT_EQ("ok", outcome(found));
    EXPECT_EQ(Role::admin, found->role);
  }
  user.role = Role::user;
  user.version = 1;
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  auto found = store().find_user("liam");
  ASSERT_EQ("ok", outcome(found));
  EXPECT_EQ(Role::user, found->role);
  EXPECT_EQ(1, found->version);
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_user("liam"); })));
  EXPECT_EQ("not_found", outcome(store().find_user("liam")));
}

// The guard holds the shared answer while it serves a request: a change
// committed meanwhile must reach the next lookup and leave the held one as
// it was read (the store never writes into an answer it handed out).
TEST_P(StoreContract, SharedFindUserAgreesWithTheCopyAndIsNeverChangedInPlace) {
  User user = make_user("lena", Role::writer);
  user.email = "lena@example.org";
  insert(user);
  auto held = store().find_user_shared("lena");
  ASSERT_EQ("ok", outcome(held));
  ASSERT_NE(nullptr, *held);
  expect_same_user(user, **held);
  auto again = store().find_user_shared("lena");  // from any cache now
  ASSERT_EQ("ok", outcome(again));
  expect_same_user(user, **again);
  auto copy = store().find_user("lena");
  ASSERT_EQ("ok", outcome(copy));
  expect_same_user(**again, *copy);

  User changed = user;
  changed.role = Role::admin;
  changed.version = 1;
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(changed); })));
  auto fresh = store().find_user_shared("lena");
  ASSERT_EQ("ok", outcome(fresh));
  EXPECT_EQ(Role::admin, (*fresh)->role);
  EXPECT_EQ(1, (*fresh)->version);
  EXPECT_EQ(Role::writer, (*held)->role) << "an answer handed out was changed in place";
  EXPECT_EQ(0, (*held)->version);
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_user("lena"); })));
  EXPECT_EQ("not_found", outcome(store().find_user_shared("lena")));
  EXPECT_EQ("lena", (*held)->username);
}

// MemoryOnly (authd/store.hpp), what the event loops answer with: a store
// that never waits answers everything inside a scope and refuses nothing; one
// that waits on the network answers there only what it holds in memory, and
// refuses the rest at once, noting it (a write before its work runs), so that
// the request runs again where waiting is allowed.
TEST_P(StoreContract, MemoryOnlyAnswersFromMemoryOrRefusesAtOnce) {
  insert(make_user("mona", Role::writer));
  ASSERT_EQ("ok", outcome(write([](StoreTxn& txn) { return txn.insert_record("m1", R"({"_id":"m1"})"); })));
  if (!store().waits_on_network()) {
    MemoryOnly scope;
    EXPECT_EQ("ok", outcome(store().find_user_shared("mona")));
    EXPECT_EQ("ok", outcome(store().find_record("m1")));
    EXPECT_EQ("not_found", outcome(store().find_user_shared("nobody")));
    EXPECT_EQ("ok", outcome(write([](StoreTxn& txn) { return txn.put_entry("memory", "k", "v", 0); })));
    EXPECT_FALSE(scope.refused());
    return;
  }
  {
    MemoryOnly scope;
    bool ran = false;
    auto wrote = write([&](StoreTxn&) -> Result<void> {
      ran = true;
      return {};
    });
    EXPECT_EQ("unavailable", outcome(wrote));
    EXPECT_FALSE(ran) << "a write's work ran on a thread that may not wait";
    EXPECT_TRUE(scope.refused());
  }
  {
    MemoryOnly scope;
    EXPECT_EQ("unavailable", outcome(store().find_user_shared("nobody")));
    EXPECT_TRUE(scope.refused()) << "a miss is refused, not read from the database";
  }
  {
    MemoryOnly scope;
    // A read the caches cannot answer, its error dropped by the caller: still noted.
    (void)read_value(store(), [](StoreTxn& txn) { return txn.get_entry("memory", "k"); });
    EXPECT_TRUE(scope.refused());
  }
  // Read once where waiting is allowed: then answered from memory (once the
  // caches are live: their LISTEN connection may still be starting).
  EXPECT_TRUE(test::within(3s, [&] {
    (void)store().find_user_shared("mona");
    (void)store().find_record("m1");
    (void)store().list_records();
    MemoryOnly scope;
    const bool answered = store().find_user_shared("mona").has_value() && store().find_record("m1").has_value() &&
                          store().list_records().has_value();
    return answered && !scope.refused();
  }));
  EXPECT_FALSE(MemoryOnly::active());
}

TEST_P(StoreContract, FindUserIgnoresARolledBackChange) {
  insert(make_user("mia", Role::editor));
  ASSERT_EQ("ok", outcome(store().find_user("mia")));
  auto wrote = write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.replace_user(make_user("mia", Role::admin)); !ok) return ok;
    return fail(Errc::conflict, "abandon");
  });
  ASSERT_EQ("conflict", outcome(wrote));
  auto found = store().find_user("mia");
  ASSERT_EQ("ok", outcome(found));
  EXPECT_EQ(Role::editor, found->role);
}

// A second Store on the same data (another node): what it changes is seen by
// the first one's find_user within one second, cache or not.
TEST_P(StoreContract, FindUserSeesAnotherNodesChangeWithinOneSecond) {
  if (!sut_.open_again) GTEST_SKIP() << GetParam().name << " cannot open its data twice in one process";
  auto other = sut_.open_again();
  insert(make_user("noah", Role::admin));
  ASSERT_EQ("ok", outcome(store().find_user("noah")));
  ASSERT_EQ(Role::admin, store().find_user("noah")->role);

  auto seen_within = [](auto&& done) { return test::within(1s, done, 5ms); };
  ASSERT_EQ("ok", outcome(other->write([&](StoreTxn& txn) { return txn.replace_user(make_user("noah", Role::user)); })));
  EXPECT_TRUE(seen_within([&] {
    auto found = store().find_user("noah");
    return found && found->role == Role::user;
  }));
  ASSERT_EQ("ok", outcome(other->write([&](StoreTxn& txn) { return txn.delete_user("noah"); })));
  EXPECT_TRUE(seen_within([&] { return !store().find_user("noah").has_value(); }));
}

// --- Store::find_record (the capability read, possibly cached) ----------------

TEST_P(StoreContract, FindRecordFollowsEveryWriteOfThisStore) {
  EXPECT_EQ("not_found", outcome(store().find_record("r1")));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_record("r1", R"({"v":1})"); })));
  for (int i = 0; i < 3; ++i) {  // fill any cache
    auto found = store().find_record("r1");
    ASSERT_EQ("ok", outcome(found));
    EXPECT_EQ(R"({"v":1})", *found);
  }
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_record("r1", R"({"v":2})"); })));
  auto found = store().find_record("r1");
  ASSERT_EQ("ok", outcome(found));
  EXPECT_EQ(R"({"v":2})", *found);
  auto rolled_back = write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.replace_record("r1", R"({"v":3})"); !ok) return ok;
    return fail(Errc::conflict, "abandon");
  });
  ASSERT_EQ("conflict", outcome(rolled_back));
  EXPECT_EQ(R"({"v":2})", store().find_record("r1").value_or("error"));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_record("r1"); })));
  EXPECT_EQ("not_found", outcome(store().find_record("r1")));
}

// A record updated or deleted through another node is seen by this one's
// find_record within one second, cache or not.
TEST_P(StoreContract, FindRecordSeesAnotherNodesChangeWithinOneSecond) {
  if (!sut_.open_again) GTEST_SKIP() << GetParam().name << " cannot open its data twice in one process";
  auto other = sut_.open_again();
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.insert_record("r2", R"({"v":1})"); })));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(R"({"v":1})", store().find_record("r2").value_or("error"));

  auto seen_within = [](auto&& done) { return test::within(1s, done, 5ms); };
  ASSERT_EQ("ok", outcome(other->write([&](StoreTxn& txn) { return txn.replace_record("r2", R"({"v":2})"); })));
  EXPECT_TRUE(seen_within([&] { return store().find_record("r2").value_or("error") == R"({"v":2})"; }));
  ASSERT_EQ("ok", outcome(other->write([&](StoreTxn& txn) { return txn.delete_record("r2"); })));
  EXPECT_TRUE(seen_within([&] { return outcome(store().find_record("r2")) == "not_found"; }));
}

// --- Store ---------------------------------------------------------------------

TEST_P(StoreContract, StatsCountUsers) {
  insert(make_user("olga"));
  insert(make_user("pete"));
  auto stats = store().stats();
  ASSERT_EQ("ok", outcome(stats));
  EXPECT_EQ(2u, stats->users);
  EXPECT_GT(stats->bytes_used, 0u);
  if (stats->bytes_capacity != 0) {
    EXPECT_LE(stats->bytes_used, stats->bytes_capacity);
  }
}

TEST_P(StoreContract, HasAName) { EXPECT_FALSE(store().name().empty()); }

std::string backend_name(const ::testing::TestParamInfo<StoreBackend>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Backends, StoreContract, ::testing::ValuesIn(test::store_backends()), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, ListUsers, ::testing::ValuesIn(test::store_backends()), backend_name);

}  // namespace
}  // namespace authd
