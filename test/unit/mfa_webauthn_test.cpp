// WebAuthn verification with ceremonies built here: an authenticator
// simulated with OpenSSL-generated keys (P-256 / Ed25519) makes the
// authenticatorData, attestation objects and assertion signatures; the
// checks of lib/mfa/webauthn.cpp and the ceremonies of lib/mfa/passkeys.cpp
// must accept them and refuse the hostile variants.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <memory>
#include <string>

#include "mfa/cbor.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/passkeys.hpp"
#include "authd/token.hpp"
#include "mfa/webauthn.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

constexpr std::string_view kRpId = "example.org";
constexpr std::string_view kOrigin = "https://example.org";

std::string digest(std::string_view data) {
  const auto d = crypto::sha256(data);
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

// A software authenticator with one key.
class Authenticator {
 public:
  explicit Authenticator(bool ed25519 = false) : ed25519_(ed25519) {
    key_.reset(ed25519 ? EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519") : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!key_) throw std::runtime_error("keygen failed");
    id_ = crypto::random_hex(16);
  }

  const std::string& id() const { return id_; }

  std::string cose_key() const {
    if (ed25519_) {
      std::string x(32, '\0');
      std::size_t length = x.size();
      EVP_PKEY_get_raw_public_key(key_.get(), reinterpret_cast<unsigned char*>(x.data()), &length);
      return cbor::encode(cbor::Value::of_map({{cbor::Value::of_int(1), cbor::Value::of_int(1)},
                                               {cbor::Value::of_int(3), cbor::Value::of_int(-8)},
                                               {cbor::Value::of_int(-1), cbor::Value::of_int(6)},
                                               {cbor::Value::of_int(-2), cbor::Value::of_bytes(x)}}));
    }
    std::string point(65, '\0');
    std::size_t length = 0;
    EVP_PKEY_get_octet_string_param(key_.get(), OSSL_PKEY_PARAM_PUB_KEY, reinterpret_cast<unsigned char*>(point.data()),
                                    point.size(), &length);
    return cbor::encode(cbor::Value::of_map({{cbor::Value::of_int(1), cbor::Value::of_int(2)},
                                             {cbor::Value::of_int(3), cbor::Value::of_int(-7)},
                                             {cbor::Value::of_int(-1), cbor::Value::of_int(1)},
                                             {cbor::Value::of_int(-2), cbor::Value::of_bytes(point.substr(1, 32))},
                                             {cbor::Value::of_int(-3), cbor::Value::of_bytes(point.substr(33, 32))}}));
  }

  std::string sign(std::string_view data) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    EVP_DigestSignInit(ctx.get(), nullptr, ed25519_ ? nullptr : EVP_sha256(), nullptr, key_.get());
    std::size_t length = 0;
    EVP_DigestSign(ctx.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(data.data()), data.size());
    std::string out(length, '\0');
    EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &length,
                   reinterpret_cast<const unsigned char*>(data.data()), data.size());
    out.resize(length);
    return out;
  }

  std::string auth_data(std::string_view rp_id, unsigned char flags, std::uint32_t count, bool attested) const {
    std::string out = digest(rp_id);
    out += static_cast<char>(flags | (attested ? webauthn::kAttestedData : 0));
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((count >> shift) & 0xff);
    if (attested) {
      out += std::string(16, '\0');  // AAGUID
      out += static_cast<char>(id_.size() >> 8);
      out += static_cast<char>(id_.size() & 0xff);
      out += id_;
      out += cose_key();
    }
    return out;
  }

 private:
  struct Free {
    void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
  };
  bool ed25519_;
  std::unique_ptr<EVP_PKEY, Free> key_;
  std::string id_;
};

std::string client_data(std::string_view type, std::string_view challenge, std::string_view origin = kOrigin) {
  Json c = Json::object();
  c.set("type", Json::string(type))
      .set("challenge", Json::string(crypto::base64url_encode(challenge)))
      .set("origin", Json::string(origin))
      .set("crossOrigin", Json::boolean(false));
  return c.dump();
}

