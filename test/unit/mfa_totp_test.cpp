// TOTP (RFC 6238 Appendix B vectors), base32 (RFC 4648 §10), the factor
// store (enrol, confirm, replay, recovery codes, mfa_token) and the guard's
// mfa_required_roles policy with the amr claim.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "authd/guard.hpp"
#include "authd/mfa.hpp"
#include "authd/refresh.hpp"
#include "authd/totp.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

// RFC 6238 Appendix B: the seeds are ASCII "1234567890" repeated to the key size.
std::string seed(std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += "1234567890";
  return out.substr(0, bytes);
}

struct Vector {
  std::int64_t time;
  const char* sha1;
  const char* sha256;
  const char* sha512;
};

constexpr Vector kRfc6238[] = {
    {59, "94287082", "46119246", "90693936"},
    {1111111109, "07081804", "68084774", "25091201"},
    {1111111111, "14050471", "67062674", "99943326"},
    {1234567890, "89005924", "91819424", "93441116"},
    {2000000000, "69279037", "90698825", "38618901"},
    {20000000000, "65353130", "77737706", "47863826"},
};

TEST(Totp, Rfc6238AppendixBVectors) {
  for (const auto& v : kRfc6238) {
    const auto step = static_cast<std::uint64_t>(totp::step_of(v.time));
    EXPECT_EQ(totp::hotp(seed(20), step, 8, totp::Hash::sha1), v.sha1) << v.time;
    EXPECT_EQ(totp::hotp(seed(32), step, 8, totp::Hash::sha256), v.sha256) << v.time;
    EXPECT_EQ(totp::hotp(seed(64), step, 8, totp::Hash::sha512), v.sha512) << v.time;
  }
}

TEST(Totp, Rfc4226AppendixDHotpValues) {
  const char* expected[] = {"755224", "287082", "359152", "969429", "338314",
                            "254676", "287922", "162583", "399871", "520489"};
  for (std::uint64_t counter = 0; counter < 10; ++counter) EXPECT_EQ(totp::hotp(seed(20), counter), expected[counter]);
}

TEST(Totp, Base32Rfc4648Vectors) {
  EXPECT_EQ(totp::base32_encode(""), "");
  EXPECT_EQ(totp::base32_encode("f"), "MY");
  EXPECT_EQ(totp::base32_encode("fo"), "MZXQ");
  EXPECT_EQ(totp::base32_encode("foobar"), "MZXW6YTBOI");
  EXPECT_EQ(totp::base32_decode("MZXW6YTBOI======"), "foobar");
  EXPECT_EQ(totp::base32_decode("mzxw6ytboi"), "foobar");
  EXPECT_FALSE(totp::base32_decode("MZ1W").has_value());
  EXPECT_EQ(totp::base32_decode(totp::base32_encode(seed(20))), seed(20));
}

constexpr std::int64_t kNow = 1'700'000'010;

class SecondFactorsTest : public ::testing::Test {
 protected:
  std::string code_at(const TotpEnrolment& enrolment, std::int64_t when) const {
    return totp::hotp(*totp::base32_decode(enrolment.secret), static_cast<std::uint64_t>(totp::step_of(when)));
  }
  // Enrols and confirms TOTP for `user`; returns the enrolment and the recovery codes.
  std::pair<TotpEnrolment, std::vector<std::string>> enrol(const User& user) {
    auto enrolment = factors_.begin_totp(user);
    EXPECT_TRUE(enrolment.has_value());
    auto codes = factors_.confirm_totp(user, code_at(*enrolment, kNow - 60), kNow - 60);
    EXPECT_TRUE(codes.has_value()) << codes.error().message;
    return {*enrolment, codes.value_or(std::vector<std::string>{})};
  }

  test::TempStore db_;
  MfaSettings settings_;
  SecondFactors factors_{db_.store(), settings_};
};

TEST_F(SecondFactorsTest, EnrolmentIsInactiveUntilConfirmed) {
  const User alice = test::insert_user(db_.store(), "alice");
  auto enrolment = factors_.begin_totp(alice);
  ASSERT_TRUE(enrolment.has_value());
  EXPECT_EQ(enrolment->otpauth_uri.rfind("otpauth://totp/authd:alice?secret=" + enrolment->secret, 0), 0u);
  auto pending = factors_.status(alice);
  EXPECT_FALSE(pending->any());
  EXPECT_TRUE(pending->methods().empty());
  EXPECT_FALSE(pending->shown.get("totp").is_true());
  EXPECT_TRUE(pending->shown.get("totp_pending").is_true());
  EXPECT_EQ(outcome(factors_.confirm_totp(alice, "000000x", kNow)), "invalid_input");
  const auto wrong = code_at(*enrolment, kNow + 3600);
  EXPECT_EQ(outcome(factors_.confirm_totp(alice, wrong, kNow)), "invalid_input");
  auto codes = factors_.confirm_totp(alice, code_at(*enrolment, kNow), kNow);
  ASSERT_TRUE(codes.has_value());
  EXPECT_EQ(codes->size(), 10u);
  auto status = factors_.status(alice);
  EXPECT_TRUE(status->shown.get("totp").is_true());
  EXPECT_FALSE(status->shown.get("totp_pending").is_true());
  EXPECT_EQ(status->shown.get_integer("recovery_codes"), 10);
  EXPECT_EQ(status->methods(), (std::vector<std::string>{"totp", "recovery"}));
  EXPECT_EQ(outcome(factors_.begin_totp(alice)), "conflict");
}

