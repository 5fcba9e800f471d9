#include "authd/accounts.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace authd {
namespace {

Json json(std::string_view text) {
  auto parsed = Json::parse(text);
  if (!parsed) throw std::runtime_error("bad test JSON: " + parsed.error().message);
  return *parsed;
}

SignupRequest valid_request(std::string username = "alice") {
  return SignupRequest{std::move(username), "correct horse", "Alice Liddell", "alice@example.org"};
}

void expect_bad_request_naming(const Result<void>& result, std::string_view field) {
  ASSERT_FALSE(result.has_value()) << "accepted; expected an error naming " << field;
  EXPECT_EQ(result.error().code, Errc::invalid_input);
  EXPECT_NE(result.error().message.find(field), std::string::npos)
      << "message \"" << result.error().message << "\" does not name " << field;
}

// ---- signup_request_from_json ---------------------------------------------

TEST(SignupRequestFromJson, ReadsAllFields) {
  auto req = signup_request_from_json(
      json(R"({"username":"alice","password":"pw","fullname":"Alice","email":"a@b.c"})"));
  ASSERT_TRUE(req.has_value()) << req.error().message;
  EXPECT_EQ(req->username, "alice");
  EXPECT_EQ(req->password, "pw");
  EXPECT_EQ(req->fullname, "Alice");
  EXPECT_EQ(req->email, "a@b.c");
}

TEST(SignupRequestFromJson, IgnoresUnknownFieldsIncludingRole) {
  auto req = signup_request_from_json(json(
      R"({"username":"alice","password":"pw","fullname":"Alice","email":"a@b.c","role":"admin"})"));
  ASSERT_TRUE(req.has_value()) << req.error().message;
  EXPECT_EQ(req->username, "alice");
}

TEST(SignupRequestFromJson, MissingFieldIsNamed) {
  const char* fields[] = {"username", "password", "fullname", "email"};
  for (const char* missing : fields) {
    Json body = Json::object();
    for (const char* f : fields) {
      if (std::string_view(f) != missing) body.set(f, Json::string("x@y"));
    }
    auto req = signup_request_from_json(body);
    ASSERT_FALSE(req.has_value()) << missing;
    EXPECT_EQ(req.error().code, Errc::invalid_input);
    EXPECT_NE(req.error().message.find(missing), std::string::npos) << req.error().message;
    EXPECT_NE(req.error().message.find("required"), std::string::npos) << req.error().message;
  }
}

TEST(SignupRequestFromJson, NonStringFieldIsNamed) {
  const char* fields[] = {"username", "password", "fullname", "email"};
  for (const char* wrong : fields) {
    for (Json bad : {Json::integer(1), Json::boolean(true), Json::null(), Json::array(),
                     Json::object()}) {
      Json body = Json::object();
      for (const char* f : fields) {
        body.set(f, std::string_view(f) == wrong ? bad : Json::string("x@y"));
      }
      auto req = signup_request_from_json(body);
      ASSERT_FALSE(req.has_value()) << wrong << " = " << bad.dump();
      EXPECT_EQ(req.error().code, Errc::invalid_input);
      EXPECT_NE(req.error().message.find(wrong), std::string::npos) << req.error().message;
    }
  }
}

TEST(SignupRequestFromJson, NonStringMessageSaysString) {
  auto req = signup_request_from_json(
      json(R"({"username":"alice","password":"pw","fullname":"Alice","email":5})"));
  ASSERT_FALSE(req.has_value());
  EXPECT_NE(req.error().message.find("email"), std::string::npos) << req.error().message;
  EXPECT_NE(req.error().message.find("string"), std::string::npos) << req.error().message;
}

TEST(SignupRequestFromJson, BodyNotAnObjectIsBadRequest) {
  for (const char* text : {"[]", "\"alice\"", "3", "null"}) {
    auto req = signup_request_from_json(json(text));
    ASSERT_FALSE(req.has_value()) << text;
    EXPECT_EQ(req.error().code, Errc::invalid_input);
  }
}

// ---- validate_signup -------------------------------------------------------

TEST(ValidateSignup, AcceptsAValidRequest) {
  CredentialPolicy policy;
  EXPECT_TRUE(validate_signup(valid_request(), policy).has_value());
  EXPECT_TRUE(validate_signup(valid_request("A.b_c@d+e-9"), policy).has_value());
}

TEST(ValidateSignup, UsernameCharacters) {
  CredentialPolicy policy;
  for (std::string bad : {"", "al ice", "alice!", "al/ice", "al:ice", "al\nice", "j\xC3\xBCrgen",
                          "<script>", "al%ice", "al\"ice", "al\\ice"}) {
    SCOPED_TRACE(bad);
    expect_bad_request_naming(validate_signup(valid_request(bad), policy), "username");
  }
}

TEST(ValidateSignup, UsernameLength) {
  CredentialPolicy policy;
  EXPECT_TRUE(validate_signup(valid_request(std::string(64, 'a')), policy).has_value());
  expect_bad_request_naming(validate_signup(valid_request(std::string(65, 'a')), policy),
                            "username");
  policy.username_max_length = 5;
  EXPECT_TRUE(validate_signup(valid_request("abcde"), policy).has_value());
  expect_bad_request_naming(validate_signup(valid_request("abcdef"), policy), "username");
}

TEST(ValidateSignup, PasswordLength) {
  CredentialPolicy policy;
  SignupRequest req = valid_request();
  req.password = std::string(1024, 'p');
  EXPECT_TRUE(validate_signup(req, policy).has_value());
  req.password = std::string(1025, 'p');
  expect_bad_request_naming(validate_signup(req, policy), "password");
  req.password = "";
  expect_bad_request_naming(validate_signup(req, policy), "password");

  policy.password_min_length = 8;
  req.password = "1234567";
  expect_bad_request_naming(validate_signup(req, policy), "password");
  req.password = "12345678";
  EXPECT_TRUE(validate_signup(req, policy).has_value());
}

TEST(ValidateSignup, PasswordMayContainAnything) {
  CredentialPolicy policy;
  SignupRequest req = valid_request();
  req.password = "p\xC3\xA4ss: w\xF0\x9F\x98\x80rd \"'";
  EXPECT_TRUE(validate_signup(req, policy).has_value());
}

TEST(ValidateSignup, Email) {
  CredentialPolicy policy;
  SignupRequest req = valid_request();
  for (std::string good : {"a@b", "alice@example.org", "x.y+z@sub.example.co.uk"}) {
    req.email = good;
    EXPECT_TRUE(validate_signup(req, policy).has_value()) << good;
  }
  for (std::string bad : {"", "alice", "@example.org", "alice@", "@"}) {
    SCOPED_TRACE(bad);
    req.email = bad;
    expect_bad_request_naming(validate_signup(req, policy), "email");
  }
  req.email = std::string(250, 'a') + "@b.cd";  // 255 > 254
  expect_bad_request_naming(validate_signup(req, policy), "email");
  req.email = std::string(249, 'a') + "@b.cd";  // 254
  EXPECT_TRUE(validate_signup(req, policy).has_value());
}

TEST(ValidateSignup, FullnameLength) {
  CredentialPolicy policy;
  SignupRequest req = valid_request();
  req.fullname = std::string(256, 'f');
  EXPECT_TRUE(validate_signup(req, policy).has_value());
  req.fullname = std::string(257, 'f');
  expect_bad_request_naming(validate_signup(req, policy), "fullname");
}

// ---- Accounts ----------------------------------------------------------------

class AccountsTest : public ::testing::Test {
 protected:
  void SetUp() override { accounts_.emplace(db_.store(), hasher_, CredentialPolicy{}); }

