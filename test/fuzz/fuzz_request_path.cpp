// Fuzz target: the request-path canonicaliser (lib/guard/request_path.cpp)
// that the authorizer and GET /auth/check run before access rules match.
// Besides no crash, leak or hang, what it accepts must be: idempotent (with
// and without decoding), never longer than its input, absolute, free of
// empty, "." and ".." segments (it never escapes the root), of ';', '\',
// '%' and control characters.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/request_path.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_request_path: invariant violated: %s\n", what);
  std::abort();
}

void check(std::string_view input, bool decode) {
  auto path = authd::canonical_path(input, decode);
  if (!path) return;
  const std::string& p = *path;
  if (p.size() > input.size()) violated("longer than its input");
  if (p.empty() || p.front() != '/') violated("not absolute");
  for (unsigned char c : p) {
    if (c < 0x20 || c == 0x7f || c == ';' || c == '\\') violated("a control character, ';' or '\\' left");
    if (decode && c == '%') violated("a '%' left after decoding");
  }
  if (p.find("//") != std::string::npos) violated("an empty segment left");
  std::string_view rest = p;
  while (!rest.empty()) {
    rest.remove_prefix(1);
    const auto segment = rest.substr(0, std::min(rest.find('/'), rest.size()));
    if (segment == "." || segment == "..") violated("a dot segment left: may escape the root");
    rest.remove_prefix(segment.size());
  }
  auto again = authd::canonical_path(p, decode);
  if (!again || *again != p) violated("not idempotent");
  auto undecoded = authd::canonical_path(p, false);
  if (!undecoded || *undecoded != p) violated("not idempotent without decoding");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check(input, true);
  check(input, false);
  (void)authd::canonical_uri_path(input);
  return 0;
}