TEST_F(SecondFactorsTest, CodesOfTheNeighbouringStepsWorkEachOnce) {
  const User alice = test::insert_user(db_.store(), "alice");
  const auto [enrolment, recovery] = enrol(alice);
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow - 30), kNow)), "ok");  // previous step
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow - 30), kNow)), "mfa_failed");  // replay
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow), kNow)), "ok");
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow), kNow)), "mfa_failed");  // replay
  // An older step than the last one used is refused, even inside the window.
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow - 30), kNow)), "mfa_failed");
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow + 30), kNow)), "ok");  // next step
  EXPECT_EQ(outcome(factors_.verify_code(alice, code_at(enrolment, kNow + 90), kNow)), "mfa_failed");  // too far
}

TEST_F(SecondFactorsTest, AnotherUsersCodeIsRefused) {
  const User alice = test::insert_user(db_.store(), "alice");
  const User bob = test::insert_user(db_.store(), "bob");
  enrol(alice);
  const auto [bob_enrolment, codes] = enrol(bob);
  const auto bob_code = code_at(bob_enrolment, kNow);
  // (1 in a million the two secrets agree on this step; then this check would be void.)
  EXPECT_EQ(outcome(factors_.verify_code(alice, bob_code, kNow)), "mfa_failed");
  EXPECT_EQ(outcome(factors_.verify_code(alice, codes[0], kNow)), "mfa_failed");
}

TEST_F(SecondFactorsTest, RecoveryCodesWorkOnceEach) {
  const User alice = test::insert_user(db_.store(), "alice");
  const auto [enrolment, codes] = enrol(alice);
  EXPECT_EQ(outcome(factors_.verify_code(alice, codes[3], kNow)), "ok");
  EXPECT_EQ(outcome(factors_.verify_code(alice, codes[3], kNow)), "mfa_failed");
  std::string upper = codes[4];
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(outcome(factors_.verify_code(alice, upper, kNow)), "ok");
  EXPECT_EQ(factors_.status(alice)->shown.get_integer("recovery_codes"), 8);
  EXPECT_EQ(outcome(factors_.verify_code(alice, "aaaaa-bbbbb", kNow)), "mfa_failed");
}

TEST_F(SecondFactorsTest, ResetAndRemovalLeaveNothingUsable) {
  const User alice = test::insert_user(db_.store(), "alice");
  const auto [enrolment, codes] = enrol(alice);
  ASSERT_TRUE(factors_.remove_totp(alice).has_value());
  EXPECT_FALSE(factors_.status(alice)->any());
  EXPECT_EQ(factors_.status(alice)->shown.get_integer("recovery_codes"), 0);
  EXPECT_TRUE(factors_.status(alice)->methods().empty());
  EXPECT_EQ(outcome(factors_.verify_code(alice, codes[0], kNow)), "mfa_failed");
  enrol(alice);
  ASSERT_TRUE(factors_.reset(alice.id).has_value());
  EXPECT_FALSE(factors_.status(alice)->any());
}

TEST_F(SecondFactorsTest, MfaTokenIsSingleUseAndExpires) {
  const User alice = test::insert_user(db_.store(), "alice");
  auto token = factors_.start_sign_in(alice, "pwd", kNow);
  ASSERT_TRUE(token.has_value());
  auto pending = factors_.pending(*token, kNow + 10);
  ASSERT_TRUE(pending.has_value());
  EXPECT_EQ(pending->user_id, alice.id);
  EXPECT_EQ(pending->first, "pwd");
  EXPECT_EQ(outcome(factors_.pending(*token, kNow + settings_.token_ttl.count())), "mfa_failed");  // expired
  EXPECT_EQ(outcome(factors_.finish_sign_in(*token)), "ok");
  EXPECT_EQ(outcome(factors_.finish_sign_in(*token)), "mfa_failed");
  EXPECT_EQ(outcome(factors_.pending(*token, kNow + 10)), "mfa_failed");
  EXPECT_EQ(outcome(factors_.pending("unknown", kNow)), "mfa_failed");
}

TEST_F(SecondFactorsTest, MfaTokenIsSpentAfterTooManyWrongCodes) {
  const User alice = test::insert_user(db_.store(), "alice");
  auto token = factors_.start_sign_in(alice, "pwd", kNow);
  for (int i = 0; i < kMfaTokenAttempts; ++i) {
    EXPECT_EQ(outcome(factors_.pending(*token, kNow)), "ok") << i;
    ASSERT_TRUE(factors_.failed_attempt(*token).has_value());
  }
  EXPECT_EQ(outcome(factors_.pending(*token, kNow)), "mfa_failed");
}

