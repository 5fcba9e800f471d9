// The sign-in use case (authd/sign_in.hpp) over a Core on a temporary LMDB
// store, as a program linking libauthd uses it: password, second factor,
// provider; the throttle and the device token; the audit lines and the
// reported outcomes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "authd/core.hpp"
#include "authd/mail.hpp"
#include "authd/second_factor_methods.hpp"
#include "authd/sign_in.hpp"
#include "authd/totp.hpp"
#include "fixtures.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

class Reports final : public Events {
 public:
  void password_sign_in(PasswordOutcome outcome) override { outcomes.emplace_back(to_string(outcome)); }
  void warning(std::string_view message) override { warnings.emplace_back(message); }
  void mail_queued() override { ++mails; }
  std::vector<std::string> outcomes, warnings;
  int mails = 0;
};

class SignInTest : public ::testing::Test {
 protected:
  void SetUp() override { open(); }

  void open(std::map<std::string, std::string> more = {}) {
    core_.reset();
    std::map<std::string, std::string> vars = {
        {"AUTHD_STATE_DIR", (dir_.path() / "state").string()},
        {"AUTHD_MAP_SIZE_MB", "16"},
        {"AUTHD_SYNC_WRITES", "false"},
        {"AUTHD_SIGNING_KEY", std::string(64, 'a')},
        {"AUTHD_ARGON2_MEMORY_KIB", "256"},
        {"AUTHD_ARGON2_ITERATIONS", "1"},
        {"AUTHD_ARGON2_PARALLELISM", "1"},
        {"AUTHD_AUDIT_LOG", audit_path().string()},
        {"AUTHD_SIGNIN_USER_THRESHOLD", "3"},
    };
    for (auto& [name, value] : more) vars[name] = value;
    auto settings = test::load_core_settings(std::move(vars));
    ASSERT_TRUE(settings) << settings.error().message;
    auto core = Core::open(std::move(*settings), reports_);
    ASSERT_TRUE(core) << core.error().message;
    core_ = std::move(*core);
    if (!core_->accounts().find("alice")) {
      ASSERT_TRUE(core_->accounts().create("alice", "alice password", Role::user, "", "alice@example.org"));
    }
    sign_in_ = std::make_unique<SignIn>(*core_, &templates_);
  }

  std::filesystem::path audit_path() const { return dir_.path() / "audit.log"; }
  std::string audit_text() const {
    std::ifstream in(audit_path());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  User alice() { return *core_->accounts().find("alice"); }
  // A confirmed TOTP for alice; returns the secret's raw key.
  std::string enrol_totp(std::int64_t now) {
    auto enrolment = core_->mfa().begin_totp(alice());
    EXPECT_TRUE(enrolment);
    const auto key = *totp::base32_decode(enrolment->secret);
    EXPECT_TRUE(core_->mfa().confirm_totp(alice(), code_at(key, now - 60), now - 60));
    return key;
  }
  static std::string code_at(const std::string& key, std::int64_t when) {
    return totp::hotp(key, static_cast<std::uint64_t>(totp::step_of(when)));
  }

  void verify_alice() {
    User user = alice();
    user.email_verified = true;
    ASSERT_TRUE(core_->store().write([&](StoreTxn& txn) { return txn.replace_user(user); }));
  }
  std::size_t outbox_depth() { return *mail::Outbox(core_->store(), core_->settings().mail).depth(); }

  test::TempDir dir_;
  mail::Templates templates_ = test::builtin_templates();
  Reports reports_;  // outlives the core that tells it
  std::unique_ptr<Core> core_;
  std::unique_ptr<SignIn> sign_in_;
  const SignInClient client_{.address = "192.0.2.7", .request_id = "req-1", .device_token = "", .user_agent = "ua"};
};

TEST_F(SignInTest, ThePasswordIssuesASessionAndADeviceToken) {
  const auto now = unix_now();
  auto outcome = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(outcome) << outcome.error().message;
  auto* done = std::get_if<SignedIn>(&*outcome);
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->user.username, "alice");
  EXPECT_EQ(done->amr, "");
  EXPECT_FALSE(done->session.refresh) << "refresh tokens are off by default";
  auto who = core_->check("Bearer " + done->session.access_token, std::nullopt);
  ASSERT_TRUE(who) << who.error().message;
  EXPECT_EQ(who->user().username, "alice");
  EXPECT_FALSE(done->device_token.empty());
  EXPECT_EQ(done->device_ttl, core_->throttle().policy().device_ttl);
  EXPECT_FALSE(core_->check("Bearer " + done->device_token, std::nullopt)) << "a device token is no access token";
  EXPECT_EQ(reports_.outcomes, std::vector<std::string>{"ok"});
  const auto audit = audit_text();
  for (const auto* part : {R"("event":"signin")", R"("username":"alice")", R"("client":"192.0.2.7")",
                            R"("request_id":"req-1")", R"("outcome":"ok")"}) {
    EXPECT_NE(audit.find(part), std::string::npos) << part << " in " << audit;
  }
}

