// Helpers for the security_*_test.cpp files: hand-made JWS tokens (any header,
// any payload, MACed with any key), so that each test changes exactly one
// thing about an otherwise valid access token.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "authd/crypto.hpp"
#include "authd/token.hpp"

namespace authd::sec {

inline constexpr std::int64_t kNow = 1'700'000'000;
inline const std::string kKey = "security-test-key-0123456789abcdef";  // 34 bytes
inline constexpr std::string_view kSub = "0123456789abcdef01234567";
inline constexpr std::string_view kHeader = R"({"alg":"HS256","typ":"at+jwt"})";

inline TokenService service(TokenPolicy policy = {}, std::string key = kKey) {
  auto created = TokenService::create(SigningKey(std::move(key)), std::move(policy));
  if (!created) throw std::runtime_error("TokenService::create: " + created.error().message);
  return std::move(*created);
}

inline std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

inline std::string b64u(std::string_view s) { return crypto::base64url_encode(s); }

inline std::string mac_of(std::string_view signing_input, std::string_view key = kKey) {
  const auto mac = crypto::hmac_sha256(bytes_of(key), signing_input);
  return crypto::base64url_encode(std::span<const unsigned char>(mac));
}

// b64url(header) "." b64url(payload) "." b64url(HMAC-SHA256(key, those two)).
inline std::string forge(std::string_view header, std::string_view payload, std::string_view key = kKey) {
  const std::string input = b64u(header) + "." + b64u(payload);
  return input + "." + mac_of(input, key);
}

// A payload valid at kNow under the default policy; `extra` is inserted
// verbatim before the closing brace (start it with a comma).
inline std::string payload(std::string_view extra = "", std::int64_t exp = kNow + 600) {
  return R"({"iss":"authd","aud":"authd","sub":")" + std::string(kSub) + R"(","name":"alice","iat":)" +
         std::to_string(kNow - 10) + R"(,"exp":)" + std::to_string(exp) + R"(,"jti":"j1")" + std::string(extra) +
         "}";
}

// A payload made of exactly `members` (no defaults), e.g. R"("sub":"x","exp":1)".
inline std::string bare_payload(std::string_view members) { return "{" + std::string(members) + "}"; }

}  // namespace authd::sec
