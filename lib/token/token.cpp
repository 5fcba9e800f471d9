#include "authd/token.hpp"

#include "authd/jws.hpp"

#include <array>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "verified_cache.hpp"

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

// authd's own kinds besides sessions and client tokens (token.hpp).
constexpr std::array<std::string_view, 3> kOwnKinds{kOAuthStateTokenType, kChallengeTokenType, kDeviceTokenType};

// "authd-device+jwt" -> "authd:device".
std::string own_audience(std::string_view typ) {
  constexpr std::string_view kPrefix = "authd-", kSuffix = "+jwt";
  return "authd:" + std::string(typ.substr(kPrefix.size(), typ.size() - kPrefix.size() - kSuffix.size()));
}

}  // namespace

TokenService::TokenService(const SigningKey& key, TokenPolicy policy, std::shared_ptr<KeyRing> ring)
    : mac_({reinterpret_cast<const unsigned char*>(key.bytes().data()), key.bytes().size()}),
      policy_(std::move(policy)),
      access_header_(canonical_header(kAccessTokenType)),
      cache_(policy_.cache_entries ? std::make_shared<token_detail::VerifiedTokenCache>(policy_.cache_entries)
                                   : nullptr),
      ring_(std::move(ring)) {
  // Each kind's key is derived from the HMAC key (a PRF of it, HKDF-Expand's
  // one-block case): knowing one kind's key, or a session, gives no other.
  const std::span<const unsigned char> secret{reinterpret_cast<const unsigned char*>(key.bytes().data()),
                                              key.bytes().size()};
  own_kinds_.reserve(kOwnKinds.size());
  for (const auto typ : kOwnKinds) {
    const auto derived = crypto::hmac_sha256(secret, "authd token kind " + std::string(typ));
    own_kinds_.push_back(OwnKind{typ, own_audience(typ), canonical_header(typ), crypto::HmacSha256(derived)});
  }
}

const TokenService::OwnKind* TokenService::own_kind(std::string_view type) const noexcept {
  for (const auto& kind : own_kinds_) {
    if (kind.typ == type) return &kind;
  }
  return nullptr;
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
  const OwnKind* own = own_kind(type);
  std::string audience = own ? own->audience : policy_.audience;
  if (type == kClientAccessKind) {
    // A client's token names the client alone (RFC 9068 §3): never
    // token_audience, so that no resource server takes it for the session.
    const auto client = extra.find("aud");
    if (client == extra.end() || client->second.empty() || client->second == policy_.audience ||
        client->second.starts_with("authd:")) {
      throw std::invalid_argument("a client's access token needs the client id as its audience");
    }
    audience = client->second;
  } else if (!own && type != kAccessTokenType) {
    throw std::invalid_argument("unknown token kind " + std::string(type));
  }
  Json payload = Json::object();
  payload.set("iss", Json::string(policy_.issuer))
      .set("aud", Json::string(audience))
      .set("sub", Json::string(subject))
      .set("name", Json::string(username))
      .set("iat", Json::integer(now))
      .set("exp", Json::integer(now + ttl.count()))
      .set("jti", Json::string(crypto::random_token(16)));
  if (type == kClientAccessKind) payload.set(kClientIdClaim, Json::string(audience));
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
  if (ring_ && !own) return issue_public_key(kAccessTokenType, crypto::base64url_encode(payload.dump()), now);
  std::string token = own ? own->header : access_header_;
  token += '.';
  token += crypto::base64url_encode(payload.dump());
  const auto mac = (own ? own->mac : mac_).mac(token);
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
  // The kind fixes typ, key and audience; sessions and client tokens share
  // the first two (the access-token key), the others have theirs.
  const OwnKind* own = own_kind(type);
  const bool client = type == kClientAccessKind;
  if (!own && !client && type != kAccessTokenType) return refuse("unknown token kind");
  const std::string_view typ = own ? own->typ : kAccessTokenType;
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
  if (ring_ && !own) {
    auto header = decode_segment(header_b64, "header");
    if (!header) return std::unexpected(header.error());
    if (header->get_string("alg") != algorithm_name()) return refuse("algorithm not allowed");
    if (header->get_string("typ") != typ) return refuse("wrong token type");
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
    if (header_b64 != (own ? own->header : access_header_)) {
      auto header = decode_segment(header_b64, "header");
      if (!header) return std::unexpected(header.error());
      if (header->get_string("alg") != kAlgorithm) return refuse("algorithm not allowed");
      if (header->get_string("typ") != typ) return refuse("wrong token type");
      // We implement no JWS extensions, so any `crit` must be refused (RFC 7515 §4.1.11).
      if (header->has("crit")) return refuse("unsupported critical header");
    }
    if (!signature) return refuse("signature is not base64url");
    const auto expected = (own ? own->mac : mac_).mac(signing_input);
    if (!crypto::equal_constant_time(bytes_of(*signature), expected)) return refuse("bad signature");
  }

  auto payload = decode_segment(payload_b64, "payload");
  if (!payload) return std::unexpected(payload.error());
  if (payload->get_string("iss") != policy_.issuer) return refuse("wrong issuer");
  if (own) {
    if (payload->get_string("aud") != own->audience) return refuse("wrong audience");
  } else if (client) {
    // Its audience is the client it names, and never authd's own (a token
    // of before issue 41, aud [token_audience, client], is refused here too).
    const auto client_id = payload->get_string(kClientIdClaim);
    if (!client_id || client_id->empty() || !jws::audience_contains(payload->get("aud"), *client_id) ||
        jws::audience_contains(payload->get("aud"), policy_.audience)) {
      return refuse("wrong audience");
    }
  } else if (!jws::audience_contains(payload->get("aud"), policy_.audience)) {
    return refuse("wrong audience");
  }
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
                       "How access tokens (sessions and OpenID clients') are signed: HS256 with the secret HMAC key (the default), or EdDSA "
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
                     "The `aud` claim of authd's session tokens, written and required: what a resource server "
                     "checks (docs/tokens-and-keys.md). An OpenID client's access token has the client id as "
                     "its only audience instead, authd's other tokens \"authd:<kind>\". Must not be empty nor start "
                     "with \"authd:\" or \"client_\"."),
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
