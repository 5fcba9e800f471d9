// Third-party sign-in pieces: PKCE, the state cookie, JWKS parsing, ID-token
// verification, identity extraction, provider settings, the authorization URL,
// and the account linking of Accounts::sign_in_external.
//
// Test keys are made here with OpenSSL (linked into this test only): RSA
// 2048/1024 and EC P-256 key pairs, whose public halves are turned into JWKs
// and whose private halves sign RS256 / ES256 ID tokens.
#include "authd/oauth.hpp"

#include <gtest/gtest.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "authd/core.hpp"
#include "authd/crypto.hpp"
#include "authd/http_client.hpp"
#include "authd/json.hpp"
#include "authd/store.hpp"
#include "authd/accounts.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kIssuer = "https://idp.example.test";
constexpr std::string_view kClientId = "authd-client";
constexpr std::string_view kNonce = "n-0S6_WzA2Mj";

// ---- test keys ----------------------------------------------------------------

struct PkeyFree {
  void operator()(EVP_PKEY* p) const noexcept { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::string bn_param(const EVP_PKEY* pkey, const char* name, int pad = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) throw std::runtime_error(std::string("no key param ") + name);
  const int size = pad > 0 ? pad : BN_num_bytes(bn);
  std::string out(static_cast<std::size_t>(size), '\0');
  const int written = pad > 0 ? BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), pad)
                              : BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
  BN_free(bn);
  if (written != size) throw std::runtime_error("BN export failed");
  return out;
}

class TestKey {
 public:
  static TestKey rsa(unsigned bits) {
    return TestKey(PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits))), "RS256");
  }
  static TestKey ec() {
    return TestKey(PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")), "ES256");
  }

  const std::string& alg() const { return alg_; }

  // The public JWK; `extra` members (e.g. R"("use":"sig")") are appended.
  std::string jwk(std::string_view kid, std::string_view extra = "") const {
    std::string out = "{";
    if (alg_ == "RS256") {
      out += R"("kty":"RSA","n":")" + crypto::base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_N)) +
             R"(","e":")" + crypto::base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_E)) + "\"";
    } else {
      out += R"("kty":"EC","crv":"P-256","x":")" +
             crypto::base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_X, 32)) + R"(","y":")" +
             crypto::base64url_encode(bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, 32)) + "\"";
    }
    if (!kid.empty()) out += R"(,"kid":")" + std::string(kid) + "\"";
    if (!extra.empty()) out += "," + std::string(extra);
    return out + "}";
  }

  std::string modulus() const { return bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_N); }

  // A JWS signature over `input` (ES256: raw r||s, 64 bytes).
  std::string sign(std::string_view input) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    size_t size = 0;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, pkey_.get()) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
      throw std::runtime_error("sign init failed");
    }
    std::string sig(size, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &size,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
      throw std::runtime_error("sign failed");
    }
    sig.resize(size);
    if (alg_ == "RS256") return sig;
    const auto* der = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* ecdsa = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(sig.size()));
    if (!ecdsa) throw std::runtime_error("bad DER signature");
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(ecdsa);
    return raw;
  }

 private:
  TestKey(PkeyPtr pkey, std::string alg) : pkey_(std::move(pkey)), alg_(std::move(alg)) {
    if (!pkey_) throw std::runtime_error("key generation failed");
  }
  std::shared_ptr<EVP_PKEY> pkey_;
  std::string alg_;
};

// Generated once: RSA key generation takes a while.
const TestKey& rsa_key() {
  static const TestKey key = TestKey::rsa(2048);
  return key;
}
const TestKey& other_rsa_key() {
  static const TestKey key = TestKey::rsa(2048);
  return key;
}
const TestKey& small_rsa_key() {
  static const TestKey key = TestKey::rsa(1024);
  return key;
}
const TestKey& ec_key() {
  static const TestKey key = TestKey::ec();
  return key;
}

std::string b64u(std::string_view s) { return crypto::base64url_encode(s); }

// header.payload.signature with `key` over the first two parts.
std::string signed_jwt(const TestKey& key, std::string_view header, std::string_view payload) {
  const std::string input = b64u(header) + "." + b64u(payload);
  return input + "." + b64u(key.sign(input));
}

std::string header_for(const TestKey& key, std::string_view kid) {
  return R"({"alg":")" + key.alg() + R"(","typ":"JWT","kid":")" + std::string(kid) + R"("})";
}

// ID-token claims that pass every check at kNow; `overrides` replace members
// (raw JSON values), `drop` removes them.
std::string claims(std::map<std::string, std::string> overrides = {}, std::set<std::string> drop = {}) {
  std::map<std::string, std::string> members{
      {"iss", "\"" + std::string(kIssuer) + "\""},
      {"aud", "\"" + std::string(kClientId) + "\""},
      {"sub", "\"user-123\""},
      {"iat", std::to_string(kNow - 10)},
      {"exp", std::to_string(kNow + 300)},
      {"nonce", "\"" + std::string(kNonce) + "\""},
      {"preferred_username", "\"jdoe\""},
      {"email", "\"jdoe@example.test\""},
  };
  for (auto& [k, v] : overrides) members[k] = v;
  std::string out = "{";
  for (const auto& [k, v] : members) {
    if (drop.contains(k)) continue;
    if (out.size() > 1) out += ",";
    out += "\"" + k + "\":" + v;
  }
  return out + "}";
}

IdTokenChecks checks() { return IdTokenChecks{std::string(kIssuer), std::string(kClientId), std::string(kNonce), kNow, 60s}; }

Jwks jwks_of(const std::string& keys_json) {
  auto parsed = Jwks::parse(R"({"keys":[)" + keys_json + "]}");
  if (!parsed) throw std::runtime_error("Jwks::parse: " + parsed.error().message);
  return std::move(*parsed);
}

const Jwks& provider_keys() {
  static const Jwks keys = jwks_of(rsa_key().jwk("rsa-1") + "," + ec_key().jwk("ec-1"));
  return keys;
}

// ---- PKCE ---------------------------------------------------------------------

TEST(Pkce, Rfc7636AppendixBVector) {
  EXPECT_EQ(Pkce::challenge_for("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

TEST(Pkce, GeneratesA43CharacterVerifierAndItsChallenge) {
  const auto pkce = Pkce::generate();
  EXPECT_EQ(pkce.verifier.size(), 43u);
  EXPECT_EQ(pkce.verifier.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
            std::string::npos);
  EXPECT_EQ(pkce.challenge, Pkce::challenge_for(pkce.verifier));
  EXPECT_EQ(pkce.challenge.size(), 43u);
}

TEST(Pkce, EveryVerifierIsFresh) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) seen.insert(Pkce::generate().verifier);
  EXPECT_EQ(seen.size(), 50u);
}

// ---- state cookie -------------------------------------------------------------

TokenService make_tokens(std::string key = "0123456789abcdef0123456789ABCDEF") {
  auto service = TokenService::create(SigningKey(std::move(key)), TokenPolicy{});
  if (!service) throw std::runtime_error(service.error().message);
  return std::move(*service);
}

const OAuthState kState{"github", "state-abc", "verifier-0123456789012345678901234567890123", "nonce-xyz"};

TEST(OAuthState, SealAndOpenRoundTrip) {
  const auto tokens = make_tokens();
  const auto sealed = seal_oauth_state(tokens, kState, kNow, 600s);
  auto opened = open_oauth_state(tokens, sealed, kNow + 599);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  EXPECT_EQ(opened->provider, "github");
  EXPECT_EQ(opened->state, "state-abc");
  EXPECT_EQ(opened->verifier, kState.verifier);
  EXPECT_EQ(opened->nonce, "nonce-xyz");
}

TEST(OAuthState, ExpiredStateIsRefused) {
  const auto tokens = make_tokens();
  const auto sealed = seal_oauth_state(tokens, kState, kNow, 600s);
  auto opened = open_oauth_state(tokens, sealed, kNow + 601);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code, Errc::provider_refused);
}

