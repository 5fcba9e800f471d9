#include "authd/token.hpp"

#include "authd/jws.hpp"

#include <array>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "token/verified_cache.hpp"

namespace authd {
namespace {

constexpr std::string_view kAmrClaimName = "amr";

Json amr_array(std::string_view methods) {
  Json out = Json::array();
  while (!methods.empty()) {
    const auto end = std::min(methods.find(' '), methods.size());
    if (end > 0) out.append(Json::string(methods.substr(0, end)));
    methods.remove_prefix(std::min(end + 1, methods.size()));
  }
  return out;
}

// The array back as "a b"; nullopt unless every member is a plain word.
std::optional<std::string> amr_text(const Json& array) {
  if (!array.is_array() || array.size() > 8) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const auto method = array.at(i).as_string();
    if (!method || method->empty() || method->size() > 16 || method->find(' ') != std::string_view::npos) {
      return std::nullopt;
    }
    if (!out.empty()) out += ' ';
    out += *method;
  }
  return out;
}

constexpr std::string_view kAlgorithm = "HS256";
constexpr std::size_t kMaxTokenBytes = 8192;
constexpr std::size_t kMaxJoseDepth = 4;
constexpr std::array<std::string_view, 8> kRegistered{"iss", "aud", "sub", "name",
                                                      "iat", "nbf", "exp", "jti"};

bool is_registered(std::string_view claim) {
  for (auto name : kRegistered) {
    if (name == claim) return true;
  }
  return false;
}

std::unexpected<Error> refuse(std::string why) { return fail(Errc::invalid_token, std::move(why)); }

std::span<const unsigned char> bytes_of(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

// Decodes one base64url segment into a JSON object.
Result<Json> decode_segment(std::string_view segment, std::string_view what) {
  auto json = jws::decode_object(segment, what, kMaxJoseDepth);
  if (!json) return refuse(std::move(json.error()));
  return std::move(*json);
}

// The one header layout we write; built once per kind.
std::string canonical_header(std::string_view type) {
  Json header = Json::object();
  header.set("alg", Json::string(kAlgorithm)).set("typ", Json::string(type));
  return crypto::base64url_encode(header.dump());
}

}  // namespace

TokenService::TokenService(const SigningKey& key, TokenPolicy policy, std::shared_ptr<KeyRing> ring)
    : mac_({reinterpret_cast<const unsigned char*>(key.bytes().data()), key.bytes().size()}),
      policy_(std::move(policy)),
      access_header_(canonical_header(kAccessTokenType)),
      cache_(policy_.cache_entries ? std::make_shared<token_detail::VerifiedTokenCache>(policy_.cache_entries)
                                   : nullptr),
      ring_(std::move(ring)) {}

std::string TokenService::encoded_header(std::string_view type) const {
  return type == kAccessTokenType ? access_header_ : canonical_header(type);
}

Result<TokenService> TokenService::create(SigningKey key, TokenPolicy policy, std::shared_ptr<KeyRing> ring) {
  if ((policy.algorithm != TokenAlgorithm::hs256) != static_cast<bool>(ring)) {
    return fail(Errc::config, "a public-key token_algorithm needs its key ring (and HS256 none)");
  }
  if (key.bytes().size() < kMinSigningKeyBytes) {
    return fail(Errc::config, "the signing key must hold at least " + std::to_string(kMinSigningKeyBytes) + " bytes");
  }
  if (policy.ttl.count() <= 0) return fail(Errc::config, "token_ttl must be positive");
  if (policy.leeway.count() < 0) return fail(Errc::config, "token_leeway must not be negative");
  return TokenService(key, std::move(policy), std::move(ring));
}

std::string TokenService::issue(std::string_view type, std::string_view subject, std::string_view username,
                                std::int64_t now,
                                const std::map<std::string, std::string, std::less<>>& extra,
                                std::chrono::seconds ttl_override) const {
  const auto ttl = ttl_override.count() > 0 ? ttl_override : policy_.ttl;
  Json payload = Json::object();
  payload.set("iss", Json::string(policy_.issuer))
      .set("aud", Json::string(policy_.audience))
      .set("sub", Json::string(subject))
      .set("name", Json::string(username))
      .set("iat", Json::integer(now))
      .set("exp", Json::integer(now + ttl.count()))
      .set("jti", Json::string(crypto::random_token(16)));
  // A token for an OpenID client names it as a second audience (RFC 9068 §3):
  // authd still verifies it, the client sees itself in `aud`.
  if (const auto client = extra.find("aud"); client != extra.end() && client->second != policy_.audience) {
    Json audiences = Json::array();
    audiences.append(Json::string(policy_.audience)).append(Json::string(client->second));
    payload.set("aud", std::move(audiences));
  }
  for (const auto& [claim, value] : extra) {
    if (is_registered(claim)) continue;
    if (claim == kAuthTimeClaim) {  // a number; not a whole number: left out
      std::int64_t when = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), when);
      if (ec == std::errc() && end == value.data() + value.size()) payload.set(claim, Json::integer(when));
      continue;
    }
    // amr (RFC 8176) is an array of method names; `extra` carries it space-separated.
    payload.set(claim, claim == kAmrClaimName ? amr_array(value) : Json::string(value));
  }
  if (ring_) return issue_public_key(type, crypto::base64url_encode(payload.dump()), now);
  std::string token = encoded_header(type);
  token += '.';
  token += crypto::base64url_encode(payload.dump());
  const auto mac = mac_.mac(token);
  token += '.';
  token += crypto::base64url_encode(mac);
  return token;
}

