// Passkey challenges cost an anonymous caller no write (issue 23 class 9):
// POST /signin/passkey/begin hands out a signed, expiring challenge bound
// to its ceremony, and stores nothing; a challenge of one ceremony or user
// does not pass for another; a forged or expired one is refused.
#include <gtest/gtest.h>

#include <atomic>

#include "authd/crypto.hpp"
#include "authd/passkeys.hpp"
#include "authd/token.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

// Counts the write transactions that reach the real store.
class CountingStore : public Store {
 public:
  explicit CountingStore(Store& inner) : inner_(inner) {}
  Result<void> read(const Work& work) override { return inner_.read(work); }
  Result<void> write(const Work& work) override {
    ++writes;
    return inner_.write(work);
  }
  Result<std::shared_ptr<const User>> find_user_shared(std::string_view username) override {
    return inner_.find_user_shared(username);
  }
  Result<StoreStats> stats() override { return inner_.stats(); }
  std::string_view name() const noexcept override { return inner_.name(); }
  std::atomic<int> writes{0};

 private:
  Store& inner_;
};

MfaSettings passkey_settings() {
  MfaSettings s;
  s.rp_id = "localhost";
  s.origins = {"http://localhost:8080"};
  s.passkey_signin = true;
  s.challenge_ttl = std::chrono::seconds(60);
  return s;
}

TokenService tokens(char fill = 'k') {
  auto service = TokenService::create(SigningKey(std::string(32, fill)), TokenPolicy{});
  if (!service) throw std::runtime_error(service.error().message);
  return std::move(*service);
}

// A credential whose clientDataJSON names `challenge` (the rest is never reached).
Json assertion_for(std::string_view challenge) {
  Json client = Json::object();
  client.set("type", Json::string("webauthn.get"))
      .set("challenge", Json::string(challenge))
      .set("origin", Json::string("http://localhost:8080"));
  Json response = Json::object();
  response.set("clientDataJSON", Json::string(crypto::base64url_encode(client.dump())))
      .set("authenticatorData", Json::string(crypto::base64url_encode(std::string(37, '\0'))))
      .set("signature", Json::string(crypto::base64url_encode(std::string("sig"))));
  Json credential = Json::object();
  credential.set("id", Json::string("AAAA")).set("response", std::move(response));
  return credential;
}

TEST(PasskeyChallenge, AnonymousBeginWritesNothing) {
  test::TempStore temp;
  CountingStore store(temp.store());
  const auto settings = passkey_settings();
  const auto service = tokens();
  Passkeys passkeys(store, settings, service);
  std::string previous;
  for (int i = 0; i < 200; ++i) {
    auto options = passkeys.begin_authentication(std::nullopt, unix_now());
    ASSERT_TRUE(options.has_value());
    const std::string challenge(options->get_string("challenge").value_or(""));
    EXPECT_NE(challenge, previous);
    EXPECT_EQ(options->get_string("userVerification").value_or(""), "required");
    previous = challenge;
  }
  EXPECT_EQ(store.writes.load(), 0);
  auto entries = read_value(temp.store(), [](StoreTxn& txn) { return txn.list_entries(kChallengeNamespace); });
  ASSERT_TRUE(entries.has_value());
  EXPECT_TRUE(entries->empty());
}

TEST(PasskeyChallenge, AForgedExpiredOrMisusedChallengeIsRefusedWithoutAWrite) {
  test::TempStore temp;
  CountingStore store(temp.store());
  const auto settings = passkey_settings();
  const auto service = tokens();
  const auto other_key = tokens('z');
  Passkeys passkeys(store, settings, service);
  Passkeys forger(store, settings, other_key);
  const auto now = unix_now();
  const User alice = test::insert_user(temp.store(), "alice");
  store.writes = 0;

  auto forged = forger.begin_authentication(std::nullopt, now);
  ASSERT_TRUE(forged.has_value());
  auto refused = passkeys.finish_authentication(assertion_for(forged->get_string("challenge").value_or("")), std::nullopt, now);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, Errc::mfa_failed);

  auto old = passkeys.begin_authentication(std::nullopt, now - 120);  // expired after 60 s
  refused = passkeys.finish_authentication(assertion_for(old->get_string("challenge").value_or("")), std::nullopt, now);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, Errc::mfa_failed);

  // A password-less sign-in's challenge is no second factor's for alice (and the reverse).
  auto anonymous = passkeys.begin_authentication(std::nullopt, now);
  refused = passkeys.finish_authentication(assertion_for(anonymous->get_string("challenge").value_or("")), alice.id, now);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("another ceremony"), std::string::npos) << refused.error().message;

  auto random = crypto::random_token(32);  // what the store-backed challenges looked like
  refused = passkeys.finish_authentication(assertion_for(random), std::nullopt, now);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, Errc::mfa_failed);
  EXPECT_EQ(store.writes.load(), 0);
}

}  // namespace
}  // namespace authd