  test::TempStore db_;
  Store* users_ = &db_.store();
  PasswordHasher hasher_{test::kFastArgon2};
  std::optional<Accounts> accounts_;
};

TEST_F(AccountsTest, SignUpCreatesAUserWithAnArgon2idHash) {
  auto user = accounts_->sign_up(valid_request());
  ASSERT_TRUE(user.has_value()) << user.error().message;
  EXPECT_EQ(user->username, "alice");
  EXPECT_EQ(user->role, Role::user);
  EXPECT_EQ(user->version, 0);
  EXPECT_EQ(user->id.size(), 24u);
  EXPECT_EQ(user->fullname, "Alice Liddell");
  EXPECT_EQ(user->email, "alice@example.org");
  EXPECT_TRUE(user->password_hash.starts_with("$argon2id$v=19$")) << user->password_hash;
  EXPECT_EQ(user->password_hash.find("correct horse"), std::string::npos);
  EXPECT_TRUE(hasher_.verify(user->password_hash, "correct horse"));

  auto stored = users_->find_user("alice");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->id, user->id);
  EXPECT_EQ(stored->password_hash, user->password_hash);
  EXPECT_EQ(stored->role, Role::user);
}

TEST_F(AccountsTest, SignUpValidates) {
  SignupRequest req = valid_request("bad name");
  auto user = accounts_->sign_up(req);
  ASSERT_FALSE(user.has_value());
  EXPECT_EQ(user.error().code, Errc::invalid_input);
  EXPECT_EQ(outcome(users_->find_user("bad name")), "not_found");
}

TEST_F(AccountsTest, DuplicateSignUpIsAConflict) {
  auto first = accounts_->sign_up(valid_request());
  ASSERT_TRUE(first.has_value());
  SignupRequest again = valid_request();
  again.password = "another password";
  auto second = accounts_->sign_up(again);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code, Errc::conflict);
  // The original password still works; the new one does not.
  EXPECT_TRUE(accounts_->sign_in({"alice", "correct horse"}).has_value());
  EXPECT_FALSE(accounts_->sign_in({"alice", "another password"}).has_value());
}

