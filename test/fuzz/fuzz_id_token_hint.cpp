// Fuzz target: the id_token_hint that any browser may bring to GET
// /end_session (lib/oidc/id_token.cpp verify_id_token_hint), the one JWT
// authd parses that it signed itself for someone else
// (test/fuzz/corpus/id_token_hint).
//
// The first input byte picks a mode:
//   'I' subject '\n' audience '\n' nonce: sign_id_token makes an ID token of
//       them with the ring's key; when it signs, verify_id_token_hint must
//       accept it for our issuer with the same sub and aud, and refuse it for
//       another issuer.
//   anything else: the rest is a hint as received. Accepting it would be a
//       forgery (the fuzzer does not hold the private key): abort.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "authd/id_token.hpp"
#include "authd/json.hpp"
#include "authd/key_pair.hpp"
#include "authd/key_ring.hpp"

namespace {

using namespace authd;

constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kIssuer = "https://id.example";

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_id_token_hint: invariant violated: %s\n", what);
  std::abort();
}

// An Ed25519 ring (fast to sign and verify) in a directory of its own.
KeyRing& ring() {
  static const std::shared_ptr<KeyRing> made = [] {
    char directory[] = "/tmp/fuzz_id_token_hint.XXXXXX";
    if (!mkdtemp(directory)) std::abort();
    auto opened = KeyRing::open(std::filesystem::path(directory), crypto::KeyAlgorithm::ed25519);
    if (!opened) std::abort();
    return std::move(*opened);
  }();
  return *made;
}

void issued_mode(std::string_view rest) {
  const auto first = rest.find('\n');
  if (first == std::string_view::npos) return;
  const auto second = rest.find('\n', first + 1);
  if (second == std::string_view::npos) return;
  IdToken token{.issuer = std::string(kIssuer),
                .subject = std::string(rest.substr(0, first)),
                .audience = std::string(rest.substr(first + 1, second - first - 1)),
                .nonce = std::string(rest.substr(second + 1)),
                .amr = "pwd",
                .auth_time = kNow,
                .access_token = {},
                .sid = {}};
  auto signed_token = sign_id_token(ring(), token, kNow);
  if (!signed_token) return;  // text JSON cannot hold (not UTF-8)
  auto hint = verify_id_token_hint(ring(), *signed_token, kIssuer, kNow);
  if (!hint) violated("an ID token authd signed is refused as a hint");
  if (hint->get_string("sub") != token.subject || hint->get_string("aud") != token.audience)
    violated("the hint's sub or aud differ from what was signed");
  if (verify_id_token_hint(ring(), *signed_token, "https://other.example", kNow))
    violated("a hint accepted for another issuer");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.empty()) return 0;
  const auto rest = input.substr(1);
  if (input.front() == 'I') {
    issued_mode(rest);
  } else if (verify_id_token_hint(ring(), rest, kIssuer, kNow)) {
    violated("a forged hint accepted");
  }
  return 0;
}
