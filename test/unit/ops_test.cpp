// Operations in the core: audit lines, bcrypt verification (libxcrypt),
// import (all or nothing, line numbers, mongoexport _id), LMDB backup and
// restore.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "authd/accounts.hpp"
#include "authd/audit.hpp"
#include "authd/json.hpp"
#include "authd/mfa.hpp"
#include "authd/password.hpp"
#include "authd/store_backends.hpp"
#include "authd/transfer.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

// Made with Apache's bcrypt (htpasswd -nbB -C 8 x 'correct horse'): an accepted cost.
constexpr const char* kBcrypt = "$2y$08$EavsyAeIDupO0n30MUOYlO35.JzuIEsL9q3IGX1K.NdoLm2Ov38Zu";
// Made with Python's bcrypt (python3-bcrypt 3.2): hashpw(b"correct horse", gensalt(4)): too cheap.
constexpr const char* kBcryptCost4 = "$2b$04$YWXgMR9Gkuz4H0gbS/Ol3Ok..mo3GgWvlnGnWVoc8X1fqFf2gotw6";
// libxcrypt, cost 15 (crypt("correct horse", "$2b$15$YWXgMR9Gkuz4H0gbS/Ol3O")): too dear.
constexpr const char* kBcryptCost15 = "$2b$15$YWXgMR9Gkuz4H0gbS/Ol3O9aA7g.A1JPfC2EEqURZ3s5veevhKyQy";

// "committed: U users, B bad lines" (or "not committed: ..."), or
// "error: MESSAGE": what an import reports, to check in one line.
std::string import_summary(const Result<ImportReport>& report) {
  if (!report) return "error: " + report.error().message;
  return std::string(report->committed ? "committed" : "not committed") + ": " + std::to_string(report->users) +
         " users, " + std::to_string(report->bad_lines) + " bad lines";
}

TEST(Audit, LineIsOneJsonObjectWithEveryField) {
  const auto line = audit_line({.event = "signin", .username = "al\"ice\n", .client = "127.0.0.1",
                                .request_id = "r1", .outcome = "ok", .reason = ""},
                               1763903101);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line, even with a newline in a field";
  auto parsed = Json::parse(std::string_view(line).substr(0, line.size() - 1));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->get_string("time"), "2025-11-23T13:05:01Z");
  EXPECT_EQ(parsed->get_string("event"), "signin");
  EXPECT_EQ(parsed->get_string("username"), "al\"ice\n");
  EXPECT_EQ(parsed->get_string("request_id"), "r1");
  EXPECT_FALSE(parsed->has("actor"));
}

TEST(Audit, WritesWholeLinesToTheFile) {
  test::TempDir dir;
  const auto file = dir.path() / "audit.log";
  auto log = AuditLog::open(file.string());
  ASSERT_TRUE(log);
  EXPECT_TRUE((*log)->enabled());
  (*log)->record({.event = "user_deleted", .username = "bob", .outcome = "ok", .actor = "root"});
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("\"actor\":\"root\""), std::string::npos);
  auto none = AuditLog::open("");
  ASSERT_TRUE(none);
  EXPECT_FALSE((*none)->enabled());
}

TEST(Password, BcryptFromAnotherImplementationVerifies) {
  PasswordHasher hasher(Argon2Params{1, 64, 1});
  EXPECT_TRUE(PasswordHasher::is_bcrypt(kBcrypt));
  EXPECT_TRUE(hasher.verify(kBcrypt, "correct horse"));
  EXPECT_FALSE(hasher.verify(kBcrypt, "correct horsE"));
  EXPECT_FALSE(hasher.verify(std::string(kBcrypt).substr(0, 59) + "x", "correct horse"));
  EXPECT_FALSE(PasswordHasher::is_supported("$1$abc$def"));
  EXPECT_FALSE(PasswordHasher::is_supported("plaintext"));
}