TEST_F(AccountsTest, SignInWithTheRightPassword) {
  auto created = accounts_->sign_up(valid_request());
  ASSERT_TRUE(created.has_value());
  auto user = accounts_->sign_in({"alice", "correct horse"});
  ASSERT_TRUE(user.has_value()) << user.error().message;
  EXPECT_EQ(user->id, created->id);
  EXPECT_EQ(user->username, "alice");
}

TEST_F(AccountsTest, SignInFailuresAreAllInvalidLogin) {
  ASSERT_TRUE(accounts_->sign_up(valid_request()).has_value());
  const BasicCredentials attempts[] = {
      {"alice", "wrong"},
      {"alice", ""},
      {"alice", "correct horse "},
      {"Alice", "wrong"},  // "Alice" is alice (canonical usernames), with a wrong password
      {"nobody", "correct horse"},
      {"alice", std::string(5000, 'x')},
      {std::string(5000, 'u'), "pw"},
  };
  for (const BasicCredentials& c : attempts) {
    auto user = accounts_->sign_in(c);
    EXPECT_EQ(outcome(user), "invalid_login")
        << c.username.substr(0, 20) << " / " << c.password.substr(0, 20);
  }
}

TEST_F(AccountsTest, SignInWithAnEmptyUsernameIsInvalidLogin) {
  ASSERT_TRUE(accounts_->sign_up(valid_request()).has_value());
  EXPECT_EQ(outcome(accounts_->sign_in({"", ""})), "invalid_login");
  EXPECT_EQ(outcome(accounts_->sign_in({"", "correct horse"})), "invalid_login");
}

TEST_F(AccountsTest, AccountWithoutPasswordCannotSignIn) {
  test::insert_user(db_.store(), "oauth-only");
  auto empty = accounts_->sign_in({"oauth-only", ""});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, Errc::invalid_login);
  auto any = accounts_->sign_in({"oauth-only", "anything"});
  ASSERT_FALSE(any.has_value());
  EXPECT_EQ(any.error().code, Errc::invalid_login);
}

TEST_F(AccountsTest, PolicyIsKept) {
  CredentialPolicy policy;
  policy.username_max_length = 10;
  Accounts accounts(db_.store(), hasher_, policy);
  EXPECT_EQ(accounts.policy().username_max_length, 10u);
  auto user = accounts.sign_up(valid_request("elevenchars"));
  ASSERT_FALSE(user.has_value());
  EXPECT_EQ(user.error().code, Errc::invalid_input);
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

// Attack (or accident): demoting or deleting the last admin locks every
// operator out of the admin API and pages; two admins demoting each other at
// once must not leave none either.
TEST_F(AccountsTest, TheLastAdminIsNeitherDemotedNorDeleted) {
  test::insert_user(db_.store(), "root", Role::admin);
  auto demoted = accounts_->set_role("root", Role::editor);
  ASSERT_FALSE(demoted);
  EXPECT_EQ(demoted.error().code, Errc::conflict);
  EXPECT_NE(demoted.error().message.find("last admin"), std::string::npos) << demoted.error().message;
  EXPECT_EQ(outcome(accounts_->remove("root")), "conflict");
  EXPECT_EQ(db_.store().find_user("root")->role, Role::admin);
  EXPECT_EQ(outcome(accounts_->set_role("root", Role::admin)), "ok") << "admin -> admin is no demotion";

  test::insert_user(db_.store(), "second", Role::admin);
  EXPECT_EQ(outcome(accounts_->set_role("root", Role::user)), "ok") << "another admin remains";
  EXPECT_EQ(outcome(accounts_->remove("second")), "conflict") << "now second is the last";
  EXPECT_EQ(outcome(accounts_->remove("second", true)), "ok") << "forced (authctl --force)";
}

TEST_F(AccountsTest, ConcurrentDemotionsOfTheLastTwoAdminsLeaveOne) {
  for (int round = 0; round < 20; ++round) {
    const std::string a = "a" + std::to_string(round), b = "b" + std::to_string(round);
    test::insert_user(db_.store(), a, Role::admin);
    test::insert_user(db_.store(), b, Role::admin);
    std::atomic<bool> go{false};
    std::thread one([&] {
      while (!go) std::this_thread::yield();
      (void)accounts_->set_role(a, Role::user);
    });
    std::thread two([&] {
      while (!go) std::this_thread::yield();
      (void)accounts_->remove(b);
    });
    go = true;
    one.join();
    two.join();
    auto admins = accounts_->list(UserQuery{.role = Role::admin, .contains = {}, .offset = 0, .limit = static_cast<std::size_t>(-1)});
    ASSERT_TRUE(admins);
    EXPECT_EQ(admins->total, 1u) << "round " << round;
    for (const auto& admin : admins->users) ASSERT_TRUE(accounts_->set_role(admin.username, Role::user, true));
  }
}

}  // namespace
}  // namespace authd