std::string attestation(std::string_view fmt, const std::string& auth_data, cbor::Value statement) {
  return cbor::encode(cbor::Value::of_map({{cbor::Value::of_text("fmt"), cbor::Value::of_text(fmt)},
                                           {cbor::Value::of_text("attStmt"), std::move(statement)},
                                           {cbor::Value::of_text("authData"), cbor::Value::of_bytes(auth_data)}}));
}

cbor::Value packed_statement(const Authenticator& a, std::int64_t alg, const std::string& auth_data,
                             const std::string& client_json) {
  return cbor::Value::of_map({{cbor::Value::of_text("alg"), cbor::Value::of_int(alg)},
                              {cbor::Value::of_text("sig"), cbor::Value::of_bytes(a.sign(auth_data + digest(client_json)))}});
}

const webauthn::Policy kPolicy{std::string(kRpId), {std::string(kOrigin)}, false};
constexpr unsigned char kUp = webauthn::kUserPresent;
constexpr unsigned char kUpUv = webauthn::kUserPresent | webauthn::kUserVerified;

TEST(WebAuthn, CborRoundTrip) {
  const auto encoded = cbor::encode(cbor::Value::of_map({{cbor::Value::of_int(-7), cbor::Value::of_text("x")}}));
  EXPECT_EQ(crypto::to_hex(std::span(reinterpret_cast<const unsigned char*>(encoded.data()), encoded.size())), "a1266178");
  auto decoded = cbor::decode(encoded);
  ASSERT_TRUE(decoded.has_value());
  ASSERT_NE(decoded->find(-7), nullptr);
  EXPECT_EQ(decoded->find(-7)->data, "x");
  EXPECT_FALSE(cbor::decode("\xa1\x26").has_value());  // truncated
}

// A header may declare any length; libcbor would allocate it before reading.
TEST(WebAuthn, CborDeclaredLengthsAreBoundedByTheInput) {
  using namespace std::string_literals;
  EXPECT_FALSE(cbor::decode("\xbb\x00\x00\x00\x06\x0d\x3a\xd6\x40"s).has_value());  // map of 26 G entries
  EXPECT_FALSE(cbor::decode("\x9b\xff\xff\xff\xff\xff\xff\xff\xff"s).has_value());  // array of 2^64 - 1
  EXPECT_FALSE(cbor::decode("\x5a\x7f\xff\xff\xff\x00"s).has_value());                  // 2 GB byte string
  EXPECT_FALSE(cbor::decode("\x9f\x01\xff"s).has_value());                                 // indefinite array
  std::string deep(40, '\x81');
  deep += '\x01';
  EXPECT_FALSE(cbor::decode(deep).has_value());                                               // nested too deeply
  std::size_t used = 0;
  auto two = cbor::decode("\x82\x01\x02\xff"s, &used);                                      // trailing byte left alone
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(used, 3u);
  EXPECT_EQ(two->items.size(), 2u);
}

TEST(WebAuthn, RegistrationWithAttestationNone) {
  Authenticator a;
  const std::string challenge = "challenge-0123456789abcdef012345";
  const auto data = a.auth_data(kRpId, kUp, 0, true);
  const auto cdj = client_data("webauthn.create", challenge);
  auto reg = webauthn::verify_registration(kPolicy, challenge, cdj, attestation("none", data, cbor::Value::of_map({})));
  ASSERT_TRUE(reg.has_value()) << reg.error().message;
  EXPECT_EQ(reg->credential.id, a.id());
  EXPECT_EQ(reg->format, "none");
  EXPECT_FALSE(reg->user_verified);
}

