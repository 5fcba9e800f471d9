// Fuzz target: the parsing of a POST /signup body, as the handler does it:
// Json::parse (duplicate members and nesting refused) -> signup_request_from_json
// -> validate_signup (test/fuzz/corpus/signup_json). Must never crash, leak or
// hang; and whatever validate_signup accepts really is within the limits
// (username 1..64 of [A-Za-z0-9._@+-], password 1..1024 bytes, fullname
// <= 256 bytes without control characters, email with one '@' inside).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/accounts.hpp"
#include "authd/json.hpp"

namespace {

using namespace authd;

constexpr std::size_t kMaxDepth = 16;  // the default max_json_depth

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_signup_json: invariant violated: %s\n", what);
  std::abort();
}

bool username_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '@' || c == '+' || c == '-';
}

void check_accepted(const SignupRequest& request, const CredentialPolicy& policy) {
  if (request.username.empty() || request.username.size() > policy.username_max_length) {
    violated("username length out of bounds");
  }
  for (unsigned char c : request.username) {
    if (!username_char(c)) violated("username with a forbidden character");
  }
  if (request.password.size() < policy.password_min_length || request.password.size() > policy.password_max_length) {
    violated("password length out of bounds");
  }
  if (request.fullname.size() > policy.fullname_max_length) violated("fullname too long");
  for (unsigned char c : request.fullname) {
    if (c < 0x20 || c == 0x7f) violated("fullname with a control character");
  }
  const auto at = request.email.find('@');
  if (request.email.size() > policy.email_max_length || at == std::string::npos || at == 0 ||
      at + 1 == request.email.size()) {
    violated("implausible email accepted");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto body = Json::parse(text, kMaxDepth);
  if (!body) {
    if (body.error().code != Errc::invalid_input) violated("a parse failure that is not bad_request");
    return 0;
  }
  // What we parsed, we can write and read back.
  const std::string dumped = body->dump();
  auto again = Json::parse(dumped, kMaxDepth);
  if (!again) violated("dump() of a parsed document does not parse again");
  if (again->dump() != dumped) violated("dump() is not stable");

  auto request = signup_request_from_json(*body);
  if (!request) {
    if (request.error().code != Errc::invalid_input) violated("a field error that is not bad_request");
    return 0;
  }
  const CredentialPolicy policy;
  auto valid = validate_signup(*request, policy);
  if (valid) check_accepted(*request, policy);
  else if (valid.error().code != Errc::invalid_input) violated("a validation error that is not bad_request");
  return 0;
}