// Attack: an imported bcrypt hash of cost 31 makes each sign-in attempt
// burn days of CPU (one request takes a core down); cost 4 is cheap to
// guess. Only 8..14 are accepted, and another cost is never run.
TEST(Password, BcryptCostOutside8To14IsRefusedUnrun) {
  PasswordHasher hasher(Argon2Params{1, 64, 1});
  EXPECT_EQ(PasswordHasher::bcrypt_cost(kBcrypt), 8);
  EXPECT_EQ(PasswordHasher::bcrypt_cost(kBcryptCost15), 15);
  EXPECT_EQ(PasswordHasher::bcrypt_cost("plaintext"), -1);
  EXPECT_TRUE(PasswordHasher::is_supported(kBcrypt));
  EXPECT_FALSE(PasswordHasher::is_supported(kBcryptCost4));
  EXPECT_FALSE(PasswordHasher::is_supported(kBcryptCost15));
  EXPECT_FALSE(hasher.verify(kBcryptCost4, "correct horse")) << "the right password of a refused cost";
  std::string cost31(kBcryptCost15);
  cost31[4] = '3';
  cost31[5] = '1';
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(hasher.verify(cost31, "correct horse"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1)) << "cost 31 must not be run";
}

TEST(Import, BcryptOfARefusedCostIsABadLineNamed) {
  test::TempStore store;
  const std::string input = std::string(R"({"username":"ok8","password":")") + kBcrypt + "\"}\n" +
                            R"({"username":"low","password":")" + kBcryptCost4 + "\"}\n" +
                            R"({"username":"high","password":")" + kBcryptCost15 + "\"}\n";
  auto report = import_lines(store.store(), input, CredentialPolicy{}, false);
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->committed);
  ASSERT_EQ(report->problems.size(), 2u);
  EXPECT_EQ(report->problems[0], "line 2: password is a bcrypt hash of cost 4: only costs 8 to 14 are accepted");
  EXPECT_EQ(report->problems[1], "line 3: password is a bcrypt hash of cost 15: only costs 8 to 14 are accepted");
  EXPECT_EQ(import_summary(import_lines(store.store(), input, CredentialPolicy{}, true)),
            "committed: 1 users, 2 bad lines");
  EXPECT_TRUE(store->find_user("ok8"));
  EXPECT_FALSE(store->find_user("high"));
}

// A hash stored before this rule (an older import, a restored backup) is
// refused at sign-in, without running it: invalid_login like a wrong
// password, with a message for the log; the hash stays for the operator.
TEST(Import, StoredBcryptOfARefusedCostCannotSignIn) {
  test::TempStore store;
  PasswordHasher hasher(Argon2Params{1, 64, 1});
  Accounts accounts(store.store(), hasher, CredentialPolicy{});
  test::insert_user(store.store(), "old", Role::user, kBcryptCost4);
  test::insert_user(store.store(), "good", Role::user, kBcrypt);
  PasswordRefusal why = PasswordRefusal::wrong;
  auto refused = accounts.sign_in({"old", "correct horse"}, &why);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::invalid_login);
  EXPECT_EQ(why, PasswordRefusal::unusable_hash);  // what the sign-in logs, typed
  EXPECT_TRUE(refused.error().message.starts_with(kRefusedStoredHash)) << refused.error().message;
  EXPECT_NE(refused.error().message.find("cost 4"), std::string::npos);
  EXPECT_EQ(store->find_user("old")->password_hash, kBcryptCost4) << "not upgraded: the password was never checked";
  auto signed_in = accounts.sign_in({"good", "correct horse"});
  ASSERT_TRUE(signed_in) << signed_in.error().message;
  EXPECT_TRUE(store->find_user("good")->password_hash.starts_with("$argon2id$")) << "an accepted cost is upgraded";
  EXPECT_FALSE(accounts.sign_in({"good", "wrong horse"}, &why));
  EXPECT_EQ(why, PasswordRefusal::wrong);
}