TEST(WebAuthn, RegistrationWithPackedSelfAttestation) {
  for (const bool ed : {false, true}) {
    Authenticator a(ed);
    const std::string challenge = "packed-challenge";
    const auto data = a.auth_data(kRpId, kUpUv, 1, true);
    const auto cdj = client_data("webauthn.create", challenge);
    const std::int64_t alg = ed ? -8 : -7;
    auto reg = webauthn::verify_registration(kPolicy, challenge, cdj, attestation("packed", data, packed_statement(a, alg, data, cdj)));
    ASSERT_TRUE(reg.has_value()) << reg.error().message;
    EXPECT_TRUE(reg->user_verified);
    // Signed by another key, or over other client data: refused.
    Authenticator other(ed);
    EXPECT_EQ(outcome(webauthn::verify_registration(kPolicy, challenge, cdj,
                                                    attestation("packed", data, packed_statement(other, alg, data, cdj)))),
              "mfa_failed");
    const auto other_cdj = client_data("webauthn.create", "other");
    EXPECT_EQ(outcome(webauthn::verify_registration(kPolicy, challenge, cdj,
                                                    attestation("packed", data, packed_statement(a, alg, data, other_cdj)))),
              "mfa_failed");
  }
}

TEST(WebAuthn, RegistrationRefusals) {
  Authenticator a;
  const std::string challenge = "c";
  const auto good = a.auth_data(kRpId, kUp, 0, true);
  const auto none = cbor::Value::of_map({});
  auto refused = [&](std::string_view why, std::string_view cdj, const std::string& object,
                     const webauthn::Policy& policy = kPolicy) {
    EXPECT_EQ(outcome(webauthn::verify_registration(policy, challenge, cdj, object)), "mfa_failed") << why;
  };
  refused("wrong origin", client_data("webauthn.create", challenge, "https://evil.example"), attestation("none", good, none));
  refused("wrong type", client_data("webauthn.get", challenge), attestation("none", good, none));
  refused("other challenge", client_data("webauthn.create", "x"), attestation("none", good, none));
  const auto cdj = client_data("webauthn.create", challenge);
  refused("rpIdHash of another site", cdj, attestation("none", a.auth_data("evil.example", kUp, 0, true), none));
  refused("user not present", cdj, attestation("none", a.auth_data(kRpId, 0, 0, true), none));
  refused("no credential", cdj, attestation("none", a.auth_data(kRpId, kUp, 0, false), none));
  refused("unknown format", cdj, attestation("fido-u2f", good, none));
  webauthn::Policy strict = kPolicy;
  strict.require_user_verification = true;
  refused("user verification required", cdj, attestation("none", good, none), strict);
  EXPECT_EQ(outcome(webauthn::verify_registration(strict, challenge, cdj,
                                                  attestation("none", a.auth_data(kRpId, kUpUv, 0, true), none))),
            "ok");
  refused("garbage", cdj, "\xff\x00");
}

TEST(WebAuthn, AssertionAndItsRefusals) {
  for (const bool ed : {false, true}) {
    Authenticator a(ed);
    const webauthn::Credential stored{a.id(), a.cose_key(), 5};
    const std::string challenge = "assert-challenge";
    const auto cdj = client_data("webauthn.get", challenge);
    const auto data = a.auth_data(kRpId, kUp, 6, false);
    auto used = webauthn::verify_assertion(kPolicy, challenge, stored, cdj, data, a.sign(data + digest(cdj)));
    ASSERT_TRUE(used.has_value()) << used.error().message;
    EXPECT_EQ(used->sign_count, 6u);

    auto refused = [&](std::string_view why, std::string_view client, const std::string& auth, const std::string& sig) {
      EXPECT_EQ(outcome(webauthn::verify_assertion(kPolicy, challenge, stored, client, auth, sig)), "mfa_failed") << why;
    };
    const auto same = a.auth_data(kRpId, kUp, 5, false);
    refused("sign count not increased", cdj, same, a.sign(same + digest(cdj)));
    const auto lower = a.auth_data(kRpId, kUp, 4, false);
    refused("sign count lowered", cdj, lower, a.sign(lower + digest(cdj)));
    const auto evil_cdj = client_data("webauthn.get", challenge, "https://evil.example");
    refused("another origin", evil_cdj, data, a.sign(data + digest(evil_cdj)));
    const auto evil_rp = a.auth_data("evil.example", kUp, 7, false);
    refused("another rpId", cdj, evil_rp, a.sign(evil_rp + digest(cdj)));
    refused("signature over other data", cdj, data, a.sign(data + digest("x")));
    Authenticator other(ed);
    refused("another key", cdj, data, other.sign(data + digest(cdj)));
    const auto create_cdj = client_data("webauthn.create", challenge);
    refused("registration client data", create_cdj, data, a.sign(data + digest(create_cdj)));
  }
}

