// The store contract, continued: finding users by address (UserQuery::email),
// which every backend answers from an index it keeps with each user write.
// Run on every registered backend, as store_contract_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "authd/store.hpp"
#include "store_backends.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using test::StoreBackend;

User user_with(std::string username, std::string email, Role role = Role::user) {
  User user;
  user.id = new_object_id();
  user.username = std::move(username);
  user.password_hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";
  user.email = std::move(email);
  user.role = role;
  user.created_at = 1700000000;
  user.updated_at = 1700000000;
  return user;
}

class StoreContractEmail : public test::StoreBackendTest {
 protected:
  UserPage of(std::string email, std::size_t limit = static_cast<std::size_t>(-1), std::size_t offset = 0) {
    UserQuery query;
    query.email = std::move(email);
    query.limit = limit;
    query.offset = offset;
    return of(query);
  }
  UserPage of(const UserQuery& query) { return list_users(query); }

};

using Names = std::vector<std::string>;

TEST_P(StoreContractEmail, FindsTheUsersOfAnAddressIgnoringAsciiCase) {
  insert(user_with("alice", "Alice@Example.org"));
  insert(user_with("bob", "bob@example.org"));
  insert(user_with("nomail", ""));
  auto page = of("alice@EXAMPLE.org");
  EXPECT_EQ(Names{"alice"}, names(page));
  EXPECT_EQ(1u, page.total);
  ASSERT_EQ(1u, page.users.size());
  EXPECT_EQ("Alice@Example.org", page.users[0].email);  // as stored
  EXPECT_EQ(Names{"bob"}, names(of("BOB@example.ORG")));
  EXPECT_EQ(0u, of("carol@example.org").total);
  EXPECT_EQ(0u, of("alice@example.or").total);   // the whole address,
  EXPECT_EQ(0u, of("alice@example.org ").total);  // nothing more, nothing less
  EXPECT_EQ(0u, of("%@example.org").total);       // no wildcards
}

TEST_P(StoreContractEmail, CaseFoldingIsAsciiOnly) {
  insert(user_with("eve", "\xc3\x89ve@example.org"));  // "Éve"
  EXPECT_EQ(Names{"eve"}, names(of("\xc3\x89VE@EXAMPLE.ORG")));
  EXPECT_EQ(0u, of("\xc3\xa9ve@example.org").total);  // "éve": not the same address to authd
}

TEST_P(StoreContractEmail, ManyUsersOfOneAddressInUsernameOrderWithLimitAndOffset) {
  for (auto name : {"zed", "amy", "Kim", "bo", "carl"}) insert(user_with(name, "Family@example.org"));
  insert(user_with("other", "other@example.org"));
  auto all = of("family@example.org");
  EXPECT_EQ((Names{"Kim", "amy", "bo", "carl", "zed"}), names(all));
  EXPECT_EQ(5u, all.total);
  auto first = of("family@example.org", 2);
  EXPECT_EQ((Names{"Kim", "amy"}), names(first));
  EXPECT_EQ(5u, first.total);
  EXPECT_EQ((Names{"bo", "carl"}), names(of("family@example.org", 2, 2)));
  EXPECT_TRUE(of("family@example.org", 0).users.empty());
}

TEST_P(StoreContractEmail, CombinesWithTheOtherFilters) {
  insert(user_with("ann", "team@example.org", Role::admin));
  insert(user_with("anton", "team@example.org"));
  insert(user_with("ben", "team@example.org", Role::admin));
  UserQuery query;
  query.email = "TEAM@example.org";
  query.role = Role::admin;
  EXPECT_EQ((Names{"ann", "ben"}), names(of(query)));
  query.contains = "an";
  EXPECT_EQ(Names{"ann"}, names(of(query)));
  query.role.reset();
  auto page = of(query);
  EXPECT_EQ((Names{"ann", "anton"}), names(page));
  EXPECT_EQ(2u, page.total);
}

TEST_P(StoreContractEmail, AnEmptyAddressIsNoFilter) {
  insert(user_with("a", "a@example.org"));
  insert(user_with("b", ""));
  EXPECT_EQ(2u, of("").total);
}

TEST_P(StoreContractEmail, LongAddressesSharingABeginningAreTold) {
  const std::string common(300, 'x');
  insert(user_with("one", common + "1@example.org"));
  insert(user_with("two", common + "2@example.org"));
  EXPECT_EQ(Names{"one"}, names(of(common + "1@EXAMPLE.org")));
  EXPECT_EQ(Names{"two"}, names(of(common + "2@example.org")));
  EXPECT_EQ(0u, of(common).total);
}