const std::map<std::string, std::string> kMailOn = {{"AUTHD_SMTP_URL", "smtp://127.0.0.1:9"},
                                                    {"AUTHD_SMTP_FROM", "noreply@example.org"},
                                                    {"AUTHD_PUBLIC_URL", "https://auth.example.org"}};

TEST_F(SignInTest, ANewDeviceIsToldToTheVerifiedAddressOnce) {
  open(kMailOn);
  verify_alice();
  const auto now = unix_now();
  auto first = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(outbox_depth(), 1u);
  EXPECT_EQ(reports_.mails, 1);
  auto queued = mail::Outbox(core_->store(), core_->settings().mail).claim(now, std::chrono::seconds(60));
  ASSERT_TRUE(queued && *queued);
  EXPECT_EQ((*queued)->kind, "new_device");
  EXPECT_EQ((*queued)->message.to, "alice@example.org");
  const auto& text = (*queued)->message.text;
  EXPECT_NE(text.find("IP address: 192.0.2.7"), std::string::npos) << text;
  EXPECT_NE(text.find("Browser: unknown browser"), std::string::npos) << "a summary, not the header: " << text;
  EXPECT_NE(text.find(" UTC"), std::string::npos) << text;
  const auto& done = std::get<SignedIn>(*first);
  EXPECT_EQ(text.find(done.session.access_token), std::string::npos);
  EXPECT_EQ(text.find(done.device_token), std::string::npos);

  SignInClient known = client_;
  known.device_token = done.device_token;
  ASSERT_TRUE(sign_in_->with_password({"alice", "alice password"}, known, now));
  EXPECT_EQ(reports_.mails, 1) << "a known device is not told";
  ASSERT_TRUE(core_->accounts().create("bob", "bob password", Role::user, "", ""));
  auto bob = sign_in_->with_password({"bob", "bob password"}, client_, now);
  ASSERT_TRUE(bob);
  EXPECT_EQ(reports_.mails, 1) << "bob has no address to tell";
  known.device_token = std::get<SignedIn>(*bob).device_token;
  ASSERT_TRUE(sign_in_->with_password({"alice", "alice password"}, known, now));
  EXPECT_EQ(reports_.mails, 2) << "bob's device is new to alice";
}

TEST_F(SignInTest, NoNoticeToAnUnverifiedAddressOrWhenSwitchedOff) {
  open(kMailOn);
  ASSERT_TRUE(sign_in_->with_password({"alice", "alice password"}, client_, unix_now()));
  EXPECT_EQ(reports_.mails, 0) << "unverified";
  auto off = kMailOn;
  off["AUTHD_NOTIFY_NEW_DEVICE"] = "false";
  open(off);
  verify_alice();
  ASSERT_TRUE(sign_in_->with_password({"alice", "alice password"}, client_, unix_now()));
  EXPECT_EQ(reports_.mails, 0) << "notify_new_device = false";
  EXPECT_EQ(outbox_depth(), 0u);
}

TEST_F(SignInTest, ASecondFactorSignInIsToldAfterThePasswordOnceAnHourAndWhenComplete) {
  open(kMailOn);
  verify_alice();
  const auto now = unix_now();
  const auto key = enrol_totp(now);
  auto first = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(first);
  ASSERT_TRUE(std::holds_alternative<SecondFactorDue>(*first));
  EXPECT_EQ(reports_.mails, 1) << "the right password from a new device is told at once";
  auto again = sign_in_->with_password({"alice", "alice password"}, client_, now + 60);
  ASSERT_TRUE(again && std::holds_alternative<SecondFactorDue>(*again));
  EXPECT_EQ(reports_.mails, 1) << "once per device and hour";
  auto second = sign_in_->with_second_factor(std::get<SecondFactorDue>(*first).mfa_token,
                                             {.code = code_at(key, now)}, client_, now);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(std::get<SignedIn>(*second).device_token.empty());
  EXPECT_EQ(reports_.mails, 2);
}