// The ceremonies on the store: challenges are single-use and bound to the
// user and ceremony; the sign count is remembered.
TEST(Passkeys, CeremoniesSpendTheirChallenges) {
  test::TempStore db;
  MfaSettings settings;
  settings.rp_id = kRpId;
  settings.origins = {std::string(kOrigin)};
  auto tokens = TokenService::create(SigningKey(std::string(32, 'k')), TokenPolicy{});
  ASSERT_TRUE(tokens.has_value());
  Passkeys passkeys(db.store(), settings, *tokens);
  SecondFactors factors(db.store(), settings);
  const User alice = test::insert_user(db.store(), "alice");
  const User bob = test::insert_user(db.store(), "bob");
  const auto now = unix_now();
  Authenticator a;

  auto options = passkeys.begin_registration(alice, now);
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->get("rp").get_string("id").value_or(""), kRpId);
  const auto challenge = *crypto::base64url_decode(options->get_string("challenge").value_or(""));
  const auto cdj = client_data("webauthn.create", challenge);
  Json credential = Json::object();
  Json response = Json::object();
  response.set("clientDataJSON", Json::string(crypto::base64url_encode(cdj)))
      .set("attestationObject",
           Json::string(crypto::base64url_encode(attestation("none", a.auth_data(kRpId, kUp, 1, true), cbor::Value::of_map({})))));
  credential.set("id", Json::string(crypto::base64url_encode(a.id()))).set("response", response);
  EXPECT_EQ(outcome(passkeys.finish_registration(bob, credential, "key", now)), "mfa_failed");  // alice's challenge
  // A refused attempt writes nothing (challenges are signed, not stored):
  // alice's own ceremony still works, and only once.
  auto registered = passkeys.finish_registration(alice, credential, "key", now);
  ASSERT_TRUE(registered.has_value()) << registered.error().message;
  EXPECT_EQ(registered->recovery_codes.size(), 10u);
  EXPECT_EQ(outcome(passkeys.finish_registration(alice, credential, "key", now)), "mfa_failed");  // reused challenge
  EXPECT_EQ(factors.status(alice)->shown.get("passkeys").size(), 1u);
  EXPECT_EQ(factors.status(alice)->methods(), (std::vector<std::string>{"webauthn", "recovery"}));

  auto assert_with = [&](const User& who, std::uint32_t count, bool reuse_previous = false) {
    static std::string last_cdj;
    auto request = passkeys.begin_authentication(who, now);
    if (!request) return std::string(to_string(request.error().code));
    const auto c = *crypto::base64url_decode(request->get_string("challenge").value_or(""));
    const auto client = reuse_previous ? last_cdj : client_data("webauthn.get", c);
    last_cdj = client;
    const auto data = a.auth_data(kRpId, kUp, count, false);
    Json r = Json::object();
    r.set("clientDataJSON", Json::string(crypto::base64url_encode(client)))
        .set("authenticatorData", Json::string(crypto::base64url_encode(data)))
        .set("signature", Json::string(crypto::base64url_encode(a.sign(data + digest(client)))));
    Json assertion = Json::object();
    assertion.set("id", Json::string(registered->id)).set("response", r);
    return outcome(passkeys.finish_authentication(assertion, who.id, now));
  };
  EXPECT_EQ(assert_with(alice, 2), "ok");
  EXPECT_EQ(assert_with(alice, 3, true), "mfa_failed");   // the previous (spent) challenge again
  EXPECT_EQ(assert_with(alice, 2), "mfa_failed");         // the stored count is 2 now
  EXPECT_EQ(assert_with(alice, 3), "ok");
  EXPECT_EQ(assert_with(bob, 4), "mfa_failed");           // bob has no passkey

  ASSERT_TRUE(factors.reset(alice.id).has_value());
  EXPECT_EQ(assert_with(alice, 5), "mfa_failed");
}

}  // namespace
}  // namespace authd
