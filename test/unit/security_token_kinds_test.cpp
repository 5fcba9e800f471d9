// Stops token-kind confusion across audiences and keys (issue 41 class 1): an
// OpenID client's access token, the authd_device cookie, an OAuth state or a
// WebAuthn challenge presented as the user's session — to authd, or to a
// resource server that checks iss/aud/alg against the JWKS or the HMAC key.
// Each kind has its own audience (a client's: its id alone; authd's others:
// "authd:<name>") and authd's other kinds a key of their own, derived from the
// HMAC key; no kind verifies as another, on HS256, EdDSA and ES256, and the
// verified-token cache never answers for another kind than it verified.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "authd/jws.hpp"
#include "authd/json.hpp"
#include "authd/key_pair.hpp"
#include "authd/key_ring.hpp"
#include "fixtures.hpp"
#include "security_support.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace sec;

const std::vector<std::string_view> kKinds{kAccessTokenType, kClientAccessKind, kOAuthStateTokenType,
                                           kChallengeTokenType, kDeviceTokenType};

struct Service : test::RingTokens {
  explicit Service(TokenAlgorithm algorithm) : RingTokens(algorithm, kKey) {}
  std::string issue(std::string_view kind) const {
    std::map<std::string, std::string, std::less<>> extra;
    if (kind == kClientAccessKind) extra = {{"aud", "client_0123"}, {"client_id", "client_0123"}, {"scope", "openid"}};
    return tokens->issue(kind, kSub, "alice", kNow, extra);
  }
};

Json part(const std::string& token, bool header) {
  const auto parts = jws::split(token);
  return *Json::parse(*crypto::base64url_decode(header ? parts->header : parts->payload));
}

class SecurityTokenKinds : public ::testing::TestWithParam<TokenAlgorithm> {};

TEST_P(SecurityTokenKinds, EachKindVerifiesAsItselfOnly) {
  const Service s(GetParam());
  for (const auto issued : kKinds) {
    const auto token = s.issue(issued);
    for (const auto checked : kKinds) {
      // Twice: the second answer may come from the verified-token cache.
      for (int round = 0; round < 2; ++round) {
        EXPECT_EQ(outcome(s.tokens->verify(token, checked, kNow)), issued == checked ? "ok" : "invalid_token")
            << issued << " verified as " << checked << " (round " << round << ")";
      }
    }
  }
}

TEST_P(SecurityTokenKinds, AClientsTokenNamesTheClientAloneAndNeverAuthd) {
  const Service s(GetParam());
  const auto client = s.issue(kClientAccessKind);
  EXPECT_EQ(part(client, true).get_string("typ"), "at+jwt");  // RFC 9068
  const auto claims = part(client, false);
  EXPECT_EQ(claims.get_string("aud"), "client_0123") << "a single string: the client";
  EXPECT_EQ(claims.get_string("client_id"), "client_0123");
  EXPECT_EQ(claims.get_string("iss"), "authd");
  // The session keeps its shape.
  const auto session = part(s.issue(kAccessTokenType), false);
  EXPECT_EQ(session.get_string("aud"), "authd");
  EXPECT_FALSE(session.has("client_id"));
  // A caller can never make a client token that names authd's audience.
  for (std::string_view bad : {"authd", "authd:device", ""}) {
    EXPECT_THROW((void)s.tokens->issue(kClientAccessKind, kSub, "alice", kNow, {{"aud", std::string(bad)}}),
                 std::invalid_argument)
        << bad;
  }
  EXPECT_THROW((void)s.tokens->issue("authd-other+jwt", kSub, "alice", kNow), std::invalid_argument);
}

TEST_P(SecurityTokenKinds, OwnKindsAreHs256UnderTheirOwnKeyAndAudience) {
  const Service s(GetParam());
  for (const auto kind : {kOAuthStateTokenType, kChallengeTokenType, kDeviceTokenType}) {
    const auto token = s.issue(kind);
    const auto header = part(token, true);
    EXPECT_EQ(header.get_string("alg"), "HS256") << kind << ": never the access-token key ring";
    EXPECT_FALSE(header.has("kid")) << kind;
    const std::string name(kind.substr(6, kind.size() - 10));  // authd-<name>+jwt
    EXPECT_EQ(part(token, false).get_string("aud"), "authd:" + name) << kind;
    // Not the HMAC key's MAC: a verifier holding the secret key refuses it.
    const auto parts = jws::split(token);
    EXPECT_NE(mac_of(parts->signing_input), parts->signature) << kind;
    // The kind's key is HMAC-SHA256(signing key, "authd token kind " + typ).
    const auto derived = crypto::hmac_sha256(bytes_of(kKey), "authd token kind " + std::string(kind));
    const std::string derived_key(reinterpret_cast<const char*>(derived.data()), derived.size());
    EXPECT_EQ(mac_of(parts->signing_input, derived_key), parts->signature) << kind;
  }
}