std::string TokenService::issue_public_key(std::string_view type, std::string payload_b64, std::int64_t now) const {
  const auto keys = ring_->keys(KeyRing::Check::always, now);  // a rotation counts at once
  const auto found = keys->by_kid.find(keys->current);
  // Only while the store holding the keys has never been reached since the
  // start (and the caller just reached it for the user...): the request's
  // exception handler answers 500; the next check loads the keys.
  if (found == keys->by_kid.end()) throw std::runtime_error("no signing key loaded yet (the key store is unreachable)");
  const auto& key = found->second;
  Json header = Json::object();
  header.set("alg", Json::string(algorithm_name())).set("typ", Json::string(type)).set("kid", Json::string(keys->current));
  std::string token = crypto::base64url_encode(header.dump());
  token += '.';
  token += payload_b64;
  const auto signature = key.sign(token);
  token += '.';
  token += crypto::base64url_encode(signature);
  return token;
}

std::string_view TokenService::algorithm_name() const noexcept {
  switch (policy_.algorithm) {
    case TokenAlgorithm::eddsa: return "EdDSA";
    case TokenAlgorithm::es256: return "ES256";
    case TokenAlgorithm::hs256: break;
  }
  return kAlgorithm;
}

std::shared_ptr<const KeyRing::Keys> TokenService::ring_keys(std::int64_t now) const {
  auto keys = ring_->keys(KeyRing::Check::periodic, now);
  // A retired key must not live on in the cache: any change of the key set empties it.
  if (cached_version_->exchange(keys->version) != keys->version && cache_) cache_->clear();
  return keys;
}

std::shared_ptr<const KeyRing::Keys> TokenService::public_keys() const {
  if (!ring_) return nullptr;
  return ring_->keys(KeyRing::Check::always, 0);
}

std::optional<std::string> TokenService::jwks() const {
  if (!ring_) return std::nullopt;
  return jwk_set({public_keys()});
}

std::string jwk_set(const std::vector<std::shared_ptr<const KeyRing::Keys>>& rings) {
  Json list = Json::array();
  for (const auto& keys : rings) {
    if (!keys) continue;
    for (const auto& [kid, key] : keys->by_kid) {
      const auto jwk = key.public_jwk();
      Json item = Json::object();
      item.set("kty", Json::string(jwk.kty));
      if (!jwk.n.empty()) item.set("n", Json::string(jwk.n)).set("e", Json::string(jwk.e));
      else item.set("crv", Json::string(jwk.crv)).set("x", Json::string(jwk.x));
      if (!jwk.y.empty()) item.set("y", Json::string(jwk.y));
      item.set("kid", Json::string(kid))
          .set("alg", Json::string(crypto::jws_algorithm(key.algorithm())))
          .set("use", Json::string("sig"));
      list.append(std::move(item));
    }
  }
  Json body = Json::object();
  body.set("keys", std::move(list));
  return body.dump();
}

