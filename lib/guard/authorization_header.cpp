#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>

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
  // A loop, not find_first_of(" \t"), which calls memchr once per byte.
  std::size_t space = 0;
  while (space < header.size() && header[space] != ' ' && header[space] != '\t') ++space;
  if (space == header.size()) return {header, {}};
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

// How many of `text`'s first bytes are b64token characters (not '='), 16 at a
// time while they all are: every guarded request checks a token of 150 to 800
// of them, byte by byte the largest cost of the header's parse. GCC's vector
// extension compiles to SSE2 on x86-64 and NEON on arm64; a byte over 0x7f is
// negative in a signed char and fails every range.
std::size_t b64token_blocks(std::string_view text) {
  using Block = signed char __attribute__((vector_size(16)));
  std::size_t i = 0;
  for (; i + sizeof(Block) <= text.size(); i += sizeof(Block)) {
    Block c;
    std::memcpy(&c, text.data() + i, sizeof c);
    const Block folded = c | 0x20;  // a letter in lower case
    const Block ok = ((folded >= 'a') & (folded <= 'z')) | ((c >= '+') & (c <= '9') & (c != ',')) | (c == '_') |
                     (c == '~');  // '+' to '9' is + , - . / and the digits: all but ','
    std::uint64_t lanes[2];
    std::memcpy(lanes, &ok, sizeof lanes);
    if ((lanes[0] & lanes[1]) != ~std::uint64_t{0}) break;
  }
  return i;
}

bool is_b64token(std::string_view token) {
  std::size_t i = b64token_blocks(token);
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

Result<std::string_view> bearer_token(std::string_view header) {
  const auto [scheme, token] = split_scheme(header);
  if (scheme.empty() || !iequals(scheme, "Bearer")) return fail(Errc::no_credentials, "no bearer credentials");
  if (token.empty()) return fail(Errc::malformed_credentials, "Bearer without a token");
  return token;
}

Result<void> check_b64token(std::string_view token) {
  if (!is_b64token(token)) return fail(Errc::malformed_credentials, "malformed bearer token");
  return {};
}

Result<std::string_view> parse_bearer_authorization(std::string_view header) {
  auto token = bearer_token(header);
  if (!token) return token;
  if (auto syntax = check_b64token(*token); !syntax) return std::unexpected(syntax.error());
  return token;
}

}  // namespace authd
