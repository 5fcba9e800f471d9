// Fuzz target: private_key_jwt client assertions (lib/jose/client_assertion.cpp),
// what any caller of POST /token, /revoke and /introspect may send, and the
// JWK Sets clients register (test/fuzz/corpus/client_assertion).
//
// The first input byte picks a mode:
//   'S' header JSON '\n' payload JSON: the target signs them with the
//       client's Ed25519 key, then verifies. Must never crash; when verify
//       accepts, the header's alg is EdDSA or Ed25519, iss = sub = the
//       client, aud holds the token endpoint, exp lies in the allowed window
//       and jti is 1 to 256 characters.
//   'K' a JWK Set: ClientKeys::parse must never crash, and a set it accepts
//       holds at least one key.
//   anything else: the rest is an assertion as received. peek must never
//       crash; verify accepting it would be a forgery (the fuzzer does not
//       hold the private key): abort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/client_assertion.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/key_pair.hpp"

namespace {

using namespace authd;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kClient = "client_0123456789abcdef01234567";
constexpr std::string_view kTokenEndpoint = "https://id.example/token";

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_client_assertion: invariant violated: %s\n", what);
  std::abort();
}

struct Client {
  crypto::KeyPair key;
  jose::ClientKeys keys;
};

const Client& client() {
  static const Client made = [] {
    auto key = crypto::KeyPair::generate(crypto::KeyAlgorithm::ed25519);
    if (!key) std::abort();
    const auto jwk = key->public_jwk();
    auto keys = jose::ClientKeys::parse(R"({"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":")" + jwk.x + "\"}]}");
    if (!keys) std::abort();
    return Client{std::move(*key), std::move(*keys)};
  }();
  return made;
}

jose::ClientAssertionChecks checks() {
  return {.client_id = std::string(kClient), .audiences = {std::string(kTokenEndpoint)}, .now = kNow};
}

void signed_mode(std::string_view rest) {
  const auto newline = rest.find('\n');
  if (newline == std::string_view::npos) return;
  const std::string input = crypto::base64url_encode(rest.substr(0, newline)) + "." +
                            crypto::base64url_encode(rest.substr(newline + 1));
  const std::string assertion = input + "." + crypto::base64url_encode(client().key.sign(input));
  auto verified = jose::verify_client_assertion(assertion, client().keys, checks());
  if (!verified) return;
  const auto header = Json::parse(rest.substr(0, newline));
  const auto payload = Json::parse(rest.substr(newline + 1));
  if (!header || !payload) violated("accepted JSON that does not parse");
  const auto alg = header->get_string("alg");
  if (alg != "EdDSA" && alg != "Ed25519") violated("accepted another alg");
  if (header->has("crit")) violated("accepted crit");
  if (payload->get_string("iss") != kClient || payload->get_string("sub") != kClient) violated("accepted another iss/sub");
  const auto exp = payload->get_integer("exp");
  if (!exp || *exp != verified->expires_at || *exp <= kNow - 30 || *exp > kNow + 330) violated("accepted a bad exp");
  if (verified->jti.empty() || verified->jti.size() > 256) violated("accepted a bad jti");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const auto rest = input.substr(1);
  if (input.front() == 'S') {
    signed_mode(rest);
  } else if (input.front() == 'K') {
    auto keys = jose::ClientKeys::parse(rest);
    if (keys && keys->size() == 0) violated("an empty key set accepted");
  } else {
    (void)jose::peek_client_assertion(rest);
    if (jose::verify_client_assertion(rest, client().keys, checks())) violated("a forged assertion accepted");
  }
  return 0;
}
