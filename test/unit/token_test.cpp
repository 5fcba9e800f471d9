#include "authd/token.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "test_support.hpp"

namespace authd {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kSubject = "0123456789abcdef01234567";
const std::string kKey = "0123456789abcdef0123456789ABCDEF";  // 32 bytes
const std::string kOtherKey = "fedcba9876543210FEDCBA9876543210";

TokenService make_service(std::string key = kKey, TokenPolicy policy = {}) {
  auto service = TokenService::create(SigningKey(std::move(key)), std::move(policy));
  if (!service) throw std::runtime_error("TokenService::create: " + service.error().message);
  return std::move(*service);
}

std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

std::string b64u(std::string_view s) { return crypto::base64url_encode(s); }

// A compact JWS built by hand from raw header and payload JSON texts, MACed
// with `key` over "b64(header).b64(payload)".
std::string hand_token(std::string_view header, std::string_view payload,
                       std::string_view key = kKey) {
  std::string input = b64u(header) + "." + b64u(payload);
  auto mac = crypto::hmac_sha256(bytes_of(key), input);
  return input + "." + crypto::base64url_encode(std::span<const unsigned char>(mac));
}

constexpr std::string_view kGoodHeader = R"({"alg":"HS256","typ":"at+jwt"})";

// A payload that verifies at kNow with the default policy; `extra` is
// inserted verbatim before the closing brace (start it with a comma).
std::string payload_with(std::string_view extra = "", std::int64_t iat = kNow,
                         std::int64_t exp = kNow + 600) {
  return R"({"iss":"authd","aud":"authd","sub":")" + std::string(kSubject) +
         R"(","name":"alice","iat":)" + std::to_string(iat) + R"(,"exp":)" + std::to_string(exp) +
         R"(,"jti":"abc123")" + std::string(extra) + "}";
}

std::vector<std::string> split(std::string_view token) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = token.find('.', start);
    parts.emplace_back(token.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

void expect_invalid(const TokenService& service, std::string_view token,
                    std::string_view type = kAccessTokenType, std::int64_t now = kNow) {
  auto result = service.verify(token, type, now);
  ASSERT_FALSE(result.has_value()) << "accepted: " << token;
  EXPECT_EQ(result.error().code, Errc::invalid_token) << result.error().message;
  EXPECT_FALSE(result.error().message.empty());
}

TEST(Token, CreateRefusesShortKeys) {
  auto service = TokenService::create(SigningKey(std::string(31, 'k')), TokenPolicy{});
  ASSERT_FALSE(service.has_value());
  EXPECT_EQ(service.error().code, Errc::config);
  auto empty = TokenService::create(SigningKey(std::string()), TokenPolicy{});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, Errc::config);
  EXPECT_TRUE(TokenService::create(SigningKey(std::string(32, 'k')), TokenPolicy{}).has_value());
}

TEST(Token, IssueVerifyRoundTrip) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  EXPECT_EQ(split(token).size(), 3u) << token;
  auto claims = service.verify(token, kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->subject, kSubject);
  EXPECT_EQ(claims->username, "alice");
  EXPECT_EQ(claims->issued_at, kNow);
  EXPECT_EQ(claims->expires_at, kNow + 3600);
  EXPECT_FALSE(claims->token_id.empty());
  EXPECT_TRUE(claims->extra.empty());
  EXPECT_EQ(service.policy().ttl, 3600s);
}

