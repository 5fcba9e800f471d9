// Fuzz target: the RFC 4515 escaping of a typed username placed in the
// directory's user filter (lib/directory/directory_settings.cpp). Besides no
// crash, leak or hang, the escaped value must hold no '*', '(' or ')', no
// byte outside printable ASCII, and only '\' followed by two hex digits; it
// must decode back to the input; and the filter built from it must keep the
// pattern's parentheses exactly (the value adds no clause).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/directory.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_directory_filter: invariant violated: %s\n", what);
  std::abort();
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int parentheses(std::string_view text) {
  int n = 0;
  for (const char c : text) n += c == '(' || c == ')';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string escaped = authd::escape_filter_value(input);
  std::string decoded;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const auto c = static_cast<unsigned char>(escaped[i]);
    if (c == '*' || c == '(' || c == ')') violated("a filter metacharacter left");
    if (c < 0x20 || c >= 0x7f) violated("a byte outside printable ASCII left");
    if (c != '\\') {
      decoded += static_cast<char>(c);
      continue;
    }
    if (i + 2 >= escaped.size()) violated("a '\\' without two hex digits");
    const int high = hex(escaped[i + 1]), low = hex(escaped[i + 2]);
    if (high < 0 || low < 0) violated("a '\\' without two hex digits");
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  if (decoded != input) violated("does not decode back to the input");
  const std::string_view pattern = "(&(objectClass=inetOrgPerson)(uid={username}))";
  const std::string filter = authd::expand_filter(pattern, "username", input);
  if (parentheses(filter) != parentheses(pattern)) violated("the value changed the filter's parentheses");
  return 0;
}