TEST_F(SignInTest, AWrongPasswordAndAnUnknownUserAreTheSameError) {
  const auto now = unix_now();
  auto wrong = sign_in_->with_password({"alice", "nope"}, client_, now);
  auto unknown = sign_in_->with_password({"nobody", "nope"}, client_, now);
  ASSERT_FALSE(wrong);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(wrong.error().code, Errc::invalid_login);
  EXPECT_EQ(unknown.error().code, Errc::invalid_login);
  EXPECT_EQ(reports_.outcomes, (std::vector<std::string>{"failed", "failed"}));
  EXPECT_NE(audit_text().find(R"("username":"nobody")"), std::string::npos);
  EXPECT_NE(audit_text().find(R"("event":"signin_failed")"), std::string::npos);
}

TEST_F(SignInTest, TheThrottleStopsGuessesButNotTheOwnersDevice) {
  const auto now = unix_now();
  auto first = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(first);
  const auto device = std::get<SignedIn>(*first).device_token;
  const SignInClient elsewhere{.address = "198.51.100.9", .request_id = "", .device_token = "", .user_agent = ""};
  for (int i = 0; i < 4; ++i) (void)sign_in_->with_password({"alice", "guess"}, elsewhere, now);
  auto refused = sign_in_->with_password({"alice", "alice password"}, elsewhere, now);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::throttled);
  EXPECT_EQ(reports_.outcomes.back(), "throttled");
  SignInClient owner = elsewhere;
  owner.device_token = std::get<SignedIn>(*first).session.access_token;
  EXPECT_EQ(outcome(sign_in_->with_password({"alice", "alice password"}, owner, now)), "throttled")
      << "an access token is no device token";
  owner.device_token = device;
  EXPECT_EQ(outcome(sign_in_->with_password({"alice", "alice password"}, owner, now)), "ok")
      << "a valid device cookie for the user skips the username's delay";
}

TEST_F(SignInTest, ASecondFactorIsAskedThenFinishesTheSignIn) {
  const auto now = unix_now();
  const auto key = enrol_totp(now);
  auto first = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(first);
  auto* due = std::get_if<SecondFactorDue>(&*first);
  ASSERT_NE(due, nullptr);
  EXPECT_FALSE(due->mfa_token.empty());
  EXPECT_EQ(due->methods, (std::vector<std::string>{"totp", "recovery"}));
  EXPECT_TRUE(reports_.outcomes.empty()) << "a pending sign-in is not counted yet";

  EXPECT_EQ(outcome(sign_in_->with_second_factor(due->mfa_token, {.code = "000000"}, client_, now)),
            "mfa_failed");
  auto second = sign_in_->with_second_factor(due->mfa_token, {.code = code_at(key, now)}, client_, now);
  ASSERT_TRUE(second) << second.error().message;
  auto* done = std::get_if<SignedIn>(&*second);
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->amr, "pwd otp");
  auto who = core_->check("Bearer " + done->session.access_token, std::nullopt);
  ASSERT_TRUE(who);
  EXPECT_EQ(who->claims().extra.at(std::string(kAmrClaim)), "pwd otp");
  EXPECT_EQ(outcome(sign_in_->with_second_factor(due->mfa_token, {.code = code_at(key, now + 30)},
                                                  client_, now)),
            "mfa_failed")
      << "the mfa_token is spent";
  const auto audit = audit_text();
  EXPECT_NE(audit.find(R"("event":"signin_mfa_pending")"), std::string::npos);
  EXPECT_NE(audit.find(R"("event":"signin_mfa_failed")"), std::string::npos);
  EXPECT_NE(audit.find(R"("reason":"with second factor otp")"), std::string::npos);
}

// A program's own answering method (second_factor_methods.hpp,
// verify_answer) takes the second step through SignIn as passkeys do: no
// special case, its amr in the token, its audit text on a refusal.
TEST_F(SignInTest, AProgramsAnsweringMethodFinishesTheSignIn) {
  SecondFactorMethod method;
  method.name = "test-card";
  method.present = [](const Json& state) { return state.has("test_card"); };
  method.verify_answer = [](const FactorServices&, const Json& answer, std::optional<std::string_view> user_id,
                            std::int64_t) -> Result<FactorProof> {
    if (!user_id) return fail(Errc::not_configured, "a second step only");
    if (answer.get_string("pin").value_or("") != "4711") return fail(Errc::mfa_failed, "wrong pin");
    return FactorProof{std::string(*user_id), "", "sc"};
  };
  method.amr = "sc";
  method.refused_reason = "card refused";
  register_second_factor_method(std::move(method));
  ASSERT_TRUE(core_->store().write([&](StoreTxn& txn) -> Result<void> {
    auto state = SecondFactors::load(txn, alice().id);
    if (!state) return std::unexpected(state.error());
    state->set("test_card", Json::boolean(true));
    return SecondFactors::save(txn, alice().id, *state);
  }));
  const auto now = unix_now();
  auto first = sign_in_->with_password({"alice", "alice password"}, client_, now);
  ASSERT_TRUE(first);
  auto* due = std::get_if<SecondFactorDue>(&*first);
  ASSERT_NE(due, nullptr);
  EXPECT_EQ(due->methods, (std::vector<std::string>{"test-card"}));
  Json wrong = Json::object();
  wrong.set("pin", Json::string("0000"));
  EXPECT_EQ(outcome(sign_in_->with_second_factor(due->mfa_token, {.method = "test-card", .answer = wrong}, client_,
                                                  now)),
            "mfa_failed");
  Json right = Json::object();
  right.set("pin", Json::string("4711"));
  auto second = sign_in_->with_second_factor(due->mfa_token, {.method = "test-card", .answer = right}, client_, now);
  // Leaves the registry as the other tests expect it: never present, no answer.
  SecondFactorMethod idle;
  idle.name = "test-card";
  register_second_factor_method(std::move(idle));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(std::get<SignedIn>(*second).amr, "pwd sc");
  const auto audit = audit_text();
  EXPECT_NE(audit.find(R"("reason":"card refused")"), std::string::npos);
  EXPECT_NE(audit.find(R"("reason":"with second factor sc")"), std::string::npos);
}