TEST(Token, IssuedTokenHasTheExpectedHeaderAndClaims) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  auto parts = split(token);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(token.find('='), std::string::npos);

  auto header_text = crypto::base64url_decode(parts[0]);
  ASSERT_TRUE(header_text.has_value());
  auto header = Json::parse(*header_text);
  ASSERT_TRUE(header.has_value()) << *header_text;
  EXPECT_EQ(header->get_string("alg"), "HS256");
  EXPECT_EQ(header->get_string("typ"), kAccessTokenType);
  EXPECT_FALSE(header->has("crit"));

  auto payload_text = crypto::base64url_decode(parts[1]);
  ASSERT_TRUE(payload_text.has_value());
  auto payload = Json::parse(*payload_text);
  ASSERT_TRUE(payload.has_value()) << *payload_text;
  EXPECT_EQ(payload->get_string("sub"), kSubject);
  EXPECT_EQ(payload->get_string("name"), "alice");
  EXPECT_EQ(payload->get_integer("iat"), kNow);
  EXPECT_EQ(payload->get_integer("exp"), kNow + 3600);
  EXPECT_TRUE(payload->get_string("jti").has_value());
  EXPECT_EQ(payload->get_string("iss"), "authd");
  EXPECT_TRUE(payload->has("aud"));

  // The signature is HMAC-SHA256 over "header.payload" with the key.
  auto mac = crypto::hmac_sha256(bytes_of(kKey), parts[0] + "." + parts[1]);
  EXPECT_EQ(parts[2], crypto::base64url_encode(std::span<const unsigned char>(mac)));
}

TEST(Token, HandBuiltBaselineTokenVerifies) {
  // Sanity check of the helpers: the hostile tokens below differ from this one
  // in exactly one property.
  TokenService service = make_service();
  auto claims = service.verify(hand_token(kGoodHeader, payload_with()), kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->subject, kSubject);
  EXPECT_EQ(claims->username, "alice");
  EXPECT_EQ(claims->token_id, "abc123");
  EXPECT_EQ(claims->expires_at, kNow + 600);
}

TEST(Token, ExtraClaimsRoundTrip) {
  TokenService service = make_service();
  std::map<std::string, std::string, std::less<>> extra{{"provider", "github"},
                                                        {"nonce", "n-0123"}};
  std::string token = service.issue(kOAuthStateTokenType, kSubject, "alice", kNow, extra);
  auto claims = service.verify(token, kOAuthStateTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->extra, extra);
}

// auth_time is a number in the token (as OpenID Connect's) and decimal text in
// TokenClaims::extra; a value that is not a whole number is left out, never
// written as a string.
TEST(Token, AuthTimeIsANumberClaim) {
  TokenService service = make_service();
  std::map<std::string, std::string, std::less<>> extra{{std::string(kAuthTimeClaim), "1699990000"}};
  const std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow, extra);
  auto payload = Json::parse(*crypto::base64url_decode(split(token)[1]));
  ASSERT_TRUE(payload.has_value());
  EXPECT_EQ(payload->get_integer("auth_time"), 1699990000);
  auto claims = service.verify(token, kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->extra.at(std::string(kAuthTimeClaim)), "1699990000");

  extra[std::string(kAuthTimeClaim)] = "soon";
  payload = Json::parse(*crypto::base64url_decode(split(service.issue(kAccessTokenType, kSubject, "alice", kNow, extra))[1]));
  ASSERT_TRUE(payload.has_value());
  EXPECT_FALSE(payload->has("auth_time"));
  // A string auth_time in a token is not taken as one.
  const auto hand = hand_token(kGoodHeader, payload_with(R"(,"auth_time":"1699990000")"));
  claims = service.verify(hand, kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_FALSE(claims->extra.contains(std::string(kAuthTimeClaim)));
}

TEST(Token, TtlOverride) {
  TokenService service = make_service();
  std::string token = service.issue(kOAuthStateTokenType, kSubject, "alice", kNow, {}, 300s);
  auto claims = service.verify(token, kOAuthStateTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->expires_at, kNow + 300);
  expect_invalid(service, token, kOAuthStateTokenType, kNow + 300);
}

TEST(Token, PolicyTtlIsUsed) {
  TokenPolicy policy;
  policy.ttl = 120s;
  TokenService service = make_service(kKey, policy);
  auto claims = service.verify(service.issue(kAccessTokenType, kSubject, "a", kNow),
                               kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value());
  EXPECT_EQ(claims->expires_at, kNow + 120);
}

TEST(Token, TwoTokensInTheSameSecondDiffer) {
  TokenService service = make_service();
  std::string a = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  std::string b = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  EXPECT_NE(a, b);
  auto ca = service.verify(a, kAccessTokenType, kNow);
  auto cb = service.verify(b, kAccessTokenType, kNow);
  ASSERT_TRUE(ca.has_value());
  ASSERT_TRUE(cb.has_value());
  EXPECT_NE(ca->token_id, cb->token_id);
}