TEST(SecurityTokenKindsHs256, AKindsClaimsUnderAnotherKindsKeyAreRefused) {
  const auto tokens = service();
  const auto key_of = [](std::string_view typ) {
    const auto derived = crypto::hmac_sha256(bytes_of(kKey), "authd token kind " + std::string(typ));
    return std::string(reinterpret_cast<const char*>(derived.data()), derived.size());
  };
  const auto device_payload = R"({"iss":"authd","aud":"authd:device","sub":"device","name":"alice","iat":)" +
                              std::to_string(kNow - 10) + R"(,"exp":)" + std::to_string(kNow + 600) + "}";
  const std::string device_header = R"({"alg":"HS256","typ":"authd-device+jwt"})";
  EXPECT_EQ(outcome(tokens.verify(forge(device_header, device_payload, key_of(kDeviceTokenType)), kDeviceTokenType,
                                  kNow)),
            "ok");  // control
  // The same claims MACed with the HMAC key itself, or with the state's key: refused.
  EXPECT_EQ(outcome(tokens.verify(forge(device_header, device_payload), kDeviceTokenType, kNow)), "invalid_token");
  EXPECT_EQ(outcome(tokens.verify(forge(device_header, device_payload, key_of(kOAuthStateTokenType)),
                                  kDeviceTokenType, kNow)),
            "invalid_token");
  // Its own key but authd's audience, or another kind's audience: refused.
  for (std::string_view aud : {R"("authd")", R"("authd:state")", R"(["authd:device","authd"])"}) {
    std::string other = device_payload;
    other.replace(other.find(R"("authd:device")"), 14, aud);
    EXPECT_EQ(outcome(tokens.verify(forge(device_header, other, key_of(kDeviceTokenType)), kDeviceTokenType, kNow)),
              "invalid_token")
        << aud;
  }
}

TEST(SecurityTokenKindsHs256, ATokenOfBeforeTheUpgradeIsNoClientTokenAndAClientTokenNoSession) {
  const auto tokens = service();
  // The old shape: aud [authd, client] + client_id. It still verifies as a
  // session (the guard refuses it by its client_id claim), never as a client's.
  const auto old = forge(kHeader, bare_payload(R"("iss":"authd","aud":["authd","client_0123"],)"
                                               R"("client_id":"client_0123","sub":"s","exp":)" +
                                               std::to_string(kNow + 60)));
  EXPECT_EQ(outcome(tokens.verify(old, kAccessTokenType, kNow)), "ok");
  EXPECT_EQ(outcome(tokens.verify(old, kClientAccessKind, kNow)), "invalid_token");
  // A client token must name the client it is for in aud.
  const auto mismatched = forge(kHeader, bare_payload(R"("iss":"authd","aud":"client_x","client_id":"client_y",)"
                                                      R"("sub":"s","exp":)" + std::to_string(kNow + 60)));
  EXPECT_EQ(outcome(tokens.verify(mismatched, kClientAccessKind, kNow)), "invalid_token");
  const auto right = forge(kHeader, bare_payload(R"("iss":"authd","aud":"client_y","client_id":"client_y",)"
                                                 R"("sub":"s","exp":)" + std::to_string(kNow + 60)));
  EXPECT_EQ(outcome(tokens.verify(right, kClientAccessKind, kNow)), "ok");  // control
  EXPECT_EQ(outcome(tokens.verify(right, kAccessTokenType, kNow)), "invalid_token");
}

std::string algorithm_name(const ::testing::TestParamInfo<TokenAlgorithm>& param) {
  switch (param.param) {
    case TokenAlgorithm::eddsa: return "EdDSA";
    case TokenAlgorithm::es256: return "ES256";
    case TokenAlgorithm::hs256: break;
  }
  return "HS256";
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SecurityTokenKinds,
                         ::testing::Values(TokenAlgorithm::hs256, TokenAlgorithm::eddsa, TokenAlgorithm::es256),
                         algorithm_name);

}  // namespace
}  // namespace authd
