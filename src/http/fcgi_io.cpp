#include "http/fcgi_io.hpp"

#include <errno.h>  // program_invocation_short_name (GNU)

#include <string>

namespace authd::http {
namespace {

std::string_view param_of(FCGX_ParamArray env, const char* name) {
  const char* value = FCGX_GetParam(name, env);
  return value ? std::string_view(value) : std::string_view();
}

}  // namespace

Result<Request> read_request(FCGX_Request& fcgi, std::size_t max_body) {
  FCGX_ParamArray env = fcgi.envp;
  Request request = request_from_params([env](const char* name) { return param_of(env, name); },
                                        program_invocation_short_name);

  // An authorizer sees the original request's CONTENT_LENGTH but no body
  // (FastCGI 1.0 §6.3): there is nothing to read.
  if (param_of(env, "FCGI_ROLE") == "AUTHORIZER") return request;
  const auto length = content_length(request, max_body);
  if (!length) return std::unexpected(length.error());
  request.body.resize(*length);
  std::size_t done = 0;
  while (done < *length) {
    const int n = FCGX_GetStr(request.body.data() + done, static_cast<int>(*length - done), fcgi.in);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != *length) return fail(Errc::invalid_input, "request body shorter than Content-Length");
  return request;
}

void write_response(FCGX_Request& fcgi, const Response& response) {
  const std::string wire = serialize(response);
  FCGX_PutStr(wire.data(), static_cast<int>(wire.size()), fcgi.out);
}

}  // namespace authd::http