TEST(Token, ExpiryBoundary) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  EXPECT_TRUE(service.verify(token, kAccessTokenType, kNow + 3599).has_value());
  expect_invalid(service, token, kAccessTokenType, kNow + 3600);  // now == exp
  expect_invalid(service, token, kAccessTokenType, kNow + 100000);
}

TEST(Token, LeewayIsHonoured) {
  TokenPolicy policy;
  policy.leeway = 30s;
  TokenService service = make_service(kKey, policy);
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  EXPECT_TRUE(service.verify(token, kAccessTokenType, kNow + 3600).has_value());
  EXPECT_TRUE(service.verify(token, kAccessTokenType, kNow + 3600 + 29).has_value());
  expect_invalid(service, token, kAccessTokenType, kNow + 3600 + 31);
}

TEST(Token, IssuedInTheFutureIsRejected) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow + 1000);
  expect_invalid(service, token, kAccessTokenType, kNow);
  EXPECT_TRUE(service.verify(token, kAccessTokenType, kNow + 1000).has_value());
}

TEST(Token, NotBeforeIsHonoured) {
  TokenService service = make_service();
  expect_invalid(service,
                 hand_token(kGoodHeader, payload_with(R"(,"nbf":)" + std::to_string(kNow + 60))));
  EXPECT_TRUE(service
                  .verify(hand_token(kGoodHeader,
                                     payload_with(R"(,"nbf":)" + std::to_string(kNow - 60))),
                          kAccessTokenType, kNow)
                  .has_value());
}

TEST(Token, TamperedSignatureIsRejected) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  std::size_t sig = token.rfind('.') + 1;
  std::string flipped = token;
  flipped[sig] = (flipped[sig] == 'A') ? 'B' : 'A';
  expect_invalid(service, flipped);
  std::string truncated = token.substr(0, token.size() - 4);
  expect_invalid(service, truncated);
  std::string no_sig = token.substr(0, sig);
  expect_invalid(service, no_sig);
}

// The three parts of a token `service` issues now.
std::vector<std::string> issued_parts(TokenService& service) {
  return split(service.issue(kAccessTokenType, kSubject, "alice", kNow));
}

TEST(Token, TamperedPayloadIsRejected) {
  TokenService service = make_service();
  auto parts = issued_parts(service);
  ASSERT_EQ(parts.size(), 3u);
  auto payload = Json::parse(*crypto::base64url_decode(parts[1]));
  ASSERT_TRUE(payload.has_value());
  payload->set("name", Json::string("admin"));
  std::string forged = parts[0] + "." + b64u(payload->dump()) + "." + parts[2];
  expect_invalid(service, forged);
}

TEST(Token, TamperedHeaderIsRejected) {
  TokenService service = make_service();
  auto parts = issued_parts(service);
  ASSERT_EQ(parts.size(), 3u);
  expect_invalid(service, b64u(R"({"alg":"HS256","typ":"at+jwt","kid":"x"})") + "." + parts[1] + "." + parts[2]);
}

TEST(Token, AlgNoneIsRejected) {
  TokenService service = make_service();
  const std::string header = R"({"alg":"none","typ":"at+jwt"})";
  std::string unsigned_token = b64u(header) + "." + b64u(payload_with()) + ".";
  expect_invalid(service, unsigned_token);
  expect_invalid(service, hand_token(header, payload_with()));
}

TEST(Token, OtherAlgorithmNamesAreRejected) {
  TokenService service = make_service();
  for (std::string_view alg : {"HS512", "hs256", "HS384", "RS256", "ES256", "HS256 ", ""}) {
    std::string header = R"({"alg":")" + std::string(alg) + R"(","typ":"at+jwt"})";
    expect_invalid(service, hand_token(header, payload_with()));
  }
  expect_invalid(service, hand_token(R"({"typ":"at+jwt"})", payload_with()));
  expect_invalid(service, hand_token(R"({"alg":["HS256"],"typ":"at+jwt"})", payload_with()));
}