TEST_P(StoreContractEmail, ReplaceMovesTheUserToItsNewAddress) {
  User user = user_with("frank", "old@example.org");
  insert(user);
  user.email = "New@example.org";
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  EXPECT_EQ(0u, of("old@example.org").total);
  EXPECT_EQ(Names{"frank"}, names(of("new@example.org")));
  // A change of case only, then no address at all.
  user.email = "NEW@EXAMPLE.ORG";
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  auto page = of("new@example.org");
  ASSERT_EQ(1u, page.users.size());
  EXPECT_EQ("NEW@EXAMPLE.ORG", page.users[0].email);
  user.email.clear();
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  EXPECT_EQ(0u, of("new@example.org").total);
  user.email = "back@example.org";
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  EXPECT_EQ(Names{"frank"}, names(of("back@example.org")));
}

TEST_P(StoreContractEmail, ReplacingOtherFieldsKeepsTheUserFound) {
  User user = user_with("gina", "gina@example.org");
  insert(user);
  user.role = Role::editor;
  user.version = 1;
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.replace_user(user); })));
  auto page = of("gina@example.org");
  ASSERT_EQ(1u, page.users.size());
  EXPECT_EQ(Role::editor, page.users[0].role);
}

TEST_P(StoreContractEmail, DeletedUserIsNoLongerFoundNorItsNameWhenReused) {
  insert(user_with("hank", "hank@example.org"));
  insert(user_with("hank2", "hank@example.org"));
  ASSERT_EQ("ok", outcome(write([&](StoreTxn& txn) { return txn.delete_user("hank"); })));
  EXPECT_EQ(Names{"hank2"}, names(of("hank@example.org")));
  insert(user_with("hank", "elsewhere@example.org"));  // the name again, another address
  EXPECT_EQ(Names{"hank2"}, names(of("hank@example.org")));
  EXPECT_EQ(Names{"hank"}, names(of("elsewhere@example.org")));
}

TEST_P(StoreContractEmail, WriteSeesItsOwnIndexChanges) {
  EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              User user = user_with("ida", "ida@example.org");
              if (auto ok = txn.insert_user(user); !ok) return ok;
              UserQuery query;
              query.email = "IDA@example.org";
              auto found = txn.list_users(query);
              if (!found || found->total != 1) return fail(Errc::internal, "own insert not found by email");
              user.email = "ida2@example.org";
              if (auto ok = txn.replace_user(user); !ok) return ok;
              found = txn.list_users(query);
              if (!found || found->total != 0) return fail(Errc::internal, "old address still finds it");
              return {};
            })));
}

TEST_P(StoreContractEmail, AFailedWriteLeavesTheIndexAsItWas) {
  User kept = user_with("jack", "jack@example.org");
  insert(kept);
  auto wrote = write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.insert_user(user_with("jill", "jill@example.org")); !ok) return ok;
    User moved = kept;
    moved.email = "moved@example.org";
    if (auto ok = txn.replace_user(moved); !ok) return ok;
    return fail(Errc::invalid_input, "changed my mind");
  });
  ASSERT_EQ("invalid_input", outcome(wrote));
  EXPECT_EQ(0u, of("jill@example.org").total);
  EXPECT_EQ(0u, of("moved@example.org").total);
  EXPECT_EQ(Names{"jack"}, names(of("jack@example.org")));
  wrote = write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.delete_user("jack"); !ok) return ok;
    return fail(Errc::invalid_input, "changed my mind");
  });
  ASSERT_EQ("invalid_input", outcome(wrote));
  EXPECT_EQ(Names{"jack"}, names(of("jack@example.org")));
}

TEST_P(StoreContractEmail, RefusedUserWritesLeaveTheIndexAlone) {
  insert(user_with("kate", "kate@example.org"));
  EXPECT_EQ("ok", outcome(write([&](StoreTxn& txn) -> Result<void> {
              // Taken name: conflict, and the other address is not filed under it.
              EXPECT_EQ("conflict", outcome(txn.insert_user(user_with("kate", "impostor@example.org"))));
              EXPECT_EQ("not_found", outcome(txn.replace_user(user_with("nobody", "nobody@example.org"))));
              EXPECT_EQ("not_found", outcome(txn.delete_user("nobody")));
              return {};
            })));
  EXPECT_EQ(0u, of("impostor@example.org").total);
  EXPECT_EQ(0u, of("nobody@example.org").total);
  EXPECT_EQ(Names{"kate"}, names(of("kate@example.org")));
}

std::string backend_name(const ::testing::TestParamInfo<StoreBackend>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractEmail, ::testing::ValuesIn(test::store_backends()), backend_name);

}  // namespace
}  // namespace authd
