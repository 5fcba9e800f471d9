// The JWS compact serialization (RFC 7515 §7.1) taken apart, once for both
// our own tokens (lib/token) and identity providers' ID tokens (lib/oauth).
// No cryptography here: callers check the algorithm and the signature.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "authd/json.hpp"

namespace authd::jws {

struct Parts {
  std::string_view header;         // base64url
  std::string_view payload;        // base64url
  std::string_view signature;      // base64url
  std::string_view signing_input;  // header '.' payload
};

// Exactly three dot-separated parts, or nullopt.
std::optional<Parts> split(std::string_view compact) noexcept;

// One base64url part decoded into a JSON object, at most `max_depth` deep.
// On failure: why, in words ("header is not base64url", ...), naming `what`.
std::expected<Json, std::string> decode_object(std::string_view part, std::string_view what, std::size_t max_depth);

// Whether an `aud` claim (a string or an array of strings) holds `expected`.
bool audience_contains(const Json& aud, std::string_view expected);

}  // namespace authd::jws