TEST(Token, TypeSeparatesTokenKinds) {
  TokenService service = make_service();
  std::string state = service.issue(kOAuthStateTokenType, kSubject, "alice", kNow);
  expect_invalid(service, state, kAccessTokenType);
  EXPECT_TRUE(service.verify(state, kOAuthStateTokenType, kNow).has_value());

  std::string access = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  expect_invalid(service, access, kOAuthStateTokenType);
}

TEST(Token, WrongOrMissingTypIsRejected) {
  TokenService service = make_service();
  for (std::string_view header :
       {R"({"alg":"HS256","typ":"JWT"})", R"({"alg":"HS256","typ":"AT+JWT"})",
        R"({"alg":"HS256","typ":"authd-state+jwt"})", R"({"alg":"HS256"})",
        R"({"alg":"HS256","typ":7})"}) {
    SCOPED_TRACE(std::string(header));
    expect_invalid(service, hand_token(header, payload_with()));
  }
}

TEST(Token, WrongKeyIsRejected) {
  TokenService service = make_service();
  TokenService other = make_service(kOtherKey);
  expect_invalid(other, service.issue(kAccessTokenType, kSubject, "alice", kNow));
  expect_invalid(service, hand_token(kGoodHeader, payload_with(), kOtherKey));
}

// A service with `policy` (same key): it and the default service each refuse
// the tokens the other issues.
TokenService refusing_each_other(const TokenPolicy& policy) {
  TokenService service = make_service();
  TokenService other = make_service(kKey, policy);
  expect_invalid(other, service.issue(kAccessTokenType, kSubject, "alice", kNow));
  expect_invalid(service, other.issue(kAccessTokenType, kSubject, "alice", kNow));
  return other;
}

TEST(Token, IssuerMismatchIsRejected) {
  TokenPolicy policy;
  policy.issuer = "someone-else";
  TokenService other = refusing_each_other(policy);
  EXPECT_TRUE(other.verify(other.issue(kAccessTokenType, kSubject, "a", kNow), kAccessTokenType,
                           kNow)
                  .has_value());
}

TEST(Token, AudienceMismatchIsRejected) {
  TokenPolicy policy;
  policy.audience = "another-api";
  refusing_each_other(policy);
}

TEST(Token, MissingIssuerOrAudienceIsRejected) {
  TokenService service = make_service();
  std::string no_iss = R"({"aud":"authd","sub":")" + std::string(kSubject) +
                       R"(","name":"alice","iat":)" + std::to_string(kNow) + R"(,"exp":)" +
                       std::to_string(kNow + 600) + "}";
  expect_invalid(service, hand_token(kGoodHeader, no_iss));
  std::string no_aud = R"({"iss":"authd","sub":")" + std::string(kSubject) +
                       R"(","name":"alice","iat":)" + std::to_string(kNow) + R"(,"exp":)" +
                       std::to_string(kNow + 600) + "}";
  expect_invalid(service, hand_token(kGoodHeader, no_aud));
}

TEST(Token, PaddingIsRejected) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  expect_invalid(service, token + "=");
  auto parts = split(token);
  ASSERT_EQ(parts.size(), 3u);
  expect_invalid(service, parts[0] + "=." + parts[1] + "." + parts[2]);
  expect_invalid(service, parts[0] + "." + parts[1] + "==." + parts[2]);
}

TEST(Token, WrongNumberOfPartsIsRejected) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  auto parts = split(token);
  ASSERT_EQ(parts.size(), 3u);
  expect_invalid(service, parts[0] + "." + parts[1]);
  expect_invalid(service, token + "." + parts[2]);
  expect_invalid(service, token + ".");
  expect_invalid(service, parts[0]);
  expect_invalid(service, "");
  expect_invalid(service, "..");
  expect_invalid(service, "...");
}

TEST(Token, NonBase64UrlCharactersAreRejected) {
  TokenService service = make_service();
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  expect_invalid(service, " " + token);
  expect_invalid(service, token + " ");
  std::string with_plus = token;
  with_plus[3] = '+';
  expect_invalid(service, with_plus);
}