TEST(OAuthState, MissingTamperedOrForeignCookieIsRefused) {
  const auto tokens = make_tokens();
  const auto sealed = seal_oauth_state(tokens, kState, kNow, 600s);
  EXPECT_EQ(outcome(open_oauth_state(tokens, "", kNow)), "provider_refused");
  EXPECT_EQ(outcome(open_oauth_state(tokens, "garbage", kNow)), "provider_refused");
  std::string tampered = sealed;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(outcome(open_oauth_state(tokens, tampered, kNow)), "provider_refused");
  const auto other = make_tokens("fedcba9876543210FEDCBA9876543210");
  EXPECT_EQ(outcome(open_oauth_state(other, sealed, kNow)), "provider_refused");
}

TEST(OAuthState, AnAccessTokenIsNotAState) {
  const auto tokens = make_tokens();
  const auto access = tokens.issue(kAccessTokenType, "0123456789abcdef01234567", "alice", kNow,
                                   {{"provider", "github"}, {"state", "s"}, {"verifier", "v"}, {"nonce", "n"}});
  auto opened = open_oauth_state(tokens, access, kNow);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code, Errc::provider_refused);
}

TEST(OAuthState, AStateIsNotAnAccessToken) {
  const auto tokens = make_tokens();
  const auto sealed = seal_oauth_state(tokens, kState, kNow, 600s);
  auto verified = tokens.verify(sealed, kAccessTokenType, kNow);
  ASSERT_FALSE(verified.has_value());
  EXPECT_EQ(verified.error().code, Errc::invalid_token);
}

TEST(OAuthState, AStateTokenOfAnotherSubjectOrIncompleteIsRefused) {
  const auto tokens = make_tokens();
  const auto other_subject = tokens.issue(kOAuthStateTokenType, "0123456789abcdef01234567", "", kNow,
                                          {{"provider", "p"}, {"state", "s"}, {"verifier", "v"}, {"nonce", "n"}}, 600s);
  EXPECT_EQ(outcome(open_oauth_state(tokens, other_subject, kNow)), "provider_refused");
  OAuthState incomplete = kState;
  incomplete.verifier.clear();
  EXPECT_EQ(outcome(open_oauth_state(tokens, seal_oauth_state(tokens, incomplete, kNow, 600s), kNow)), "provider_refused");
  incomplete = kState;
  incomplete.provider.clear();
  EXPECT_EQ(outcome(open_oauth_state(tokens, seal_oauth_state(tokens, incomplete, kNow, 600s), kNow)), "provider_refused");
}

// ---- JWKS -------------------------------------------------------------------------

TEST(Jwks, ParsesRsaAndEcKeys) {
  auto jwks = Jwks::parse(R"({"keys":[)" + rsa_key().jwk("r1", R"("use":"sig","alg":"RS256")") + "," +
                          ec_key().jwk("e1", R"("alg":"ES256")") + "]}");
  ASSERT_TRUE(jwks.has_value()) << jwks.error().message;
  EXPECT_EQ(jwks->size(), 2u);
  ASSERT_NE(jwks->find("r1", "RS256"), nullptr);
  EXPECT_EQ(jwks->find("r1", "RS256")->algorithm(), "RS256");
  ASSERT_NE(jwks->find("e1", "ES256"), nullptr);
  EXPECT_EQ(jwks->find("e1", "ES256")->algorithm(), "ES256");
  EXPECT_EQ(jwks->find("r1", "ES256"), nullptr) << "a key is only found for its own algorithm";
  EXPECT_EQ(jwks->find("e1", "RS256"), nullptr);
  EXPECT_EQ(jwks->find("nope", "RS256"), nullptr);
}

TEST(Jwks, SkipsEncryptionKeysAlgorithmMismatchesAndOtherKinds) {
  auto jwks = Jwks::parse(R"({"keys":[)" +
                          rsa_key().jwk("enc", R"("use":"enc")") + "," +
                          rsa_key().jwk("rs512", R"("alg":"RS512")") + "," +
                          ec_key().jwk("ec-as-rs", R"("alg":"RS256")") + "," +
                          R"({"kty":"oct","kid":"hmac","k":"c2VjcmV0"},)" +
                          R"({"kty":"EC","crv":"P-384","kid":"p384","x":"AAAA","y":"AAAA"},)" +
                          R"({"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},)" +
                          rsa_key().jwk("good") + "]}");
  ASSERT_TRUE(jwks.has_value()) << jwks.error().message;
  EXPECT_EQ(jwks->size(), 1u);
  EXPECT_NE(jwks->find("good", "RS256"), nullptr);
  EXPECT_EQ(jwks->find("enc", "RS256"), nullptr);
  EXPECT_EQ(jwks->find("rs512", "RS256"), nullptr);
  EXPECT_EQ(jwks->find("ec-as-rs", "ES256"), nullptr);
}

TEST(Jwks, RsaKeysUnder2048BitsAreRefused) {
  auto jwks = Jwks::parse(R"({"keys":[)" + small_rsa_key().jwk("small") + "]}");
  ASSERT_TRUE(jwks.has_value()) << jwks.error().message;
  EXPECT_EQ(jwks->size(), 0u);
  EXPECT_EQ(jwks->find("small", "RS256"), nullptr);
}

TEST(Jwks, MalformedKeyMaterialIsSkipped) {
  auto jwks = Jwks::parse(R"({"keys":[{"kty":"RSA","kid":"bad","n":"!!!","e":"AQAB"},)"
                          R"({"kty":"EC","crv":"P-256","kid":"short","x":"AAAA","y":"AAAA"},)"
                          R"({"kty":"RSA","kid":"none"}]})");
  ASSERT_TRUE(jwks.has_value()) << jwks.error().message;
  EXPECT_EQ(jwks->size(), 0u);
}

TEST(Jwks, NotAJwkSetIsBadGateway) {
  for (std::string_view text : {"", "[]", "{}", R"({"keys":{}})", "not json", R"({"keys":"x"})"}) {
    auto jwks = Jwks::parse(text);
    ASSERT_FALSE(jwks.has_value()) << text;
    EXPECT_EQ(jwks.error().code, Errc::upstream_failed) << text;
  }
}