Result<TokenClaims> TokenService::verify(std::string_view token, std::string_view type,
                                         std::int64_t now) const {
  auto claims = verify_shared(token, type, now);
  if (!claims) return std::unexpected(claims.error());
  return **claims;
}

Result<std::shared_ptr<const TokenClaims>> TokenService::verify_shared(std::string_view token, std::string_view type,
                                                                       std::int64_t now,
                                                                       UnknownTokenCheck check_unknown) const {
  if (token.size() <= kMaxTokenBytes) {
    if (auto known = recognise(token, type, now)) return known;
  }
  if (check_unknown) {
    if (auto checked = check_unknown(token); !checked) return std::unexpected(checked.error());
  }
  if (token.size() > kMaxTokenBytes) return refuse("token too long");
  std::int64_t valid_from = 0;
  auto claims = verify_uncached(token, type, now, valid_from);
  if (!claims) return std::unexpected(claims.error());
  auto shared = std::make_shared<const TokenClaims>(std::move(*claims));
  if (cache_) cache_->insert(type, token, shared, valid_from, now);
  return shared;
}

std::shared_ptr<const TokenClaims> TokenService::recognise(std::string_view token, std::string_view type,
                                                           std::int64_t now) const {
  if (!cache_) return nullptr;
  if (ring_) {
    // A retired key must not live on in the cache: any change of the key set empties it.
    const auto version = ring_->version(now);
    // Read first: every request passes here on every loop, and a write to the
    // shared line on each would bounce it between the cores.
    if (cached_version_->load(std::memory_order_relaxed) != version && cached_version_->exchange(version) != version) {
      cache_->clear();
    }
  }
  return cache_->find(type, token, now, policy_.leeway.count());
}

Result<TokenClaims> TokenService::verify_uncached(std::string_view token, std::string_view type, std::int64_t now,
                                                  std::int64_t& valid_from) const {
  const auto parts = jws::split(token);
  if (!parts) return refuse("a JWS compact token has exactly three parts");
  const auto signing_input = parts->signing_input;
  const auto header_b64 = parts->header;
  const auto payload_b64 = parts->payload;
  const auto signature_b64 = parts->signature;

  // Header first, and the algorithm before any cryptography: the algorithm is
  // pinned to our key (RFC 8725 §3.1), so "none", "HS512", "hs256" — or
  // HS256 when we sign with a public key, and the reverse — never reach a
  // signature check. With HS256 the header we write ourselves is recognised
  // byte for byte (the usual case, no parsing); any other one is parsed and
  // checked. jku/x5u/jwk are ignored: keys never come from the token; a kid
  // only picks one of our own keys.
  auto signature = crypto::base64url_decode(signature_b64);
  if (ring_) {
    auto header = decode_segment(header_b64, "header");
    if (!header) return std::unexpected(header.error());
    if (header->get_string("alg") != algorithm_name()) return refuse("algorithm not allowed");
    if (header->get_string("typ") != type) return refuse("wrong token type");
    if (header->has("crit")) return refuse("unsupported critical header");
    const auto kid = header->get_string("kid");
    if (!kid) return refuse("kid missing");
    auto keys = ring_keys(now);
    auto found = keys->by_kid.find(*kid);
    if (found == keys->by_kid.end()) {
      keys = ring_->keys(KeyRing::Check::always, now);  // maybe rotated a moment ago elsewhere
      found = keys->by_kid.find(*kid);
      if (found == keys->by_kid.end()) return refuse("unknown kid");
    }
    if (!signature || !found->second.verify(signing_input, *signature)) return refuse("bad signature");
  } else {
    if (header_b64 != encoded_header(type)) {
      auto header = decode_segment(header_b64, "header");
      if (!header) return std::unexpected(header.error());
      if (header->get_string("alg") != kAlgorithm) return refuse("algorithm not allowed");
      if (header->get_string("typ") != type) return refuse("wrong token type");
      // We implement no JWS extensions, so any `crit` must be refused (RFC 7515 §4.1.11).
      if (header->has("crit")) return refuse("unsupported critical header");
    }
    if (!signature) return refuse("signature is not base64url");
    const auto expected = mac_.mac(signing_input);
    if (!crypto::equal_constant_time(bytes_of(*signature), expected)) return refuse("bad signature");
  }

  auto payload = decode_segment(payload_b64, "payload");
  if (!payload) return std::unexpected(payload.error());
  if (payload->get_string("iss") != policy_.issuer) return refuse("wrong issuer");
  if (!jws::audience_contains(payload->get("aud"), policy_.audience)) return refuse("wrong audience");
  const auto leeway = policy_.leeway.count();
  const auto exp = payload->get_integer("exp");
  if (!exp) return refuse("exp missing or not an integer");
  if (now - leeway >= *exp) return refuse("token expired");  // (no overflow for a huge exp)
  if (payload->has("nbf")) {
    const auto nbf = payload->get_integer("nbf");
    if (!nbf || now + leeway < *nbf) return refuse("token not yet valid");
    valid_from = *nbf;
  }
  std::int64_t iat = 0;
  if (payload->has("iat")) {
    const auto value = payload->get_integer("iat");
    if (!value || *value > now + leeway) return refuse("iat invalid or in the future");
    iat = *value;
    valid_from = std::max(valid_from, iat);
  }
  const auto sub = payload->get_string("sub");
  if (!sub || sub->empty()) return refuse("sub missing");

  TokenClaims claims;
  claims.subject = std::string(*sub);
  claims.username = std::string(payload->get_string("name").value_or(""));
  claims.issued_at = iat;
  claims.expires_at = *exp;
  claims.token_id = std::string(payload->get_string("jti").value_or(""));
  for (const auto& key : payload->keys()) {
    if (is_registered(key)) continue;
    if (key == kAuthTimeClaim) {  // a number only
      if (auto when = payload->get_integer(key)) claims.extra.emplace(key, std::to_string(*when));
    } else if (auto value = payload->get_string(key)) {
      claims.extra.emplace(key, std::string(*value));
    } else if (key == kAmrClaimName) {
      if (auto amr = amr_text(payload->get(key))) claims.extra.emplace(key, std::move(*amr));
    }
  }
  return claims;
}

