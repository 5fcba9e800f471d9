#include "authd/guard.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "authd/accounts.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'000;

class GuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    users_.emplace(db_.store(), hasher_, CredentialPolicy{});
    auto tokens = TokenService::create(SigningKey(std::string(32, 'g')), TokenPolicy{});
    ASSERT_TRUE(tokens.has_value()) << tokens.error().message;
    tokens_.emplace(std::move(*tokens));
    guard_.emplace(*tokens_, db_.store());
  }

  User make_user(const std::string& name, Role role = Role::user) {
    return test::insert_user(db_.store(), name, role, "$argon2id$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g");
  }

  std::string bearer_for(const User& user, std::int64_t now = kNow) const {
    return "Bearer " + tokens_->issue(kAccessTokenType, user.id, user.username, now);
  }

  Result<Principal> check(std::string_view header, std::optional<Capability> cap = std::nullopt,
                          std::int64_t now = kNow) const {
    return guard_->check(header, cap, now);
  }

  test::TempStore db_;
  PasswordHasher hasher_{test::kFastArgon2};
  std::optional<Accounts> users_;
  std::optional<TokenService> tokens_;
  std::optional<Guard> guard_;
};

void expect_error(const Result<Principal>& result, Errc code) {
  ASSERT_FALSE(result.has_value()) << "unexpectedly accepted user " << result->user().username;
  EXPECT_EQ(result.error().code, code)
      << "got " << to_string(result.error().code) << ": " << result.error().message;
}

TEST_F(GuardTest, ValidTokenOfAnExistingUserGivesAPrincipal) {
  User alice = make_user("alice");
  auto principal = check(bearer_for(alice));
  ASSERT_TRUE(principal.has_value()) << principal.error().message;
  EXPECT_EQ(principal->user().id, alice.id);
  EXPECT_EQ(principal->user().username, "alice");
  EXPECT_EQ(principal->user().role, Role::user);
  EXPECT_EQ(principal->claims().subject, alice.id);
  EXPECT_EQ(principal->claims().username, "alice");
  EXPECT_EQ(principal->claims().issued_at, kNow);
}

TEST_F(GuardTest, CapabilityMatrix) {
  for (const auto& row : test::kSpecCapabilities) {
    User u = make_user(std::string("u-") + std::string(to_string(row.role)), row.role);
    const std::string header = bearer_for(u);
    const std::pair<Capability, bool> expectations[] = {{Capability::read, row.read},
                                                        {Capability::create, row.create},
                                                        {Capability::update, row.update},
                                                        {Capability::delete_, row.del}};
    for (auto [cap, allowed] : expectations) {
      SCOPED_TRACE(std::string(to_string(row.role)) + " " + std::string(to_string(cap)));
      auto result = check(header, cap);
      if (allowed) {
        EXPECT_TRUE(result.has_value()) << result.error().message;
      } else {
        expect_error(result, Errc::not_permitted);
      }
    }
    // No capability required: any authenticated role passes.
    EXPECT_TRUE(check(header).has_value());
  }
}

TEST_F(GuardTest, AuthorizeAlone) {
  auto user = std::make_shared<User>();
  const Principal p{user, nullptr};
  user->role = Role::writer;
  EXPECT_TRUE(Guard::authorize(p, Capability::read).has_value());
  EXPECT_TRUE(Guard::authorize(p, Capability::create).has_value());
  auto update = Guard::authorize(p, Capability::update);
  ASSERT_FALSE(update.has_value());
  EXPECT_EQ(update.error().code, Errc::not_permitted);
  user->role = Role::admin;
  EXPECT_TRUE(Guard::authorize(p, Capability::delete_).has_value());
  user->role = Role::user;
  auto del = Guard::authorize(p, Capability::delete_);
  ASSERT_FALSE(del.has_value());
  EXPECT_EQ(del.error().code, Errc::not_permitted);
}

TEST_F(GuardTest, TokenOfADeletedUserIsInvalid) {
  User alice = make_user("alice");
  const std::string header = bearer_for(alice);
  ASSERT_TRUE(check(header).has_value());
  ASSERT_TRUE(users_->remove("alice").has_value());
  expect_error(check(header), Errc::invalid_token);
  expect_error(check(header, Capability::read), Errc::invalid_token);
}

TEST_F(GuardTest, TokenOfARecreatedUserIsInvalid) {
  User first = make_user("alice", Role::admin);
  const std::string old_header = bearer_for(first);
  ASSERT_TRUE(users_->remove("alice", true).has_value());  // forced: the only admin
  User second = make_user("alice", Role::admin);
  ASSERT_NE(first.id, second.id);
  expect_error(check(old_header, Capability::read), Errc::invalid_token);
  auto fresh = check(bearer_for(second), Capability::delete_);
  ASSERT_TRUE(fresh.has_value()) << fresh.error().message;
  EXPECT_EQ(fresh->user().id, second.id);
}

TEST_F(GuardTest, RoleChangeTakesEffectWithoutANewToken) {
  User alice = make_user("alice");
  const std::string header = bearer_for(alice);
  expect_error(check(header, Capability::delete_), Errc::not_permitted);

  ASSERT_TRUE(users_->set_role("alice", Role::admin).has_value());
  auto promoted = check(header, Capability::delete_);
  ASSERT_TRUE(promoted.has_value()) << promoted.error().message;
  EXPECT_EQ(promoted->user().role, Role::admin);
  EXPECT_EQ(promoted->user().version, 1);

  ASSERT_TRUE(users_->set_role("alice", Role::writer, true).has_value());  // forced: the only admin
  expect_error(check(header, Capability::update), Errc::not_permitted);
  EXPECT_TRUE(check(header, Capability::create).has_value());
}