TEST(Token, CritHeaderIsRejected) {
  TokenService service = make_service();
  expect_invalid(service,
                 hand_token(R"({"alg":"HS256","typ":"at+jwt","crit":["exp"]})", payload_with()));
  expect_invalid(service, hand_token(R"({"alg":"HS256","typ":"at+jwt","crit":[]})", payload_with()));
}

TEST(Token, UnknownHeadersAreNotDereferenced) {
  // jku/x5u/jwk/kid are ignored, not fetched; the token is judged on its MAC.
  TokenService service = make_service();
  auto claims = service.verify(
      hand_token(R"({"alg":"HS256","typ":"at+jwt","kid":"../../etc/passwd","jku":"http://127.0.0.1:1/"})",
                 payload_with()),
      kAccessTokenType, kNow);
  if (claims) {
    EXPECT_EQ(claims->subject, kSubject);
  } else {
    EXPECT_EQ(claims.error().code, Errc::invalid_token);
  }
}

TEST(Token, HeaderOrPayloadNotAnObjectIsRejected) {
  TokenService service = make_service();
  expect_invalid(service, hand_token(kGoodHeader, "[]"));
  expect_invalid(service, hand_token(kGoodHeader, R"("sub")"));
  expect_invalid(service, hand_token(kGoodHeader, "42"));
  expect_invalid(service, hand_token(kGoodHeader, "null"));
  expect_invalid(service, hand_token(kGoodHeader, "not json"));
  expect_invalid(service, hand_token(kGoodHeader, payload_with() + " x"));
  expect_invalid(service, hand_token("[]", payload_with()));
  expect_invalid(service, hand_token("not json", payload_with()));
}

TEST(Token, DuplicateMembersAreRejected) {
  TokenService service = make_service();
  expect_invalid(service, hand_token(kGoodHeader, payload_with(R"(,"sub":"someone-else")")));
  expect_invalid(service, hand_token(kGoodHeader, payload_with(R"(,"exp":99999999999)")));
  expect_invalid(service,
                 hand_token(R"({"alg":"HS256","typ":"at+jwt","alg":"HS256"})", payload_with()));
}

TEST(Token, MissingExpIsRejected) {
  TokenService service = make_service();
  std::string payload = R"({"iss":"authd","aud":"authd","sub":")" + std::string(kSubject) +
                        R"(","name":"alice","iat":)" + std::to_string(kNow) + R"(,"jti":"j"})";
  expect_invalid(service, hand_token(kGoodHeader, payload));
}

TEST(Token, NonIntegerExpIsRejected) {
  TokenService service = make_service();
  std::string payload = R"({"iss":"authd","aud":"authd","sub":")" + std::string(kSubject) +
                        R"(","name":"alice","iat":)" + std::to_string(kNow) + R"(,"exp":")" +
                        std::to_string(kNow + 600) + R"(","jti":"j"})";
  expect_invalid(service, hand_token(kGoodHeader, payload));
}

TEST(Token, MissingSubIsRejected) {
  TokenService service = make_service();
  std::string payload = R"({"iss":"authd","aud":"authd","name":"alice","iat":)" +
                        std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600) +
                        R"(,"jti":"j"})";
  expect_invalid(service, hand_token(kGoodHeader, payload));
}

TEST(Token, EmptySubIsRejected) {
  TokenService service = make_service();
  std::string payload = R"({"iss":"authd","aud":"authd","sub":"","name":"alice","iat":)" +
                        std::to_string(kNow) + R"(,"exp":)" + std::to_string(kNow + 600) +
                        R"(,"jti":"j"})";
  expect_invalid(service, hand_token(kGoodHeader, payload));
}

TEST(Token, OversizedTokenIsRejected) {
  TokenService service = make_service();
  const std::string big(20000, 'a');
  expect_invalid(service, hand_token(kGoodHeader, payload_with(R"(,"pad":")" + big + "\"")));
}

