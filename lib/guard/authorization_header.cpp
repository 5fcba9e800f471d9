#include <array>
#include <cctype>

#include "authd/authorization.hpp"
#include "authd/crypto.hpp"
#include "authd/text.hpp"

namespace authd {
namespace {

using text::has_control;
using text::iequals;

// Splits "Scheme  rest" into scheme and rest (rest with leading spaces removed).
std::pair<std::string_view, std::string_view> split_scheme(std::string_view header) {
  header = text::trim_ows(header);
  const auto space = header.find_first_of(" \t");
  if (space == std::string_view::npos) return {header, {}};
  return {header.substr(0, space), text::trim_ows(header.substr(space))};
}


// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
constexpr std::array<bool, 256> kB64TokenChars = [] {
  std::array<bool, 256> table{};
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (char c : {'-', '.', '_', '~', '+', '/'}) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool is_b64token(std::string_view token) {
  std::size_t i = 0;
  for (; i < token.size(); ++i) {
    if (!kB64TokenChars[static_cast<unsigned char>(token[i])]) break;
  }
  if (i == 0) return false;
  for (; i < token.size(); ++i) {
    if (token[i] != '=') return false;
  }
  return true;
}

}  // namespace

std::optional<BasicCredentials> parse_basic_authorization(std::string_view header) {
  const auto [scheme, rest] = split_scheme(header);
  if (!iequals(scheme, "Basic") || rest.empty()) return std::nullopt;
  auto decoded = crypto::base64_decode(rest);
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  BasicCredentials credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
  crypto::wipe(decoded->data(), decoded->size());
  if (has_control(credentials.username) || has_control(credentials.password)) return std::nullopt;
  return credentials;
}

Result<std::string_view> parse_bearer_authorization(std::string_view header) {
  const auto [scheme, token] = split_scheme(header);
  if (scheme.empty() || !iequals(scheme, "Bearer")) return fail(Errc::no_credentials, "no bearer credentials");
  if (token.empty()) return fail(Errc::malformed_credentials, "Bearer without a token");
  if (!is_b64token(token)) return fail(Errc::malformed_credentials, "malformed bearer token");
  return token;
}

}  // namespace authd