TEST_F(GuardTest, ExpiredTokenIsInvalid) {
  User alice = make_user("alice", Role::admin);
  const std::string header = bearer_for(alice, kNow);
  EXPECT_TRUE(check(header, Capability::read, kNow + 3599).has_value());
  expect_error(check(header, Capability::read, kNow + 3600), Errc::invalid_token);
  expect_error(check(header, std::nullopt, kNow + 7200), Errc::invalid_token);
}

TEST_F(GuardTest, AuthenticationFailsBeforeAuthorization) {
  make_user("alice");
  expect_error(check("Bearer not.a.token", Capability::delete_), Errc::invalid_token);
  User bob = make_user("bob");
  expect_error(check(bearer_for(bob, kNow - 7200), Capability::delete_), Errc::invalid_token);
}

TEST_F(GuardTest, MissingHeaderIsMissingToken) {
  expect_error(check(""), Errc::no_credentials);
  expect_error(check("", Capability::read), Errc::no_credentials);
  expect_error(check("Basic YWxpY2U6c2VjcmV0", Capability::read), Errc::no_credentials);
}

TEST_F(GuardTest, MalformedHeaderIsInvalidRequest) {
  User alice = make_user("alice");
  expect_error(check("Bearer"), Errc::malformed_credentials);
  expect_error(check("Bearer a b"), Errc::malformed_credentials);
  expect_error(check(bearer_for(alice) + " extra"), Errc::malformed_credentials);
}

TEST_F(GuardTest, GarbageOrForeignTokensAreInvalid) {
  User alice = make_user("alice");
  expect_error(check("Bearer abc"), Errc::invalid_token);
  expect_error(check("Bearer a.b.c"), Errc::invalid_token);

  // An OAuth state token is not an access token.
  const std::string state =
      "Bearer " + tokens_->issue(kOAuthStateTokenType, alice.id, alice.username, kNow);
  expect_error(check(state), Errc::invalid_token);

  // A token signed with another key.
  auto other = TokenService::create(SigningKey(std::string(32, 'o')), TokenPolicy{});
  ASSERT_TRUE(other.has_value());
  expect_error(check("Bearer " + other->issue(kAccessTokenType, alice.id, "alice", kNow)),
               Errc::invalid_token);
}

TEST_F(GuardTest, TokenForAnUnknownSubjectIsInvalid) {
  User alice = make_user("alice");
  // Right username, wrong _id.
  expect_error(check("Bearer " + tokens_->issue(kAccessTokenType, new_object_id(), "alice", kNow)),
               Errc::invalid_token);
  // A user that never existed.
  expect_error(
      check("Bearer " + tokens_->issue(kAccessTokenType, new_object_id(), "nobody", kNow)),
      Errc::invalid_token);
}

TEST_F(GuardTest, TokenWithoutAUsernameIsInvalid) {
  User alice = make_user("alice");
  // A correctly signed token whose `name` claim is empty: not a valid
  // credential (401), not an internal error (500).
  expect_error(check("Bearer " + tokens_->issue(kAccessTokenType, alice.id, "", kNow)),
               Errc::invalid_token);
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

// A service client's token (client_credentials, sub "client:<id>"): the
// guard asks for the client on every request, so a changed role or a removed
// client takes effect on the next one, and the token's scope narrows the role.
TEST_F(GuardTest, AServiceClientIsReadOnEveryRequest) {
  const std::string subject = "client:client_0123456789abcdef01234567";
  std::optional<Role> role = Role::writer;
  int lookups = 0;
  guard_->resolve_service_clients([&](std::string_view asked) -> Result<std::shared_ptr<const User>> {
    ++lookups;
    if (asked != subject || !role) return fail(Errc::invalid_token, "the token's client has been removed");
    auto user = std::make_shared<User>();
    user->id = user->username = subject;
    user->role = *role;
    user->last_revocation = std::numeric_limits<std::int64_t>::max();
    return std::shared_ptr<const User>(std::move(user));
  });
  auto token = [&](std::string scope) {
    return "Bearer " + tokens_->issue(kAccessTokenType, subject, subject, kNow,
                                      {{"client_id", "client_0123456789abcdef01234567"}, {"scope", scope}, {"gen", "0"}});
  };
  const std::string full = token("read create");
  auto principal = check(full, Capability::create);
  ASSERT_TRUE(principal) << principal.error().message;
  EXPECT_EQ(principal->user().username, subject);
  expect_error(check(full, Capability::delete_), Errc::not_permitted);
  expect_error(check(token("read"), Capability::create), Errc::not_permitted);  // narrowed by its scope
  role = Role::user;  // the operator changed the client's role
  expect_error(check(full, Capability::create), Errc::not_permitted);
  EXPECT_TRUE(check(full, Capability::read));
  role.reset();  // removed
  expect_error(check(full, Capability::read), Errc::invalid_token);
  EXPECT_EQ(lookups, 6);
  // A token naming a client in sub but another in client_id, or a user's
  // name, is no service token.
  expect_error(check("Bearer " + tokens_->issue(kAccessTokenType, subject, "alice", kNow, {{"client_id", "x"}})),
               Errc::invalid_token);
  // A service token cannot pass as an OpenID client's token at /userinfo.
  expect_error(guard_->check_client_token(full, kNow), Errc::invalid_token);
}

}  // namespace
}  // namespace authd
