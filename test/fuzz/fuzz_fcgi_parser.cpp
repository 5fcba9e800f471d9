// libFuzzer target: the FastCGI request reader (src/fcgi/request_parser.*),
// which reads whatever a peer on authd's socket sends. Bytes arrive in pieces
// whose sizes the input's first byte chooses. Checked: no crash or leak,
// every step is one of the documented kinds, a reject or broken step carries
// an error, a request comes with its role parameter first and within the caps
// (body bytes, parameter count).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fcgi/request_parser.hpp"

using authd::fcgi::Limits;
using authd::fcgi::RequestParser;
using Kind = authd::fcgi::Step::Kind;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  Limits limits;
  limits.max_params_bytes = 4096;
  limits.max_body_bytes = 1024;
  limits.max_request_params = 64;
  limits.early_answer_discard_bytes = 4096;
  RequestParser parser(limits);
  std::string replies;
  while (!bytes.empty()) {
    const std::size_t n = bytes.size() < piece ? bytes.size() : piece;
    parser.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    for (;;) {
      auto step = parser.next(replies);
      if (step.kind == Kind::need_more) break;
      if (step.kind == Kind::broken) {
        if (!step.error) __builtin_trap();
        return 0;  // the connection would be closed
      }
      if (step.kind == Kind::reject && !step.error) __builtin_trap();
      if (step.kind == Kind::request) {
        const auto request = parser.take_request();
        if (!request.params || request.params->empty() || (*request.params)[0].first != "FCGI_ROLE") __builtin_trap();
        if (request.body.size() > limits.max_body_bytes) __builtin_trap();
        if (request.params->size() > limits.max_request_params + 1) __builtin_trap();  // + FCGI_ROLE
      }
    }
    if (replies.size() > (1u << 20)) replies.clear();  // a web server would read them
  }
  return 0;
}