TEST(MfaSettings, RolesAndOriginsAreParsed) {
  MfaSettings s;
  s.required_roles_text = "admin, editor";
  ASSERT_TRUE(finish_mfa_settings(s).has_value());
  EXPECT_EQ(s.required_roles, (std::vector<Role>{Role::admin, Role::editor}));
  s.required_roles_text = "admin root";
  EXPECT_EQ(outcome(finish_mfa_settings(s)), "config");
  s.required_roles_text = "";
  s.rp_id = "localhost";
  EXPECT_EQ(outcome(finish_mfa_settings(s)), "config");  // no origin
  s.origins_text = "http://localhost:8080 https://localhost";
  ASSERT_TRUE(finish_mfa_settings(s).has_value());
  EXPECT_EQ(s.origins.size(), 2u);
}

TEST(MfaPolicy, GuardWantsASecondFactorForTheListedRoles) {
  test::TempStore db;
  auto tokens = TokenService::create(SigningKey(std::string(32, 'm')), TokenPolicy{});
  ASSERT_TRUE(tokens.has_value());
  Guard guard(*tokens, db.store());
  guard.require_second_factor({Role::admin});
  const User root = test::insert_user(db.store(), "root", Role::admin);
  const User plain = test::insert_user(db.store(), "plain", Role::user);
  const auto now = unix_now();
  auto bearer = [&](const User& u, std::string amr) {
    std::map<std::string, std::string, std::less<>> extra;
    if (!amr.empty()) extra.emplace(std::string(kAmrClaim), amr);
    return "Bearer " + tokens->issue(kAccessTokenType, u.id, u.username, now, extra);
  };
  EXPECT_EQ(outcome(guard.check(bearer(root, ""), std::nullopt, now)), "mfa_required");
  EXPECT_EQ(outcome(guard.check(bearer(root, "pwd"), std::nullopt, now)), "mfa_required");
  EXPECT_EQ(outcome(guard.check_for_enrolment(bearer(root, "pwd"), now)), "ok");
  auto with = guard.check(bearer(root, "pwd otp"), Capability::delete_, now);
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(with->claims().extra.at(std::string(kAmrClaim)), "pwd otp");  // the array came back
  EXPECT_EQ(outcome(guard.check(bearer(root, "hwk mfa"), std::nullopt, now)), "ok");  // passkey with UV
  EXPECT_EQ(outcome(guard.check(bearer(root, "hwk"), std::nullopt, now)), "mfa_required");  // without UV
  EXPECT_EQ(outcome(guard.check(bearer(root, "otp"), std::nullopt, now)), "mfa_required");
  EXPECT_EQ(outcome(guard.check(bearer(plain, ""), std::nullopt, now)), "ok");
}

TEST(MfaPolicy, AmrIsAJsonArrayInTheToken) {
  auto tokens = TokenService::create(SigningKey(std::string(32, 'm')), TokenPolicy{});
  ASSERT_TRUE(tokens.has_value());
  const auto token = tokens->issue(kAccessTokenType, "id", "u", unix_now(), {{"amr", "pwd otp"}});
  const auto payload = token.substr(token.find('.') + 1, token.rfind('.') - token.find('.') - 1);
  const auto json = Json::parse(*crypto::base64url_decode(payload));
  ASSERT_TRUE(json.has_value());
  EXPECT_EQ(json->get("amr").dump(), R"(["pwd","otp"])");
  EXPECT_TRUE(amr_has_second_factor("pwd otp"));
  EXPECT_FALSE(amr_has_second_factor("pwd"));
  EXPECT_FALSE(amr_has_second_factor("otpx"));
}

}  // namespace
}  // namespace authd

namespace authd {
namespace {

// A refresh family remembers how its sign-in authenticated, so that refreshed
// access tokens of a role in mfa_required_roles keep working.
TEST(MfaPolicy, RefreshedTokensKeepTheSecondFactor) {
  test::TempStore db;
  RefreshTokens refresh(db.store(), RefreshPolicy{std::chrono::seconds(600)});
  const User root = test::insert_user(db.store(), "root", Role::admin);
  const auto now = unix_now();
  auto with = refresh.start(root, now, "pwd otp");
  ASSERT_TRUE(with.has_value());
  auto next = refresh.rotate(with->refresh_token, now + 1);
  ASSERT_TRUE(next.has_value()) << next.error().message;
  EXPECT_EQ(next->amr, "pwd otp");
  next = refresh.rotate(next->refresh_token, now + 2);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->amr, "pwd otp");
  auto without = refresh.start(root, now);
  next = refresh.rotate(without->refresh_token, now + 1);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->amr, "");
}

}  // namespace
}  // namespace authd
