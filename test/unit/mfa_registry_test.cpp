// Second-factor methods register by name (authd/second_factor_methods.hpp):
// the built-in ones in their order, and a program's own method taking part in
// the status (methods, GET /me/mfa's members, whether a sign-in needs a second
// step), in code and answer checks, in the entry's lifetime and in the amr
// and acr rules of tokens; re-registering replaces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "authd/mfa.hpp"
#include "authd/second_factor_methods.hpp"
#include "authd/token.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::int64_t kNow = 1'700'000'010;
constexpr std::string_view kName = "test-word";  // the program's method: a pass word, each usable once

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& method : second_factor_methods()) out.push_back(method->name);
  return out;
}

// State {"test_word": {"word", "used"}}; a primary method unless told otherwise.
SecondFactorMethod word_method(bool primary, int* asked) {
  SecondFactorMethod method;
  method.name = std::string(kName);
  method.primary = primary;
  method.present = [](const Json& state) { return state.has("test_word"); };
  method.usable = [](const Json& state) { return state.get("test_word").get_integer("used").value_or(1) == 0; };
  method.describe = [](const Json& state, Json& shown) { shown.set("test_word", Json::boolean(state.has("test_word"))); };
  method.verify_code = [asked](Json& state, std::string_view code, std::int64_t) -> Result<bool> {
    ++*asked;
    Json word = state.get("test_word");
    if (word.get_integer("used").value_or(1) != 0 || word.get_string("word").value_or("") != code) return false;
    word.set("used", Json::integer(1));
    return true;
  };
  method.amr = "tst";
  return method;
}

// Leaves the registry as the other tests expect it (they may share the
// process): a method that is never present stays registered, at the end.
void unregister_word() {
  SecondFactorMethod idle;  // never present, no describe, no code
  idle.name = std::string(kName);
  register_second_factor_method(std::move(idle));
}

class FactorRegistryTest : public ::testing::Test {
 protected:
  void TearDown() override { unregister_word(); }

  void give_word(const User& user, std::string_view word) {
    auto done = db_.store().write([&](StoreTxn& txn) -> Result<void> {
      auto state = SecondFactors::load(txn, user.id);
      if (!state) return std::unexpected(state.error());
      Json entry = Json::object();
      entry.set("word", Json::string(word)).set("used", Json::integer(0));
      state->set("test_word", std::move(entry));
      return SecondFactors::save(txn, user.id, *state);
    });
    ASSERT_TRUE(done.has_value()) << done.error().message;
  }
  bool has_entry(const User& user) {
    auto entry = read_value(db_.store(), [&](StoreTxn& txn) { return txn.get_entry(kMfaNamespace, user.id); });
    return entry && entry->has_value();
  }

  test::TempStore db_;
  MfaSettings settings_;
  SecondFactors factors_{db_.store(), settings_};
  int asked_ = 0;
};

TEST(FactorRegistry, TheBuiltInMethodsComeFirstInTheSignInsOrder) {
  const auto all = names();
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(all.begin(), all.begin() + 3),
            (std::vector<std::string>{"totp", "webauthn", "recovery"}));
  ASSERT_NE(find_second_factor_method("totp"), nullptr);
  EXPECT_TRUE(find_second_factor_method("totp")->primary);
  EXPECT_EQ(find_second_factor_method("totp")->amr, "otp");
  EXPECT_TRUE(find_second_factor_method("webauthn")->primary);
  EXPECT_FALSE(find_second_factor_method("webauthn")->verify_code);  // a ceremony, not a typed code
  EXPECT_FALSE(find_second_factor_method("recovery")->primary);
  EXPECT_EQ(find_second_factor_method("recovery")->amr, "otp");
  EXPECT_EQ(find_second_factor_method("nosuch"), nullptr);
}

TEST(FactorRegistry, TheAmrAndAcrRulesReadTheMethodsDeclarations) {
  const auto passkey = find_second_factor_method("webauthn");
  ASSERT_NE(passkey, nullptr);
  EXPECT_EQ(passkey->amr, "hwk");
  EXPECT_EQ(passkey->multi_factor_amr, "mfa");
  EXPECT_TRUE(passkey->verify_answer);  // a ceremony's answer, checked through the registry
  EXPECT_FALSE(find_second_factor_method("totp")->verify_answer);
  EXPECT_EQ(second_factor_acr("pwd"), "1");
  EXPECT_EQ(second_factor_acr("pwd otp"), "2");
  EXPECT_EQ(second_factor_acr("hwk mfa"), "2");
  EXPECT_EQ(second_factor_acr(""), "1");
  EXPECT_TRUE(amr_has_second_factor("fed otp"));
  EXPECT_TRUE(amr_has_second_factor("hwk mfa"));
  EXPECT_FALSE(amr_has_second_factor("hwk"));      // the key alone
  EXPECT_FALSE(amr_has_second_factor("pwd mfa"));  // no method's factor shown
}

TEST_F(FactorRegistryTest, NothingEnrolledShowsTheBuiltInMembers) {
  const User alice = test::insert_user(db_.store(), "alice");
  auto status = factors_.status(alice);
  ASSERT_TRUE(status.has_value());
  EXPECT_FALSE(status->any());
  EXPECT_TRUE(status->methods().empty());
  EXPECT_EQ(status->shown.dump(), R"({"totp":false,"totp_pending":false,"passkeys":[],"recovery_codes":0})");
}