TEST(Import, MongoexportKeepsIdAndRole) {
  test::TempStore store;
  const std::string input = std::string(R"({"_id":{"$oid":"6561A1B2C3D4E5F6A7B8C9D0"},"username":"ana","password":")") +
                            kBcrypt + R"(","role":"editor","__v":0})" + "\n";
  auto report = import_lines(store.store(), input, CredentialPolicy{}, false);
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->committed);
  EXPECT_EQ(report->users, 1u);
  auto user = store->find_user("ana");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->id, "6561a1b2c3d4e5f6a7b8c9d0");
  EXPECT_EQ(user->role, Role::editor);
  EXPECT_EQ(user->password_hash, kBcrypt);
}

TEST(Import, BadLinesNumberedAndNothingWritten) {
  test::TempStore store;
  const std::string input = std::string(R"({"username":"a1","password":")") + kBcrypt + "\"}\n\n" +
                            R"({"username":"a 2","password":""})" + "\n" + R"({"username":"a3","_id":"xyz"})" + "\n";
  auto report = import_lines(store.store(), input, CredentialPolicy{}, false);
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->committed);
  ASSERT_EQ(report->problems.size(), 2u);
  EXPECT_EQ(report->problems[0].rfind("line 3: username", 0), 0u) << report->problems[0];
  EXPECT_EQ(report->problems[1].rfind("line 4: _id", 0), 0u) << report->problems[1];
  EXPECT_FALSE(store->find_user("a1")) << "all or nothing";

  EXPECT_EQ(import_summary(import_lines(store.store(), input, CredentialPolicy{}, true)),
            "committed: 1 users, 2 bad lines");
  EXPECT_TRUE(store->find_user("a1"));
}

// Attack (SECURITY.md, issue 41 class 14): an imported line with the _id of
// an account already in the store made a second account sharing the first
// one's second factors (keyed by _id); `authctl mfa reset` of the new one
// stripped the other's. A taken _id is refused like a taken username.
TEST(Import, AnIdOfAnAccountInTheStoreIsRefused) {
  test::TempStore store;
  const User alice = test::insert_user(store.store(), "alice", Role::admin);
  auto factors = store->write([&](StoreTxn& txn) {
    return txn.put_entry(kMfaNamespace, alice.id, R"({"totp":{"secret":"JBSWY3DPEHPK3PXP","active":1}})", 0);
  });
  ASSERT_TRUE(factors);
  const std::string line = R"({"_id":")" + alice.id + R"(","username":"mallory","password":")" + kBcrypt + "\"}\n";
  for (const bool skip_bad : {false, true}) {
    auto report = import_lines(store.store(), line, CredentialPolicy{}, skip_bad);
    ASSERT_TRUE(report);
    ASSERT_EQ(report->problems.size(), 1u);
    EXPECT_EQ(report->problems[0], "line 1: _id " + alice.id + " already belongs to user 'alice'");
    EXPECT_EQ(report->users, 0u);
    EXPECT_FALSE(store->find_user("mallory")) << "skip_bad " << skip_bad;
  }
  auto kept = store->read([&](StoreTxn& txn) -> Result<void> {
    auto entry = txn.get_entry(kMfaNamespace, alice.id);
    if (!entry || !*entry) return fail(Errc::internal, "alice's factors are gone");
    return {};
  });
  EXPECT_TRUE(kept) << kept.error().message;
}