TEST(Token, ExtraClaimsCannotShadowRegisteredClaims) {
  TokenService service = make_service();
  std::map<std::string, std::string, std::less<>> extra{
      {"sub", "evil"}, {"name", "root"}, {"exp", "99999999999"}, {"iss", "x"}, {"ok", "yes"}};
  std::string token = service.issue(kAccessTokenType, kSubject, "alice", kNow, extra);
  auto claims = service.verify(token, kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->subject, kSubject);
  EXPECT_EQ(claims->username, "alice");
  EXPECT_EQ(claims->expires_at, kNow + 3600);
  EXPECT_EQ(claims->extra.size(), 1u);
  EXPECT_EQ(claims->extra.count("ok"), 1u);
}

TEST(Token, FarFutureExpiryWithLeewayDoesNotOverflow) {
  // exp at the top of the int64 range is "in the future"; adding the leeway
  // to it must not overflow (signed overflow is undefined behaviour).
  TokenPolicy policy;
  policy.leeway = 30s;
  TokenService service = make_service(kKey, policy);
  auto claims = service.verify(
      hand_token(kGoodHeader, payload_with("", kNow, std::numeric_limits<std::int64_t>::max())),
      kAccessTokenType, kNow);
  ASSERT_TRUE(claims.has_value()) << claims.error().message;
  EXPECT_EQ(claims->expires_at, std::numeric_limits<std::int64_t>::max());
}

// /metrics reports the verified-token cache's lookups (counted per shard):
// every lookup of every token counts once, as a hit or as a miss.
TEST(TokenCacheCounts, EveryLookupOfEveryTokenCountsOnce) {
  TokenService service = make_service();
  std::vector<std::string> tokens;
  for (int i = 0; i < 40; ++i) tokens.push_back(service.issue(kAccessTokenType, kSubject, "alice" + std::to_string(i), kNow));
  for (const auto& token : tokens) ASSERT_TRUE(service.verify(token, kAccessTokenType, kNow));  // a miss each
  for (int round = 0; round < 3; ++round) {
    for (const auto& token : tokens) ASSERT_TRUE(service.verify(token, kAccessTokenType, kNow));  // hits
  }
  const auto counts = service.cache_counts();
  EXPECT_EQ(counts.misses, 40u);
  EXPECT_EQ(counts.hits, 120u);
}

// The guard's b64token check runs on a token the cache does not recognise,
// before anything else (its error as is), and never on one verified before.
int unknown_checks = 0;
Result<void> count_and_refuse_tilde(std::string_view token) {
  ++unknown_checks;
  if (token.find('~') != std::string_view::npos) return fail(Errc::malformed_credentials, "a tilde");
  return {};
}

TEST(TokenUnknownCheck, RunsOnlyForTokensTheCacheDoesNotRecognise) {
  TokenService service = make_service();
  const auto token = service.issue(kAccessTokenType, kSubject, "alice", kNow);
  unknown_checks = 0;
  ASSERT_TRUE(service.verify_shared(token, kAccessTokenType, kNow, count_and_refuse_tilde));
  EXPECT_EQ(unknown_checks, 1);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(service.verify_shared(token, kAccessTokenType, kNow, count_and_refuse_tilde));
  EXPECT_EQ(unknown_checks, 1) << "a recognised token skips the check";

  // Its error comes first, before the signature (here: none) or the size.
  const auto refused = service.verify_shared("~" + token, kAccessTokenType, kNow, count_and_refuse_tilde);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::malformed_credentials);
  const auto long_one = service.verify_shared(std::string(9000, '~'), kAccessTokenType, kNow, count_and_refuse_tilde);
  ASSERT_FALSE(long_one);
  EXPECT_EQ(long_one.error().code, Errc::malformed_credentials);
  EXPECT_EQ(unknown_checks, 3);

  // A token that expired is not recognised: checked again, then refused as expired.
  const auto later = service.verify_shared(token, kAccessTokenType, kNow + 100000, count_and_refuse_tilde);
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().code, Errc::invalid_token);
  EXPECT_EQ(unknown_checks, 4);
}

}  // namespace
}  // namespace authd