TEST(Jwks, AnEmptyKidFindsTheOnlyKeyOfThatAlgorithm) {
  const auto one = jwks_of(rsa_key().jwk(""));
  EXPECT_NE(one.find("", "RS256"), nullptr);
  const auto two = jwks_of(rsa_key().jwk("a") + "," + other_rsa_key().jwk("b"));
  EXPECT_EQ(two.find("", "RS256"), nullptr) << "ambiguous without a kid";
  EXPECT_NE(two.find("b", "RS256"), nullptr);
}

// ---- ID tokens ----------------------------------------------------------------------

Result<Json> verify_claims(const std::string& payload, IdTokenChecks c = checks()) {
  return verify_id_token(signed_jwt(rsa_key(), header_for(rsa_key(), "rsa-1"), payload), provider_keys(), c);
}

std::string reason(const Result<Json>& r) { return r ? std::string("ok") : r.error().message; }

TEST(IdToken, GoodRs256TokenPasses) {
  auto verified = verify_claims(claims());
  ASSERT_TRUE(verified.has_value()) << verified.error().message;
  EXPECT_EQ(verified->get_string("sub"), "user-123");
  EXPECT_EQ(verified->get_string("preferred_username"), "jdoe");
}

TEST(IdToken, GoodEs256TokenPasses) {
  const auto token = signed_jwt(ec_key(), header_for(ec_key(), "ec-1"), claims());
  auto verified = verify_id_token(token, provider_keys(), checks());
  ASSERT_TRUE(verified.has_value()) << verified.error().message;
  EXPECT_EQ(verified->get_string("sub"), "user-123");
}

TEST(IdToken, AudienceArrayWithAzpPasses) {
  auto verified = verify_claims(claims({{"aud", R"(["other","authd-client"])"}, {"azp", R"("authd-client")"}}));
  EXPECT_TRUE(verified.has_value()) << reason(verified);
  verified = verify_claims(claims({{"aud", R"(["authd-client"])"}}));
  EXPECT_TRUE(verified.has_value()) << reason(verified);
}

TEST(IdToken, AlgNoneIsRefused) {
  const std::string token = b64u(R"({"alg":"none","kid":"rsa-1"})") + "." + b64u(claims()) + ".";
  auto verified = verify_id_token(token, provider_keys(), checks());
  ASSERT_FALSE(verified.has_value());
  EXPECT_EQ(verified.error().code, Errc::upstream_failed);
  const std::string no_sig = b64u(R"({"alg":"none"})") + "." + b64u(claims());
  EXPECT_FALSE(verify_id_token(no_sig, provider_keys(), checks()).has_value());
}

TEST(IdToken, Hs256KeyedWithThePublicKeyIsRefused) {
  // The classic confusion: an HMAC whose key is the provider's public RSA key.
  const std::string modulus = rsa_key().modulus();
  for (const std::string& key : {modulus, rsa_key().jwk("rsa-1")}) {
    const std::string input = b64u(R"({"alg":"HS256","kid":"rsa-1"})") + "." + b64u(claims());
    const auto mac = crypto::hmac_sha256(
        std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(key.data()), key.size()), input);
    const std::string token = input + "." + crypto::base64url_encode(std::span<const unsigned char>(mac));
    auto verified = verify_id_token(token, provider_keys(), checks());
    ASSERT_FALSE(verified.has_value());
    EXPECT_EQ(verified.error().code, Errc::upstream_failed);
  }
}

TEST(IdToken, OtherAlgorithmsAreRefused) {
  for (std::string_view alg : {"RS512", "PS256", "ES384", "EdDSA", "rs256", ""}) {
    const std::string header = R"({"alg":")" + std::string(alg) + R"(","kid":"rsa-1"})";
    auto verified = verify_id_token(signed_jwt(rsa_key(), header, claims()), provider_keys(), checks());
    EXPECT_FALSE(verified.has_value()) << alg;
  }
}

TEST(IdToken, BadSignatureIsRefused) {
  auto token = signed_jwt(rsa_key(), header_for(rsa_key(), "rsa-1"), claims());
  token[token.size() - 10] = token[token.size() - 10] == 'A' ? 'B' : 'A';
  auto verified = verify_id_token(token, provider_keys(), checks());
  ASSERT_FALSE(verified.has_value());
  EXPECT_EQ(verified.error().code, Errc::upstream_failed);
  EXPECT_NE(verified.error().message.find("signature"), std::string::npos) << verified.error().message;

  // Signed by another key that claims the provider's kid.
  const auto forged = signed_jwt(other_rsa_key(), header_for(rsa_key(), "rsa-1"), claims());
  EXPECT_EQ(outcome(verify_id_token(forged, provider_keys(), checks())), "upstream_failed");

  // A valid signature moved onto other claims.
  const auto good = signed_jwt(rsa_key(), header_for(rsa_key(), "rsa-1"), claims());
  const auto first = good.find('.'), second = good.rfind('.');
  const auto swapped = good.substr(0, first + 1) + b64u(claims({{"sub", R"("admin")"}})) + good.substr(second);
  EXPECT_EQ(outcome(verify_id_token(swapped, provider_keys(), checks())), "upstream_failed");

  // No signature at all.
  EXPECT_EQ(outcome(verify_id_token(good.substr(0, second) + ".", provider_keys(), checks())), "upstream_failed");

  // An ES256 signature in DER form (not the JWS r||s form) is refused.
  const std::string input = b64u(header_for(ec_key(), "ec-1")) + "." + b64u(claims());
  const std::string raw = ec_key().sign(input);
  auto der_of = [](std::string_view rs) {
    auto integer = [](std::string_view half) {
      std::size_t i = 0;
      while (i + 1 < half.size() && half[i] == '\0') ++i;
      std::string v(half.substr(i));
      if (static_cast<unsigned char>(v[0]) & 0x80) v.insert(v.begin(), '\0');
      return std::string{'\x02', static_cast<char>(v.size())} + v;
    };
    const std::string body = integer(rs.substr(0, 32)) + integer(rs.substr(32));
    return std::string{'\x30', static_cast<char>(body.size())} + body;
  };
  EXPECT_EQ(outcome(verify_id_token(input + "." + b64u(raw), provider_keys(), checks())), "ok");
  EXPECT_EQ(outcome(verify_id_token(input + "." + b64u(der_of(raw)), provider_keys(), checks())), "upstream_failed");
}

TEST(IdToken, MalformedTokensAreRefused) {
  for (std::string_view token : {"", "a", "a.b", "a.b.c.d", "..", "!!.!!.!!"}) {
    EXPECT_EQ(outcome(verify_id_token(token, provider_keys(), checks())), "upstream_failed") << token;
  }
  const auto crit = signed_jwt(rsa_key(), R"({"alg":"RS256","kid":"rsa-1","crit":["exp"]})", claims());
  EXPECT_EQ(outcome(verify_id_token(crit, provider_keys(), checks())), "upstream_failed");
  const auto not_object = signed_jwt(rsa_key(), header_for(rsa_key(), "rsa-1"), "[1,2]");
  EXPECT_EQ(outcome(verify_id_token(not_object, provider_keys(), checks())), "upstream_failed");
}