// Export -> import carries the second factors as stored (and the passkey
// index), with the format's version first; a newer version is refused whole.
TEST(Import, SecondFactorsCarriedAcrossAndPasskeysNotShared) {
  test::TempStore from;
  const User alice = test::insert_user(from.store(), "alice", Role::user, kBcrypt);
  const std::string state =
      R"({"totp":{"secret":"JBSWY3DPEHPK3PXP","active":1,"last_step":5},"recovery":["ab"],)"
      R"("passkeys":[{"id":"cred-1","key":"k","count":0,"created":1,"name":"passkey"}]})";
  ASSERT_TRUE(from->write([&](StoreTxn& txn) -> Result<void> {
    if (auto ok = txn.put_entry(kMfaNamespace, alice.id, state, 0); !ok) return ok;
    return txn.put_entry(kPasskeyNamespace, "cred-1", alice.id + "\nalice", 0);
  }));
  std::string exported;
  ASSERT_TRUE(export_store(from.store(), [&](std::string_view line) { exported.append(line).push_back('\n'); }));
  EXPECT_EQ(exported.substr(0, exported.find('\n')), R"({"type":"export","version":2})");
  EXPECT_NE(exported.find("\"second_factors\":{"), std::string::npos) << exported;

  test::TempStore to;
  auto report = import_lines(to.store(), exported, CredentialPolicy{}, false);
  ASSERT_TRUE(report);
  ASSERT_TRUE(report->committed) << (report->problems.empty() ? "" : report->problems[0]);
  EXPECT_EQ(report->users, 1u);
  auto carried = to->read([&](StoreTxn& txn) -> Result<void> {
    auto entry = txn.get_entry(kMfaNamespace, alice.id);
    if (!entry || !*entry) return fail(Errc::internal, "no factor state");
    auto parsed = Json::parse(**entry);
    if (!parsed || parsed->get("totp").get_string("secret").value_or("") != "JBSWY3DPEHPK3PXP" ||
        parsed->get("totp").get_integer("last_step").value_or(0) != 5) {
      return fail(Errc::internal, "not as stored: " + **entry);
    }
    auto index = txn.get_entry(kPasskeyNamespace, "cred-1");
    if (!index || !*index || **index != alice.id + "\nalice") return fail(Errc::internal, "no passkey index");
    return {};
  });
  EXPECT_TRUE(carried) << carried.error().message;

  // The same passkey for another account: refused, nothing of that account written.
  std::string other = exported.substr(exported.find('\n') + 1);
  other = other.substr(0, other.find('\n'));
  auto line = Json::parse(other);
  ASSERT_TRUE(line);
  line->set("_id", Json::string("aaaaaaaaaaaaaaaaaaaaaaaa")).set("username", Json::string("mallory"));
  auto refused = import_lines(to.store(), line->dump() + "\n", CredentialPolicy{}, true);
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->problems.size(), 1u);
  EXPECT_NE(refused->problems[0].find("passkey cred-1 is registered to another account"), std::string::npos)
      << refused->problems[0];
  EXPECT_FALSE(to->find_user("mallory"));

  // A newer format: refused whole, even with skip_bad (nothing dropped unread).
  test::TempStore newer;
  auto future = import_lines(newer.store(), R"({"type":"export","version":3})" "\n" + other + "\n", CredentialPolicy{}, true);
  ASSERT_FALSE(future);
  EXPECT_NE(future.error().message.find("version 3"), std::string::npos) << future.error().message;
  EXPECT_FALSE(newer->find_user("alice"));
}

TEST(Backup, CompactCopyRestoresIntoAnEmptyStoreOnly) {
  test::TempStore store;
  test::insert_user(store.store(), "kept", Role::admin);
  test::TempDir dir;
  const auto file = dir.path() / "backup.mdb";
  ASSERT_TRUE(store->backup(file));
  EXPECT_FALSE(store->backup(file)) << "never overwrites";

  LmdbOptions fresh;
  fresh.directory = dir.path() / "restored";
  ASSERT_TRUE(restore_lmdb(fresh, file, false));
  {
    auto reopened = open_lmdb_store(fresh);
    ASSERT_TRUE(reopened);
    auto user = (*reopened)->find_user("kept");
    ASSERT_TRUE(user);
    EXPECT_EQ(user->role, Role::admin);
  }
  auto again = restore_lmdb(fresh, file, false);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, Errc::conflict);
  EXPECT_TRUE(restore_lmdb(fresh, file, true));

  std::ofstream(dir.path() / "junk") << "not lmdb";
  auto junk = restore_lmdb(fresh, dir.path() / "junk", true);
  ASSERT_FALSE(junk);
  EXPECT_EQ(junk.error().code, Errc::invalid_input);
}

}  // namespace
}  // namespace authd
