#include "authd/id_token.hpp"

#include "authd/crypto.hpp"
#include "authd/jws.hpp"
#include "authd/second_factor_methods.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxHintBytes = 8192;
constexpr std::size_t kMaxDepth = 4;

}  // namespace

std::string acr_of(std::string_view amr) { return second_factor_acr(amr); }

std::string at_hash(std::string_view access_token) {
  const auto digest = crypto::sha256(access_token);
  return crypto::base64url_encode(std::span<const unsigned char>(digest.data(), digest.size() / 2));
}

namespace {

// Text a claim can hold: jansson makes no string of bytes that are not
// UTF-8 (a claim set to none would leave the token without it, unsaid), and
// a NUL would make a token that no parser of ours reads back.
bool json_text(std::string_view text) {
  return text.find('\0') == std::string_view::npos && Json::string(text).is_string();
}

}  // namespace

Result<std::string> sign_id_token(KeyRing& ring, const IdToken& token, std::int64_t now) {
  for (const std::string_view text : {std::string_view(token.issuer), std::string_view(token.subject),
                                      std::string_view(token.audience), std::string_view(token.nonce),
                                      std::string_view(token.amr), std::string_view(token.sid)}) {
    if (!json_text(text)) return fail(Errc::invalid_input, "an ID token's claim is not UTF-8 text without NUL");
  }
  const auto keys = ring.keys(KeyRing::Check::always, now);
  const auto key = keys->by_kid.find(keys->current);
  if (key == keys->by_kid.end()) return fail(Errc::unavailable, "no ID-token key loaded yet (the key store is unreachable)");
  Json header = Json::object();
  header.set("alg", Json::string(crypto::jws_algorithm(ring.algorithm())))
      .set("typ", Json::string("JWT"))
      .set("kid", Json::string(keys->current));
  Json amr = Json::array();
  for (std::size_t from = 0; from < token.amr.size();) {
    const auto end = std::min(token.amr.find(' ', from), token.amr.size());
    if (end > from) amr.append(Json::string(std::string_view(token.amr).substr(from, end - from)));
    from = end + 1;
  }
  Json payload = Json::object();
  payload.set("iss", Json::string(token.issuer))
      .set("sub", Json::string(token.subject))
      .set("aud", Json::string(token.audience))
      .set("exp", Json::integer(now + kIdTokenTtl))
      .set("iat", Json::integer(now))
      .set("auth_time", Json::integer(token.auth_time));
  if (!token.nonce.empty()) payload.set("nonce", Json::string(token.nonce));
  if (amr.size() > 0) payload.set("amr", std::move(amr));
  payload.set("acr", Json::string(acr_of(token.amr)));
  if (!token.access_token.empty()) payload.set("at_hash", Json::string(at_hash(token.access_token)));
  payload.set("azp", Json::string(token.audience));
  if (!token.sid.empty()) payload.set("sid", Json::string(token.sid));
  std::string signed_token = crypto::base64url_encode(header.dump()) + "." + crypto::base64url_encode(payload.dump());
  const auto signature = key->second.sign(signed_token);
  if (signature.empty()) return fail(Errc::internal, "ID-token signature failed");
  return signed_token + "." + crypto::base64url_encode(signature);
}

Result<Json> verify_id_token_hint(KeyRing& ring, std::string_view token, std::string_view issuer, std::int64_t now) {
  if (token.size() > kMaxHintBytes) return fail(Errc::invalid_token, "id_token_hint too long");
  const auto parts = jws::split(token);
  if (!parts) return fail(Errc::invalid_token, "id_token_hint is not a JWS");
  auto header = jws::decode_object(parts->header, "header", kMaxDepth);
  if (!header) return fail(Errc::invalid_token, header.error());
  const auto kid = header->get_string("kid");
  if (!kid || header->get_string("alg") != crypto::jws_algorithm(ring.algorithm())) {
    return fail(Errc::invalid_token, "id_token_hint: unexpected alg or no kid");
  }
  auto keys = ring.keys(KeyRing::Check::periodic, now);
  auto key = keys->by_kid.find(*kid);
  if (key == keys->by_kid.end()) {  // maybe rotated a moment ago in another process (authctl key rotate --id-token)
    keys = ring.keys(KeyRing::Check::always, now);
    key = keys->by_kid.find(*kid);
  }
  if (key == keys->by_kid.end()) return fail(Errc::invalid_token, "id_token_hint: unknown kid");
  const auto signature = crypto::base64url_decode(parts->signature);
  if (!signature || !key->second.verify(parts->signing_input, *signature)) {
    return fail(Errc::invalid_token, "id_token_hint: bad signature");
  }
  auto payload = jws::decode_object(parts->payload, "payload", kMaxDepth);
  if (!payload) return fail(Errc::invalid_token, payload.error());
  if (payload->get_string("iss") != issuer) return fail(Errc::invalid_token, "id_token_hint: wrong issuer");
  return std::move(*payload);
}

}  // namespace authd
