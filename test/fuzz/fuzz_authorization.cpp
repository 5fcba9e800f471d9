// Fuzz target: the Authorization header parsers, parse_basic_authorization
// (POST /signin) and parse_bearer_authorization (every guarded route), on the
// raw header value as lighttpd passes it (test/fuzz/corpus/authorization).
// Must never crash, leak or hang; and what they accept is well formed:
// Basic gives a non-empty user-id without ':' or control characters that
// re-encodes to the same credentials; Bearer gives a non-empty RFC 6750
// b64token that lies inside the header, and a header not naming Bearer is
// missing_token, never invalid_request.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/authorization.hpp"
#include "authd/crypto.hpp"

namespace {

using namespace authd;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_authorization: invariant violated: %s\n", what);
  std::abort();
}

bool has_control(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

bool b64token_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '+' || c == '/' || c == '=';
}

void check_basic(std::string_view header) {
  auto credentials = parse_basic_authorization(header);
  if (!credentials) return;
  if (credentials->username.empty()) violated("Basic: empty user-id accepted");
  if (credentials->username.find(':') != std::string::npos) violated("Basic: ':' in the user-id");
  if (has_control(credentials->username) || has_control(credentials->password)) {
    violated("Basic: control character accepted");
  }
  const std::string again =
      "Basic " + crypto::base64_encode(credentials->username + ":" + credentials->password);
  auto reparsed = parse_basic_authorization(again);
  if (!reparsed || reparsed->username != credentials->username || reparsed->password != credentials->password) {
    violated("Basic: credentials do not round-trip");
  }
}

void check_bearer(std::string_view header) {
  auto token = parse_bearer_authorization(header);
  if (!token) {
    const auto code = token.error().code;
    if (code != Errc::no_credentials && code != Errc::malformed_credentials) violated("Bearer: unexpected error code");
    return;
  }
  if (token->empty()) violated("Bearer: empty token accepted");
  if (token->data() < header.data() || token->data() + token->size() > header.data() + header.size()) {
    violated("Bearer: token view outside the header");
  }
  for (unsigned char c : *token) {
    if (!b64token_char(c)) violated("Bearer: character outside b64token accepted");
  }
  const auto equals = token->find('=');
  if (equals != std::string_view::npos && token->find_first_not_of('=', equals) != std::string_view::npos) {
    violated("Bearer: '=' inside the token accepted");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // lighttpd hands over a NUL-terminated C string: nothing after a NUL reaches us.
  std::string_view header(reinterpret_cast<const char*>(data), size);
  header = header.substr(0, header.find('\0'));
  check_basic(header);
  check_bearer(header);
  return 0;
}