TEST_F(SignInTest, AProviderIdentityCreatesThenReusesItsAccount) {
  const ExternalIdentity bob{.provider = "test", .subject = "42", .username_hint = "bob", .fullname = "Bob",
                             .email = "bob@example.org"};
  auto first = sign_in_->with_provider(bob, client_, unix_now());
  ASSERT_TRUE(first) << first.error().message;
  const auto& done = std::get<SignedIn>(*first);
  EXPECT_EQ(done.user.username, "bob");
  // Issue 41: a provider sign-in gives a device token too (the next one from
  // that browser is known; the caller carries it through the state).
  EXPECT_FALSE(done.device_token.empty()) << "provider sign-ins give a device token";
  ASSERT_TRUE(sign_in_->with_provider(bob, client_, unix_now()));
  const auto audit = audit_text();
  EXPECT_NE(audit.find(R"("event":"oauth_signin")"), std::string::npos);
  EXPECT_NE(audit.find(R"("reason":"test, account created")"), std::string::npos);
  EXPECT_TRUE(reports_.outcomes.empty()) << "only password sign-ins are counted";
}

TEST_F(SignInTest, AnUnverifiedAddressIsRefusedWhenRequired) {
  open({{"AUTHD_REQUIRE_VERIFIED_EMAIL", "true"}});
  auto refused = sign_in_->with_password({"alice", "alice password"}, client_, unix_now());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::email_not_verified);
  EXPECT_EQ(reports_.outcomes, std::vector<std::string>{"refused"});
  EXPECT_NE(audit_text().find(R"("event":"signin_refused")"), std::string::npos);
}

TEST_F(SignInTest, PasskeySignInIsOffByDefault) {
  EXPECT_EQ(outcome(sign_in_->with_method("webauthn", Json::object(), client_, unix_now())), "not_configured");
}

TEST_F(SignInTest, WithRefreshTokensTheSessionStartsAFamily) {
  open({{"AUTHD_REFRESH_TOKEN_TTL", "3600"}});
  const auto issued = sign_in_->issue(alice(), "", unix_now());
  ASSERT_TRUE(issued.refresh);
  EXPECT_FALSE(issued.refresh->refresh_token.empty());
  auto who = core_->check("Bearer " + issued.access_token, std::nullopt);
  ASSERT_TRUE(who);
  EXPECT_EQ(who->claims().extra.at(std::string(kRefreshFamilyClaim)), issued.refresh->family);
}

// The access token and its refresh family carry one time: the token's
// auth_time (and iat) is when the family started, which /token/refresh keeps
// as the auth_time of every later token. A second clock read for the token
// made them differ by a second now and then (the OpenID max_age check).
TEST_F(SignInTest, TheTokenIsIssuedAtTheTimeItsFamilyStarted) {
  open({{"AUTHD_REFRESH_TOKEN_TTL", "3600"}});
  const auto at = unix_now() - 7;  // not what the clock says
  const auto issued = sign_in_->issue(alice(), "", at);
  ASSERT_TRUE(issued.refresh);
  auto who = core_->check("Bearer " + issued.access_token, std::nullopt);
  ASSERT_TRUE(who) << who.error().message;
  EXPECT_EQ(who->claims().issued_at, at);
  EXPECT_EQ(who->claims().extra.at(std::string(kAuthTimeClaim)), std::to_string(at));
  auto next = core_->refresh().rotate(issued.refresh->refresh_token, at + 1);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_EQ(next->authenticated_at, at);
}

}  // namespace
}  // namespace authd
