// Fuzz target: the WebAuthn relying-party checks (lib/mfa/webauthn.cpp) and
// the CBOR reader under them (lib/mfa/cbor_reader.cpp, libcbor): what any
// client can send to /me/mfa/webauthn/register/finish and /signin/mfa
// (test/fuzz/corpus/webauthn).
//
// The first input byte picks a mode:
//   'R' the rest is an attestationObject, with valid client data for the
//       challenge: must never crash (accepting is fine: no secret is needed
//       to register a key of one's own).
//   'A' the rest is authenticatorData, with valid client data and a fixed
//       signature, for a stored credential whose private key nobody has:
//       accepting it would be a forgery: abort.
//   anything else: the rest is CBOR: decode, and a decoded value must
//       decode again to the same structure after encode().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mfa/cbor.hpp"
#include "mfa/webauthn.hpp"

namespace {

using namespace authd;

const webauthn::Policy kPolicy{"example.org", {"https://example.org"}, false};
constexpr std::string_view kChallenge = "fuzz-challenge";
// base64url("fuzz-challenge") = ZnV6ei1jaGFsbGVuZ2U
const std::string kCreate = R"({"type":"webauthn.create","challenge":"ZnV6ei1jaGFsbGVuZ2U","origin":"https://example.org"})";
const std::string kGet = R"({"type":"webauthn.get","challenge":"ZnV6ei1jaGFsbGVuZ2U","origin":"https://example.org"})";

// A COSE EC2 P-256 key: the generator point G (whose private key is 1, but
// the signature below is not made with it).
std::string credential_key() {
  const unsigned char x[] = {0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
                             0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96};
  const unsigned char y[] = {0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
                             0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5};
  return cbor::encode(cbor::Value::of_map(
      {{cbor::Value::of_int(1), cbor::Value::of_int(2)},
       {cbor::Value::of_int(3), cbor::Value::of_int(-7)},
       {cbor::Value::of_int(-1), cbor::Value::of_int(1)},
       {cbor::Value::of_int(-2), cbor::Value::of_bytes(std::string_view(reinterpret_cast<const char*>(x), sizeof x))},
       {cbor::Value::of_int(-3), cbor::Value::of_bytes(std::string_view(reinterpret_cast<const char*>(y), sizeof y))}}));
}

bool same(const cbor::Value& a, const cbor::Value& b) {
  if (a.type != b.type || a.integer != b.integer || a.data != b.data || a.items.size() != b.items.size() ||
      a.entries.size() != b.entries.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (!same(a.items[i], b.items[i])) return false;
  }
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (!same(a.entries[i].first, b.entries[i].first) || !same(a.entries[i].second, b.entries[i].second)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0]) {
    case 'R':
      (void)webauthn::verify_registration(kPolicy, kChallenge, kCreate, rest);
      break;
    case 'A': {
      static const webauthn::Credential stored{"id", credential_key(), 0};
      const std::string signature(70, '\x30');
      if (webauthn::verify_assertion(kPolicy, kChallenge, stored, kGet, rest, signature)) std::abort();
      break;
    }
    default: {
      auto value = cbor::decode(rest);
      if (!value) break;
      auto again = cbor::decode(cbor::encode(*value));
      if (!again || (value->type != cbor::Value::Type::other && !same(*value, *again))) std::abort();
      break;
    }
  }
  return 0;
}
