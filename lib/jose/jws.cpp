#include "authd/jws.hpp"

#include "authd/crypto.hpp"

namespace authd::jws {

std::optional<Parts> split(std::string_view compact) noexcept {
  const auto first = compact.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = compact.find('.', first + 1);
  if (second == std::string_view::npos || compact.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return Parts{compact.substr(0, first), compact.substr(first + 1, second - first - 1), compact.substr(second + 1),
               compact.substr(0, second)};
}

std::expected<Json, std::string> decode_object(std::string_view part, std::string_view what, std::size_t max_depth) {
  auto raw = crypto::base64url_decode(part);
  if (!raw) return std::unexpected(std::string(what) + " is not base64url");
  auto json = Json::parse(*raw, max_depth);
  if (!json) return std::unexpected(std::string(what) + ": " + json.error().message);
  if (!json->is_object()) return std::unexpected(std::string(what) + " is not a JSON object");
  return std::move(*json);
}

bool audience_contains(const Json& aud, std::string_view expected) {
  if (auto single = aud.as_string()) return *single == expected;
  if (!aud.is_array()) return false;
  for (std::size_t i = 0; i < aud.size(); ++i) {
    if (aud.at(i).as_string() == expected) return true;
  }
  return false;
}

}  // namespace authd::jws