TEST_F(FactorRegistryTest, AProgramsOwnMethodJoinsStatusAndCodeChecks) {
  register_second_factor_method(word_method(true, &asked_));
  EXPECT_EQ(names().back(), kName);
  const User alice = test::insert_user(db_.store(), "alice");
  give_word(alice, "open-sesame");
  auto status = factors_.status(alice);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->any());  // a primary method: a sign-in asks for the second step
  EXPECT_EQ(status->methods(), (std::vector<std::string>{std::string(kName)}));
  EXPECT_TRUE(status->shown.get("test_word").is_true());
  EXPECT_FALSE(status->shown.get("totp").is_true());  // the built-in members are still there

  EXPECT_EQ(outcome(factors_.verify_code(alice, "wrong", kNow)), "mfa_failed");
  EXPECT_EQ(asked_, 1);
  auto used = factors_.verify_code(alice, "open-sesame", kNow);
  ASSERT_TRUE(used.has_value()) << used.error().message;
  EXPECT_EQ(*used, "tst");
  EXPECT_EQ(outcome(factors_.verify_code(alice, "open-sesame", kNow)), "mfa_failed");  // its state was saved
  EXPECT_TRUE(factors_.status(alice)->methods().empty());
  EXPECT_TRUE(has_entry(alice));  // present though spent: a primary method keeps the entry
}

TEST_F(FactorRegistryTest, ReRegisteringANameReplacesTheMethodInPlace) {
  register_second_factor_method(word_method(true, &asked_));
  const auto before = names();
  const User alice = test::insert_user(db_.store(), "alice");
  give_word(alice, "open-sesame");
  int asked_again = 0;
  auto replaced = word_method(true, &asked_again);
  replaced.amr = "tst2";
  register_second_factor_method(std::move(replaced));
  EXPECT_EQ(names(), before);
  EXPECT_EQ(find_second_factor_method(kName)->amr, "tst2");
  EXPECT_EQ(outcome(factors_.verify_code(alice, "open-sesame", kNow)), "ok");
  EXPECT_EQ(asked_, 0);
  EXPECT_EQ(asked_again, 1);

  unregister_word();  // no longer takes codes, never present
  EXPECT_EQ(outcome(factors_.verify_code(alice, "open-sesame", kNow)), "mfa_failed");
  EXPECT_FALSE(factors_.status(alice)->shown.has("test_word"));
}

TEST_F(FactorRegistryTest, AProgramsOwnMethodDeclaresItsAmrAcrAndAnswerCheck) {
  EXPECT_FALSE(amr_has_second_factor("pwd tst"));
  auto method = word_method(true, &asked_);
  method.acr = "3";
  method.verify_answer = [this](const FactorServices&, const Json& answer, std::optional<std::string_view> user_id,
                                std::int64_t) -> Result<FactorProof> {
    ++asked_;
    if (!user_id) return fail(Errc::not_configured, "a second step only");
    if (answer.get_string("word").value_or("") != "open-sesame") return fail(Errc::mfa_failed, "wrong word");
    return FactorProof{std::string(*user_id), "", "tst"};
  };
  register_second_factor_method(std::move(method));
  EXPECT_TRUE(amr_has_second_factor("pwd tst"));
  EXPECT_EQ(second_factor_acr("pwd tst"), "3");
  EXPECT_EQ(second_factor_acr("pwd otp tst"), "3");  // the highest shown

  auto tokens = TokenService::create(SigningKey(std::string(32, 'k')), TokenPolicy{});
  ASSERT_TRUE(tokens.has_value());
  Json answer = Json::object();
  answer.set("word", Json::string("open-sesame"));
  auto proved = factors_.verify_answer(kName, answer, "user-1", *tokens, kNow);
  ASSERT_TRUE(proved.has_value()) << proved.error().message;
  EXPECT_EQ(proved->amr, "tst");
  EXPECT_EQ(proved->user_id, "user-1");
  EXPECT_EQ(outcome(factors_.verify_answer(kName, Json::object(), "user-1", *tokens, kNow)), "mfa_failed");
  EXPECT_EQ(outcome(factors_.verify_answer(kName, answer, std::nullopt, *tokens, kNow)), "not_configured");
  EXPECT_EQ(asked_, 3);
  EXPECT_EQ(outcome(factors_.verify_answer("totp", answer, "user-1", *tokens, kNow)), "not_configured");  // codes only

  unregister_word();
  EXPECT_FALSE(amr_has_second_factor("pwd tst"));
  EXPECT_EQ(second_factor_acr("pwd tst"), "1");
}

TEST_F(FactorRegistryTest, ASecondaryMethodNeitherAsksASecondStepNorKeepsTheEntry) {
  register_second_factor_method(word_method(false, &asked_));
  const User alice = test::insert_user(db_.store(), "alice");
  give_word(alice, "open-sesame");
  EXPECT_FALSE(has_entry(alice));  // saved without a primary method: nothing is kept
  EXPECT_FALSE(factors_.status(alice)->any());
}

}  // namespace
}  // namespace authd