TEST(IdToken, WrongIssuerIsRefused) {
  EXPECT_EQ(outcome(verify_claims(claims({{"iss", R"("https://evil.example.test")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"iss", R"("https://idp.example.test/other")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"iss", R"("https://idp.example.test//")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({}, {"iss"}))), "upstream_failed");
}

TEST(IdToken, OneTrailingSlashOnTheIssuerIsTolerated) {
  // Operators copy "https://id.example.com" or "https://id.example.com/"; both name one issuer.
  EXPECT_EQ(outcome(verify_claims(claims({{"iss", R"("https://idp.example.test/")"}}))), "ok");
  EXPECT_TRUE(same_issuer("https://a.test", "https://a.test/"));
  EXPECT_FALSE(same_issuer("https://a.test", "https://a.test.evil"));
  EXPECT_FALSE(same_issuer("", "/"));
}

TEST(IdToken, WrongAudienceIsRefused) {
  EXPECT_EQ(outcome(verify_claims(claims({{"aud", R"("another-client")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"aud", R"(["another-client"])"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"aud", R"("authd-client-2")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({}, {"aud"}))), "upstream_failed");
}

TEST(IdToken, SeveralAudiencesNeedOurAzp) {
  EXPECT_EQ(outcome(verify_claims(claims({{"aud", R"(["authd-client","other"])"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"aud", R"(["authd-client","other"])"}, {"azp", R"("other")"}}))),
            "upstream_failed");
}

TEST(IdToken, ExpiredIsRefusedWithinTheLeeway) {
  EXPECT_EQ(outcome(verify_claims(claims({{"exp", std::to_string(kNow - 61)}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"exp", std::to_string(kNow - 59)}}))), "ok") << "60 s leeway";
  EXPECT_EQ(outcome(verify_claims(claims({}, {"exp"}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"exp", R"("9999999999")"}}))), "upstream_failed") << "exp must be a number";
  IdTokenChecks strict = checks();
  strict.leeway = 0s;
  EXPECT_EQ(outcome(verify_claims(claims({{"exp", std::to_string(kNow)}}), strict)), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"exp", std::to_string(kNow + 1)}}), strict)), "ok");
}

TEST(IdToken, IatInTheFutureIsRefused) {
  EXPECT_EQ(outcome(verify_claims(claims({{"iat", std::to_string(kNow + 3600)}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"iat", std::to_string(kNow + 61)}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"iat", std::to_string(kNow + 59)}}))), "ok") << "60 s leeway";
  EXPECT_EQ(outcome(verify_claims(claims({}, {"iat"}))), "upstream_failed");
}

TEST(IdToken, NonceMustMatch) {
  EXPECT_EQ(outcome(verify_claims(claims({{"nonce", R"("another-nonce")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({{"nonce", R"("n-0S6_WzA2Mj ")"}}))), "upstream_failed");
  EXPECT_EQ(outcome(verify_claims(claims({}, {"nonce"}))), "upstream_failed");
  auto verified = verify_claims(claims({{"nonce", R"("x")"}}));
  ASSERT_FALSE(verified.has_value());
  EXPECT_NE(verified.error().message.find("nonce"), std::string::npos) << verified.error().message;
}

TEST(IdToken, UnknownKidIsNotFound) {
  const auto token = signed_jwt(other_rsa_key(), header_for(other_rsa_key(), "rotated-key"), claims());
  auto verified = verify_id_token(token, provider_keys(), checks());
  ASSERT_FALSE(verified.has_value());
  EXPECT_EQ(verified.error().code, Errc::not_found) << verified.error().message;
  // An ES256 token naming the RSA key's kid finds no key of that algorithm.
  const auto mixed = signed_jwt(ec_key(), header_for(ec_key(), "rsa-1"), claims());
  EXPECT_EQ(outcome(verify_id_token(mixed, provider_keys(), checks())), "not_found");
  // Once the JWKS holds the new key, the same token passes.
  const auto rotated = jwks_of(rsa_key().jwk("rsa-1") + "," + other_rsa_key().jwk("rotated-key"));
  EXPECT_EQ(outcome(verify_id_token(token, rotated, checks())), "ok");
}

// ---- identity from claims ------------------------------------------------------------

OAuthProvider oidc_provider() {
  OAuthProvider p;
  p.name = "google";
  p.issuer = std::string(kIssuer);
  p.subject_claim = "sub";
  p.username_claim = "preferred_username";
  return p;
}

OAuthProvider github_provider() {
  OAuthProvider p;
  p.name = "github";
  p.authorization_url = "https://github.com/login/oauth/authorize";
  p.token_url = "https://github.com/login/oauth/access_token";
  p.userinfo_url = "https://api.github.com/user";
  p.subject_claim = "id";
  p.username_claim = "login";
  return p;
}

Json parse(std::string_view text) {
  auto json = Json::parse(text);
  if (!json) throw std::runtime_error("bad test JSON");
  return std::move(*json);
}

// "provider subject hint | fullname | email" of the identity the claims give, or "error: MESSAGE".
std::string identity(const OAuthProvider& provider, std::string_view claims_json) {
  auto id = identity_from_claims(provider, parse(claims_json));
  if (!id) return "error: " + id.error().message;
  return id->provider + " " + id->subject + " " + id->username_hint + " | " + id->fullname + " | " + id->email;
}

TEST(IdentityFromClaims, OpenIdConnectClaims) {
  EXPECT_EQ(identity(oidc_provider(),
                     R"({"sub":"1234","preferred_username":"jdoe","name":"J Doe","email":"j@example.test","email_verified":true})"),
            "google 1234 jdoe | J Doe | j@example.test");
}

TEST(IdentityFromClaims, GithubNumericIdBecomesAString) {
  EXPECT_EQ(identity(github_provider(), R"({"id":4242,"login":"octocat","name":"The Octocat","email":null})"),
            "github 4242 octocat | The Octocat | ");
}

TEST(IdentityFromClaims, HintFallsBackThroughPreferredUsernameLoginEmailName) {
  auto hint = [](std::string_view claims_json, OAuthProvider p = oidc_provider()) {
    auto id = identity_from_claims(p, parse(claims_json));
    return id ? id->username_hint : "error: " + id.error().message;
  };
  EXPECT_EQ(hint(R"({"sub":"1","preferred_username":"p","login":"l","email":"e@x","name":"n"})"), "p");
  EXPECT_EQ(hint(R"({"sub":"1","login":"l","email":"e@x","name":"n"})"), "l");
  EXPECT_EQ(hint(R"({"sub":"1","email":"e@x","email_verified":true,"name":"n"})"), "e@x");
  EXPECT_EQ(hint(R"({"sub":"1","email":"e@x","name":"n"})"), "n") << "an unverified email is no hint";
  EXPECT_EQ(hint(R"({"sub":"1","name":"n"})"), "n");
  EXPECT_EQ(hint(R"({"sub":"1"})"), "");
  EXPECT_EQ(hint(R"({"sub":"1","preferred_username":"","email":"e@x","email_verified":true})"), "e@x")
      << "an empty claim is no hint";
  // A configured username_claim comes first.
  OAuthProvider by_email = oidc_provider();
  by_email.username_claim = "email";
  EXPECT_EQ(hint(R"({"sub":"1","preferred_username":"p","email":"e@x","email_verified":true})", by_email), "e@x");
  // GitHub: login first, then the generic ones.
  EXPECT_EQ(hint(R"({"id":1,"login":"l","preferred_username":"p"})", github_provider()), "l");
}

TEST(IdentityFromClaims, AMissingSubjectClaimDoesNotFallBackToSub) {
  // security_oidc_identity_test.cpp: the configured claim ("id" here) or nothing.
  auto id = identity_from_claims(github_provider(), parse(R"({"sub":"s-9","login":"x"})"));
  EXPECT_FALSE(id.has_value());
}

TEST(IdentityFromClaims, NoUsableSubjectIsBadGateway) {
  for (std::string_view text : {R"({"preferred_username":"x"})", R"({"sub":""})", R"({"sub":null})",
                                R"({"sub":{"a":1}})", R"({"sub":["1"]})", R"({"sub":true})"}) {
    auto id = identity_from_claims(oidc_provider(), parse(text));
    ASSERT_FALSE(id.has_value()) << text;
    EXPECT_EQ(id.error().code, Errc::upstream_failed) << text;
  }
  const std::string long_sub = R"({"sub":")" + std::string(256, 'x') + R"("})";
  EXPECT_EQ(outcome(identity_from_claims(oidc_provider(), parse(long_sub))), "upstream_failed");
  const std::string max_sub = R"({"sub":")" + std::string(255, 'x') + R"("})";
  EXPECT_EQ(outcome(identity_from_claims(oidc_provider(), parse(max_sub))), "ok");
}

// ---- provider settings --------------------------------------------------------------

EnvLookup env_of(std::map<std::string, std::string> vars = {}) {
  auto shared = std::make_shared<const std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

// The message of the config error that refused the settings; "accepted", or
// "not a config error: CODE" (no message), when they were not refused so.
std::string config_refusal(const Result<CoreSettings>& config) {
  if (config) return "accepted";
  if (config.error().code != Errc::config) return "not a config error: " + std::string(to_string(config.error().code));
  return config.error().message;
}

// The core's settings as authd reads them: `file` (empty: none), then `env`.
Result<CoreSettings> load_config(const std::filesystem::path& file, const EnvLookup& env) {
  CoreSettings settings;
  settings::Loader loader;
  CoreSettingsTables tables(settings, loader);
  if (auto ok = loader.load(file, false, env); !ok) return std::unexpected(ok.error());
  return settings;
}

std::filesystem::path write_conf(const test::TempDir& dir, const std::string& text) {
  const auto path = dir.path() / "authd.conf";
  std::ofstream(path) << text;
  return path;
}

TEST(OAuthSettings, NoProviderByDefault) {
  auto config = load_config({}, env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_TRUE(config->oauth.providers.empty());
  EXPECT_FALSE(config->oauth.keep_role);
  EXPECT_EQ(config->oauth.connect_timeout, 3000ms);
  EXPECT_EQ(config->oauth.total_timeout, 10000ms);
  EXPECT_EQ(config->oauth.state_ttl, 600s);
}

TEST(OAuthSettings, SingleProviderFromFourEnvironmentVariables) {
  auto config = load_config({}, env_of({{"AUTHD_OAUTH_ISSUER", "https://id.example.com/realms/main"},
                                        {"AUTHD_OAUTH_CLIENT_ID", "authd"},
                                        {"AUTHD_OAUTH_CLIENT_SECRET", "s3cret"},
                                        {"AUTHD_OAUTH_REDIRECT_URI", "https://app.example.com/oauth"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->oauth.providers.size(), 1u);
  const auto& p = config->oauth.providers[0];
  EXPECT_EQ(p.name, "default");
  EXPECT_EQ(p.issuer, "https://id.example.com/realms/main");
  EXPECT_EQ(p.client_id, "authd");
  EXPECT_EQ(p.client_secret, "s3cret");
  EXPECT_EQ(p.redirect_uri, "https://app.example.com/oauth");
  EXPECT_EQ(p.scopes, "openid profile email");
  EXPECT_EQ(p.subject_claim, "sub");
  EXPECT_EQ(p.username_claim, "preferred_username");
  EXPECT_EQ(p.token_auth, TokenEndpointAuth::post);
  EXPECT_TRUE(p.openid());
  EXPECT_EQ(config->oauth.find("default"), &p);
  EXPECT_EQ(config->oauth.find("github"), nullptr);
}

TEST(OAuthSettings, SingleProviderFromTheFileWithGlobalSettings) {
  test::TempDir dir;
  auto config = load_config(write_conf(dir,
                                       "oauth_issuer = https://accounts.google.com\n"
                                       "oauth_client_id = gid\n"
                                       "oauth_redirect_uri = https://app.example.com/oauth\n"
                                       "oauth_username_claim = email\n"
                                       "oauth_token_auth = basic\n"
                                       "oauth_keep_role = true\n"
                                       "oauth_connect_timeout_ms = 500\n"
                                       "oauth_timeout_ms = 1500\n"
                                       "oauth_state_ttl = 120\n"),
                            env_of());
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->oauth.providers.size(), 1u);
  EXPECT_EQ(config->oauth.providers[0].username_claim, "email");
  EXPECT_EQ(config->oauth.providers[0].token_auth, TokenEndpointAuth::basic);
  EXPECT_TRUE(config->oauth.keep_role);
  EXPECT_EQ(config->oauth.connect_timeout, 500ms);
  EXPECT_EQ(config->oauth.total_timeout, 1500ms);
  EXPECT_EQ(config->oauth.state_ttl, 120s);
}

TEST(OAuthSettings, NamedProvidersFromTheFile) {
  test::TempDir dir;
  auto config = load_config(write_conf(dir,
                                       "oauth.github.authorization_url = https://github.com/login/oauth/authorize\n"
                                       "oauth.github.token_url = https://github.com/login/oauth/access_token\n"
                                       "oauth.github.userinfo_url = https://api.github.com/user\n"
                                       "oauth.github.client_id = Iv1.0123456789abcdef\n"
                                       "oauth.github.client_secret = gh-secret\n"
                                       "oauth.github.redirect_uri = https://app.example.com/oauth\n"
                                       "oauth.github.scopes = read:user user:email\n"
                                       "oauth.google.issuer = https://accounts.google.com\n"
                                       "oauth.google.client_id = gid\n"
                                       "oauth.google.redirect_uri = https://app.example.com/oauth\n"),
                            env_of({{"AUTHD_OAUTH_GITHUB_CLIENT_SECRET", "from-env"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->oauth.providers.size(), 2u);
  EXPECT_EQ(config->oauth.providers[0].name, "github") << "sorted by name";
  EXPECT_EQ(config->oauth.providers[1].name, "google");
  const auto* gh = config->oauth.find("github");
  ASSERT_NE(gh, nullptr);
  EXPECT_FALSE(gh->openid());
  EXPECT_EQ(gh->client_id, "Iv1.0123456789abcdef");
  EXPECT_EQ(gh->client_secret, "from-env") << "a provider seen in the file reads its environment variables";
  EXPECT_EQ(gh->scopes, "read:user user:email");
  EXPECT_EQ(gh->subject_claim, "id");
  EXPECT_EQ(gh->username_claim, "login");
  EXPECT_EQ(gh->userinfo_url, "https://api.github.com/user");
  const auto* google = config->oauth.find("google");
  ASSERT_NE(google, nullptr);
  EXPECT_TRUE(google->openid());
  EXPECT_EQ(google->scopes, "openid profile email");
}

TEST(OAuthSettings, NamedProvidersFromTheEnvironment) {
  auto config = load_config({}, env_of({{"AUTHD_OAUTH_PROVIDERS", "github, google"},
                                        {"AUTHD_OAUTH_GITHUB_AUTHORIZATION_URL", "https://github.com/login/oauth/authorize"},
                                        {"AUTHD_OAUTH_GITHUB_TOKEN_URL", "https://github.com/login/oauth/access_token"},
                                        {"AUTHD_OAUTH_GITHUB_USERINFO_URL", "https://api.github.com/user"},
                                        {"AUTHD_OAUTH_GITHUB_CLIENT_ID", "ghid"},
                                        {"AUTHD_OAUTH_GITHUB_REDIRECT_URI", "https://app.example.com/oauth"},
                                        {"AUTHD_OAUTH_GOOGLE_ISSUER", "https://accounts.google.com"},
                                        {"AUTHD_OAUTH_GOOGLE_CLIENT_ID", "gid"},
                                        {"AUTHD_OAUTH_GOOGLE_REDIRECT_URI", "https://app.example.com/oauth"},
                                        {"AUTHD_OAUTH_GOOGLE_TOKEN_AUTH", "basic"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  ASSERT_EQ(config->oauth.providers.size(), 2u);
  ASSERT_NE(config->oauth.find("github"), nullptr);
  EXPECT_EQ(config->oauth.find("github")->client_id, "ghid");
  ASSERT_NE(config->oauth.find("google"), nullptr);
  EXPECT_EQ(config->oauth.find("google")->token_auth, TokenEndpointAuth::basic);
  EXPECT_EQ(config->oauth.find("default"), nullptr) << "no unnamed provider was configured";
}

TEST(OAuthSettings, EnvironmentOverridesTheFile) {
  test::TempDir dir;
  auto config = load_config(write_conf(dir,
                                       "oauth_issuer = https://a.example.com\n"
                                       "oauth_client_id = file-id\n"
                                       "oauth_redirect_uri = https://app.example.com/oauth\n"),
                            env_of({{"AUTHD_OAUTH_CLIENT_ID", "env-id"}, {"AUTHD_OAUTH_KEEP_ROLE", "true"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->oauth.providers.at(0).client_id, "env-id");
  EXPECT_TRUE(config->oauth.keep_role);
}

struct BadSettings {
  std::string why;
  std::map<std::string, std::string> env;
  std::string must_mention;
};

TEST(OAuthSettings, ValidationErrors) {
  const std::string iss = "https://id.example.com", uri = "https://app.example.com/oauth";
  const std::vector<BadSettings> cases{
      {"missing client_id", {{"AUTHD_OAUTH_ISSUER", iss}, {"AUTHD_OAUTH_REDIRECT_URI", uri}}, "client_id"},
      {"missing redirect_uri", {{"AUTHD_OAUTH_ISSUER", iss}, {"AUTHD_OAUTH_CLIENT_ID", "x"}}, "redirect_uri"},
      {"no issuer and no endpoints", {{"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", uri}}, "issuer"},
      {"authorization_url without token_url",
       {{"AUTHD_OAUTH_AUTHORIZATION_URL", iss + "/a"}, {"AUTHD_OAUTH_USERINFO_URL", iss + "/u"},
        {"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", uri}},
       "token_url"},
      {"plain OAuth 2.0 without userinfo_url",
       {{"AUTHD_OAUTH_AUTHORIZATION_URL", iss + "/a"}, {"AUTHD_OAUTH_TOKEN_URL", iss + "/t"},
        {"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", uri}},
       "userinfo_url"},
      {"non-http issuer",
       {{"AUTHD_OAUTH_ISSUER", "ftp://id.example.com"}, {"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", uri}},
       "ftp://id.example.com"},
      {"non-http redirect_uri",
       {{"AUTHD_OAUTH_ISSUER", iss}, {"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", "javascript:alert(1)"}},
       "javascript:alert(1)"},
      {"non-http token_url",
       {{"AUTHD_OAUTH_ISSUER", iss}, {"AUTHD_OAUTH_TOKEN_URL", "file:///etc/passwd"}, {"AUTHD_OAUTH_CLIENT_ID", "x"},
        {"AUTHD_OAUTH_REDIRECT_URI", uri}},
       "file:///etc/passwd"},
      {"listed provider without settings", {{"AUTHD_OAUTH_PROVIDERS", "github"}}, "github"},
      {"bad provider name", {{"AUTHD_OAUTH_PROVIDERS", "Git-Hub"}}, "Git-Hub"},
      {"bad token_auth",
       {{"AUTHD_OAUTH_ISSUER", iss}, {"AUTHD_OAUTH_CLIENT_ID", "x"}, {"AUTHD_OAUTH_REDIRECT_URI", uri},
        {"AUTHD_OAUTH_TOKEN_AUTH", "jwt"}},
       "AUTHD_OAUTH_TOKEN_AUTH"},
      {"bad keep_role", {{"AUTHD_OAUTH_KEEP_ROLE", "maybe"}}, "AUTHD_OAUTH_KEEP_ROLE"},
      {"timeout out of range", {{"AUTHD_OAUTH_TIMEOUT_MS", "5"}}, "AUTHD_OAUTH_TIMEOUT_MS"},
      {"a named provider missing client_id",
       {{"AUTHD_OAUTH_PROVIDERS", "idp"}, {"AUTHD_OAUTH_IDP_ISSUER", iss}, {"AUTHD_OAUTH_IDP_REDIRECT_URI", uri}},
       "idp"},
  };
  for (const auto& c : cases) {
    auto config = load_config({}, env_of(c.env));
    ASSERT_FALSE(config.has_value()) << c.why;
    EXPECT_EQ(config.error().code, Errc::config) << c.why;
    EXPECT_NE(config.error().message.find(c.must_mention), std::string::npos)
        << c.why << ": message '" << config.error().message << "' should mention " << c.must_mention;
  }
}

// An OpenID Connect provider (jwks_url set) without an issuer can never sign
// anyone in: every ID token's iss is compared with an empty issuer and
// refused. docs/configuration.md: "A bad value stops authd and authctl at start with a
// one-line reason; nothing is checked for the first time at request time."
TEST(OAuthSettings, JwksUrlWithoutIssuerIsRefusedAtStart) {
  auto config = load_config({}, env_of({{"AUTHD_OAUTH_AUTHORIZATION_URL", "https://idp.example.test/auth"},
                                        {"AUTHD_OAUTH_TOKEN_URL", "https://idp.example.test/token"},
                                        {"AUTHD_OAUTH_JWKS_URL", "https://idp.example.test/jwks"},
                                        {"AUTHD_OAUTH_CLIENT_ID", "x"},
                                        {"AUTHD_OAUTH_REDIRECT_URI", "https://app.example.com/oauth"}}));
  const std::string why = config_refusal(config);
  EXPECT_NE(why.find("issuer"), std::string::npos) << why << " (a provider whose ID tokens can never pass the iss check)";
}

TEST(OAuthSettings, BadProviderNameInTheFile) {
  test::TempDir dir;
  const std::string why = config_refusal(load_config(write_conf(dir, "oauth.Bad-Name.client_id = x\n"), env_of()));
  EXPECT_NE(why.find("authd.conf:1:"), std::string::npos) << why;
  EXPECT_NE(why.find("Bad-Name"), std::string::npos) << why;
}

TEST(OAuthSettings, UnknownProviderSettingInTheFileIsAnError) {
  test::TempDir dir;
  const std::string why = config_refusal(load_config(write_conf(dir, "oauth.github.client_idd = x\n"), env_of()));
  EXPECT_NE(why.find("client_idd"), std::string::npos) << why;
}

// ---- the authorization URL ------------------------------------------------------------------

std::map<std::string, std::string> query_of(const std::string& url) {
  std::map<std::string, std::string> out;
  const auto q = url.find('?');
  if (q == std::string::npos) return out;
  std::string rest = url.substr(q + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto end = std::min(rest.find('&', start), rest.size());
    const auto pair = rest.substr(start, end - start);
    const auto eq = pair.find('=');
    std::string value = eq == std::string::npos ? "" : pair.substr(eq + 1), decoded;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (value[i] == '%' && i + 2 < value.size()) {
        decoded += static_cast<char>(std::stoi(value.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        decoded += value[i];
      }
    }
    out[pair.substr(0, eq)] = decoded;
    start = end + 1;
  }
  return out;
}

TEST(OAuthClient, AuthorizationUrlOfAPlainOAuth2Provider) {
  OAuthProvider p = github_provider();
  p.client_id = "Iv1.abc";
  p.redirect_uri = "https://app.example.com/oauth";
  p.scopes = "read:user user:email";
  OAuthClient client(p, HttpTimeouts{});
  const OAuthState state{"github", "st-1", "verifier", "nonce-1"};
  auto url = client.authorization_url(state, "challenge-1");
  ASSERT_TRUE(url.has_value()) << url.error().message;
  EXPECT_TRUE(url->starts_with("https://github.com/login/oauth/authorize?")) << *url;
  const auto q = query_of(*url);
  EXPECT_EQ(q.at("response_type"), "code");
  EXPECT_EQ(q.at("client_id"), "Iv1.abc");
  EXPECT_EQ(q.at("redirect_uri"), "https://app.example.com/oauth");
  EXPECT_EQ(q.at("scope"), "read:user user:email");
  EXPECT_EQ(q.at("state"), "st-1");
  EXPECT_EQ(q.at("code_challenge"), "challenge-1");
  EXPECT_EQ(q.at("code_challenge_method"), "S256");
  EXPECT_FALSE(q.contains("nonce")) << "no nonce for plain OAuth 2.0";
  EXPECT_EQ(url->find("verifier"), std::string::npos) << "the verifier never leaves authd here";
}

TEST(OAuthClient, AuthorizationUrlOfAnOpenIdProviderWithExplicitEndpoints) {
  OAuthProvider p;
  p.name = "idp";
  p.authorization_url = "https://idp.example.test/auth?tenant=main";
  p.token_url = "https://idp.example.test/token";
  p.jwks_url = "https://idp.example.test/jwks";
  p.client_id = "cid";
  p.redirect_uri = "https://app.example.com/oauth";
  p.scopes = "openid";
  OAuthClient client(p, HttpTimeouts{});
  auto url = client.authorization_url(OAuthState{"idp", "st", "v", "the nonce"}, "ch");
  ASSERT_TRUE(url.has_value()) << url.error().message;
  EXPECT_TRUE(url->starts_with("https://idp.example.test/auth?tenant=main&response_type=code")) << *url;
  const auto q = query_of(*url);
  EXPECT_EQ(q.at("tenant"), "main");
  EXPECT_EQ(q.at("nonce"), "the nonce");
  EXPECT_NE(url->find("nonce=the%20nonce"), std::string::npos) << *url;
}

TEST(OAuthClient, UnreachableDiscoveryIsBadGateway) {
  OAuthProvider p = oidc_provider();
  p.issuer = "http://127.0.0.1:1";  // nothing listens on port 1
  p.client_id = "cid";
  p.redirect_uri = "https://app.example.com/oauth";
  OAuthClient client(p, HttpTimeouts{std::chrono::milliseconds{1000}, std::chrono::milliseconds{2000}});
  auto url = client.authorization_url(OAuthState{"google", "st", "v", "n"}, "ch");
  ASSERT_FALSE(url.has_value());
  EXPECT_EQ(url.error().code, Errc::upstream_failed) << url.error().message;
}

TEST(HttpClient, UrlAndFormEncoding) {
  EXPECT_EQ(HttpClient::url_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(HttpClient::url_encode("a b&c=d/e+f?"), "a%20b%26c%3Dd%2Fe%2Bf%3F");
  EXPECT_EQ(HttpClient::url_encode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(HttpClient::form_encode({{"grant_type", "authorization_code"}, {"redirect_uri", "https://a/b?c"}}),
            "grant_type=authorization_code&redirect_uri=https%3A%2F%2Fa%2Fb%3Fc");
  EXPECT_EQ(HttpClient::form_encode({}), "");
}

// ---- account linking ------------------------------------------------------------------------

class SignInExternal : public ::testing::Test {
 protected:
  void SetUp() override { users_ = std::make_unique<Accounts>(db_.store(), hasher_, CredentialPolicy{}); }

  static ExternalIdentity identity(std::string subject, std::string hint, std::string provider = "github") {
    return ExternalIdentity{std::move(provider), std::move(subject), std::move(hint), "Full Name", "x@example.test"};
  }

  ExternalSignIn sign_in(const ExternalIdentity& who, bool keep_role = false) {
    auto result = users_->sign_in_external(who, keep_role);
    if (!result) throw std::runtime_error("sign_in_external: " + result.error().message);
    return std::move(*result);
  }

  User local(const std::string& name, Role role = Role::user) {
    return test::insert_user(db_.store(), name, role, "$argon2id$v=19$m=256,t=1,p=1$c2FsdA$aGFzaA");
  }

  test::TempStore db_;
  PasswordHasher hasher_{test::kFastArgon2};
  std::unique_ptr<Accounts> users_;
};

TEST_F(SignInExternal, CreatesALinkedAccountWithRoleUserAndNoPassword) {
  const auto result = sign_in(identity("4242", "octocat"));
  EXPECT_TRUE(result.created);
  EXPECT_EQ(result.user.username, "octocat");
  EXPECT_EQ(result.user.role, Role::user);
  EXPECT_EQ(result.user.version, 0);
  EXPECT_TRUE(result.user.password_hash.empty());
  EXPECT_EQ(result.user.fullname, "Full Name");
  EXPECT_EQ(result.user.email, "x@example.test");
  EXPECT_EQ(result.user.links, std::vector<std::string>{"github:4242"});
  auto stored = users_->find("octocat");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->id, result.user.id);
  EXPECT_EQ(stored->links, std::vector<std::string>{"github:4242"});
}

TEST_F(SignInExternal, SignInAgainUpdatesTheSameAccountAndBumpsVersion) {
  const auto first = sign_in(identity("4242", "octocat"));
  auto again = identity("4242", "renamed-login");
  again.fullname = "New Name";
  again.email = "";
  const auto second = sign_in(again);
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.user.username, "octocat") << "linked by subject, not by the hint";
  EXPECT_EQ(second.user.id, first.user.id);
  EXPECT_EQ(second.user.version, 1);
  EXPECT_EQ(second.user.fullname, "New Name");
  EXPECT_EQ(second.user.email, "x@example.test") << "an empty email does not erase the stored one";
  EXPECT_EQ(users_->find("octocat")->version, 1);
  EXPECT_EQ(sign_in(again).user.version, 2);
  EXPECT_EQ(users_->list(UserQuery{})->users.size(), 1u);
}

TEST_F(SignInExternal, RoleIsResetToUserUnlessKeepRole) {
  sign_in(identity("1", "dave"));
  ASSERT_TRUE(users_->set_role("dave", Role::admin).has_value());
  EXPECT_EQ(sign_in(identity("1", "dave")).user.role, Role::user);
  EXPECT_EQ(users_->find("dave")->role, Role::user);

  ASSERT_TRUE(users_->set_role("dave", Role::editor).has_value());
  const auto kept = sign_in(identity("1", "dave"), true);
  EXPECT_EQ(kept.user.role, Role::editor);
  EXPECT_EQ(users_->find("dave")->role, Role::editor);

  EXPECT_EQ(sign_in(identity("2", "erin"), true).user.role, Role::user) << "a new account is always user";
}

TEST_F(SignInExternal, NeverTakesOverAnExistingAccount) {
  const auto alice = local("alice", Role::admin);
  const auto a = sign_in(identity("s1", "alice"));
  EXPECT_TRUE(a.created);
  EXPECT_EQ(a.user.username, "alice.github");
  const auto b = sign_in(identity("s2", "alice"));
  EXPECT_EQ(b.user.username, "alice.github.2");
  const auto c = sign_in(identity("s3", "alice"));
  EXPECT_EQ(c.user.username, "alice.github.3");
  const auto d = sign_in(identity("s4", "alice", "google"));
  EXPECT_EQ(d.user.username, "alice.google");

  auto stored = users_->find("alice");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->id, alice.id);
  EXPECT_EQ(stored->version, alice.version);
  EXPECT_EQ(stored->role, Role::admin);
  EXPECT_EQ(stored->password_hash, alice.password_hash);
  EXPECT_TRUE(stored->links.empty());

  EXPECT_EQ(sign_in(identity("s1", "alice")).user.username, "alice.github") << "each subject keeps its account";
  EXPECT_EQ(sign_in(identity("s2", "alice")).user.username, "alice.github.2");
}

TEST_F(SignInExternal, TheSameSubjectAtAnotherProviderIsAnotherAccount) {
  const auto gh = sign_in(identity("42", "sam", "github"));
  const auto gl = sign_in(identity("42", "sam", "gitlab"));
  EXPECT_NE(gh.user.id, gl.user.id);
  EXPECT_EQ(gl.user.username, "sam.gitlab");
}

TEST_F(SignInExternal, HintsAreReducedToUsernameCharacters) {
  EXPECT_EQ(sign_in(identity("1", "Zoë Smith!")).user.username, "ZoSmith");
  EXPECT_EQ(sign_in(identity("2", "")).user.username, "github_user");
  EXPECT_EQ(sign_in(identity("3", "")).user.username, "github_user.github");
  EXPECT_EQ(sign_in(identity("4", "a.b_c@d+e-f")).user.username, "a.b_c@d+e-f");
  // Long hints are cut so that even "<base>.<provider>.<n>" fits the 64-character limit.
  const auto long_hint = sign_in(identity("5", std::string(100, 'x'))).user.username;
  EXPECT_EQ(long_hint, std::string(64 - (std::string("github").size() + 6), 'x'));
  EXPECT_LE(sign_in(identity("5b", std::string(100, 'x'))).user.username.size(), 64u);
  EXPECT_EQ(sign_in(identity("6", "../../etc")).user.username, "....etc");
}

TEST_F(SignInExternal, RemoveDeletesLinksSoALaterSignInCreatesAFreshAccount) {
  const auto first = sign_in(identity("7", "gina"));
  ASSERT_TRUE(users_->remove("gina").has_value());
  const auto again = sign_in(identity("7", "gina"));
  EXPECT_TRUE(again.created);
  EXPECT_EQ(again.user.username, "gina");
  EXPECT_NE(again.user.id, first.user.id);
  EXPECT_EQ(again.user.version, 0);
}

TEST_F(SignInExternal, AStaleLinkIsNotHonoured) {
  // The link table still says github:8 -> henry, but henry's account no
  // longer lists that link (it was rewritten): henry must not be handed over.
  const auto linked = sign_in(identity("8", "henry"));
  User rewritten = linked.user;
  rewritten.links.clear();
  rewritten.version += 1;  // an update, as an operator's rewrite would be
  rewritten.password_hash = "$argon2id$v=19$m=256,t=1,p=1$c2FsdA$aGFzaA";
  ASSERT_TRUE(db_->write([&](StoreTxn& txn) { return txn.replace_user(rewritten); }).has_value());

  const auto result = sign_in(identity("8", "henry"));
  EXPECT_TRUE(result.created);
  EXPECT_NE(result.user.id, linked.user.id);
  EXPECT_EQ(result.user.username, "henry.github");
  auto henry = users_->find("henry");
  ASSERT_TRUE(henry.has_value());
  EXPECT_EQ(henry->version, 1) << "the stale link's target was not updated";
  EXPECT_TRUE(henry->links.empty());
  // From now on the subject is linked to its new account.
  EXPECT_EQ(sign_in(identity("8", "henry")).user.username, "henry.github");
}

TEST_F(SignInExternal, ALocalAccountReusingADeletedAccountsNameIsNotLinked) {
  sign_in(identity("9", "ivy"));
  ASSERT_TRUE(users_->remove("ivy").has_value());
  const auto squatter = local("ivy");
  const auto result = sign_in(identity("9", "ivy"));
  EXPECT_TRUE(result.created);
  EXPECT_EQ(result.user.username, "ivy.github");
  EXPECT_EQ(users_->find("ivy")->version, squatter.version);
}

TEST_F(SignInExternal, SetRoleKeepsTheLink) {
  sign_in(identity("10", "jack"));
  ASSERT_TRUE(users_->set_role("jack", Role::writer).has_value());
  EXPECT_EQ(users_->find("jack")->links, std::vector<std::string>{"github:10"});
  EXPECT_FALSE(sign_in(identity("10", "jack")).created);
}

}  // namespace
}  // namespace authd