std::vector<settings::Setting> token_settings(TokenPolicy& p) {
  return settings::grouped("Tokens", {
      settings::choice("token_algorithm", p.algorithm,
                       {{"HS256", TokenAlgorithm::hs256}, {"EdDSA", TokenAlgorithm::eddsa}, {"ES256", TokenAlgorithm::es256}},
                       "How access tokens are signed: HS256 with the secret HMAC key (the default), or EdDSA "
                       "(Ed25519) / ES256 (P-256) with a private key only authd holds. With EdDSA or ES256 every "
                       "token names its key (`kid`); the keys live in `<state_dir>/keys` (files 0600, the first "
                       "made at start), or in the database with store = postgresql; GET /.well-known/jwks.json "
                       "publishes the public halves. Rotate with `authctl key rotate`, and `authctl key retire` "
                       "once the old key's tokens have expired (docs/tokens-and-keys.md)."),
      settings::seconds("token_ttl", p.ttl, 1, 366LL * 24 * 3600,
                        "Access token lifetime in seconds (`exp` = `iat` + token_ttl); also the Max-Age of the "
                        "`auth` cookie."),
      settings::seconds("token_leeway", p.leeway, 0, 300,
                        "Clock skew tolerated when checking a token's exp, nbf and iat, in seconds."),
      settings::text("token_issuer", p.issuer,
                     "The `iss` claim authd writes into its tokens and requires in the ones it checks. Must not "
                     "be empty."),
      settings::text("token_audience", p.audience,
                     "The `aud` claim authd writes into its tokens and requires in the ones it checks. Must not "
                     "be empty."),
      settings::integer("token_cache_entries", p.cache_entries, 0, 1 << 20,
                        "Verified access tokens remembered per process, so that a token seen again skips the "
                        "signature check (its expiry is still checked on each use); 0 disables the cache."),
  });
}

TokenService::CacheCounts TokenService::cache_counts() const noexcept {
  if (!cache_) return {};
  return {cache_->hits(), cache_->misses()};
}

}  // namespace authd
