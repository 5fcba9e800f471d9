// Fuzz target: TokenService::verify, the JWT parser/verifier that stands
// between any HTTP client and every guarded route (test/fuzz/corpus/token).
//
// The first input byte picks a mode, so that the fuzzer also gets past the
// MAC (which it could never forge) and exercises the claim checks:
//   'S' header JSON '\n' payload JSON: the target encodes and MACs them with
//       the key, then verifies. Must never crash; when verify accepts, the
//       header really is {"alg":"HS256","typ":"at+jwt"} without crit and the
//       claims are valid (exp in the future, sub present, iss/aud ours).
//   'I' subject '\n' username: issue() then verify() must round-trip (when the
//       subject is non-empty UTF-8), and one changed character anywhere in the
//       token must make verify() refuse it; a state token never verifies as an
//       access token.
//   anything else: the rest is a token as received. Accepting it would be a
//       forgery (the fuzzer does not know the key): abort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/token.hpp"

namespace {

using namespace authd;

constexpr std::int64_t kNow = 1'700'000'000;
const std::string kKey = "fuzz-key-0123456789abcdef-0123456789";

const TokenService& service() {
  static const TokenService tokens = [] {
    TokenPolicy policy;
    policy.leeway = std::chrono::seconds(30);
    auto created = TokenService::create(SigningKey(kKey), policy);
    if (!created) std::abort();
    return std::move(*created);
  }();
  return tokens;
}

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_token: invariant violated: %s\n", what);
  std::abort();
}

std::span<const unsigned char> bytes_of(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

std::string sign(std::string_view header, std::string_view payload) {
  std::string token = crypto::base64url_encode(header) + "." + crypto::base64url_encode(payload);
  const auto mac = crypto::hmac_sha256(bytes_of(kKey), token);
  return token + "." + crypto::base64url_encode(std::span<const unsigned char>(mac));
}

void signed_mode(std::string_view rest) {
  const auto newline = rest.find('\n');
  if (newline == std::string_view::npos) return;
  const auto header_text = rest.substr(0, newline);
  const auto payload_text = rest.substr(newline + 1);
  const std::string token = sign(header_text, payload_text);
  auto claims = service().verify(token, kAccessTokenType, kNow);
  if (!claims) return;

  auto header = Json::parse(header_text, 64);
  if (!header || !header->is_object()) violated("accepted a header that is not a JSON object");
  if (header->get_string("alg") != "HS256") violated("accepted an algorithm other than HS256");
  if (header->get_string("typ") != kAccessTokenType) violated("accepted a token of another type");
  if (header->has("crit")) violated("accepted a crit header");
  auto payload = Json::parse(payload_text, 64);
  if (!payload || !payload->is_object()) violated("accepted a payload that is not a JSON object");
  if (payload->get_string("iss") != service().policy().issuer) violated("accepted a foreign issuer");
  const auto exp = payload->get_integer("exp");
  if (!exp || *exp <= kNow - service().policy().leeway.count()) violated("accepted an expired token");
  if (claims->expires_at != *exp) violated("exp claim differs from the payload");
  if (claims->subject.empty()) violated("accepted a token without sub");
}

void issue_mode(std::string_view rest) {
  const auto newline = rest.find('\n');
  const auto subject = rest.substr(0, newline);
  const auto username = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
  const std::string token = service().issue(kAccessTokenType, subject, username, kNow);
  auto claims = service().verify(token, kAccessTokenType, kNow);
  // jansson refuses invalid UTF-8 (the claim is then left out) and a NUL
  // inside a string when parsing: such a subject cannot round-trip.
  const bool representable = !subject.empty() && Json::string(subject).is_string() &&
                             subject.find('\0') == std::string_view::npos &&
                             username.find('\0') == std::string_view::npos;
  if (representable) {
    if (!claims) violated("a freshly issued token does not verify");
    if (claims->subject != subject) violated("sub does not round-trip");
    if (Json::string(username).is_string() && claims->username != username) violated("name does not round-trip");
  }
  if (service().verify(token, kOAuthStateTokenType, kNow)) violated("an access token verified as a state token");
  const std::string state = service().issue(kOAuthStateTokenType, subject, username, kNow);
  if (service().verify(state, kAccessTokenType, kNow)) violated("a state token verified as an access token");

  // One character changed, at a position and to a value the input picks.
  if (token.empty()) return;
  std::size_t seed = std::hash<std::string_view>{}(rest);
  std::string tampered = token;
  const std::size_t at = seed % tampered.size();
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=";
  char replacement = kAlphabet[(seed / tampered.size()) % kAlphabet.size()];
  if (replacement == tampered[at]) replacement = replacement == 'A' ? 'B' : 'A';
  tampered[at] = replacement;
  if (service().verify(tampered, kAccessTokenType, kNow)) violated("a token with one character changed verified");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto rest = input.substr(1);
  switch (input.front()) {
    case 'S': signed_mode(rest); break;
    case 'I': issue_mode(rest); break;
    default:
      if (service().verify(rest, kAccessTokenType, kNow)) violated("accepted a token the fuzzer forged");
      (void)service().verify(rest, kOAuthStateTokenType, kNow);
      break;
  }
  return 0;
}
