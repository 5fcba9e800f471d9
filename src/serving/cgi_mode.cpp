#include "serving/cgi_mode.hpp"

#include <errno.h>  // program_invocation_short_name (GNU)
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "http/base_path.hpp"
#include "http/error_response.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace authd {
namespace {

std::string_view environment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  return value ? std::string_view(value) : std::string_view();
}

// A FastCGI server hands over a listening socket as fd 0; a CGI program gets
// the request body there (a pipe, or a socket that is not listening).
bool fd0_is_listening_socket() {
  int listening = 0;
  socklen_t size = sizeof listening;
  return ::getsockopt(0, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening != 0;
}

Result<http::Request> read_cgi_request(std::size_t max_body) {
  http::Request request = http::request_from_params(environment, program_invocation_short_name);
  const auto length = http::content_length(request, max_body);
  if (!length) return std::unexpected(length.error());
  request.body.resize(*length);
  std::size_t done = 0;
  while (done < *length) {
    const auto n = std::fread(request.body.data() + done, 1, *length - done, stdin);
    if (n == 0) break;
    done += n;
  }
  if (done != *length) return fail(Errc::invalid_input, "request body shorter than Content-Length");
  return request;
}

}  // namespace

bool started_as_cgi() { return environment("GATEWAY_INTERFACE").starts_with("CGI/") && !fd0_is_listening_socket(); }

int serve_cgi_request(App& app) {
  auto request = read_cgi_request(app.server.limits.max_body_bytes);
  const http::Response response = request ? prepare_mounted(app, std::move(*request)).take_answer()
                                           : http::error_response(request.error());
  // One process per request: sleeping here holds nothing else up.
  if (response.not_before) std::this_thread::sleep_until(*response.not_before);
  const std::string wire = http::serialize(response);
  const bool written = std::fwrite(wire.data(), 1, wire.size(), stdout) == wire.size();
  return written && std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace authd
