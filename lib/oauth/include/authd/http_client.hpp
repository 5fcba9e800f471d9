// Outgoing HTTP(S) for talking to identity providers. Only lib/oauth/http_client.cpp
// includes libcurl.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"

namespace authd {

struct HttpTimeouts {
  std::chrono::milliseconds connect{3000};
  std::chrono::milliseconds total{10000};
};

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
};

using FormFields = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(HttpTimeouts timeouts);

  // Only http and https; redirects are not followed; a body over 1 MiB is
  // refused. Any HTTP status is a successful Result (the caller judges it).
  // Errors: bad_gateway (refused, unresolvable, TLS failure, garbled or
  // oversized answer), gateway_timeout (connect or total timeout).
  Result<HttpResponse> get(std::string_view url, const std::vector<std::string>& headers) const;
  // POST application/x-www-form-urlencoded.
  Result<HttpResponse> post_form(std::string_view url, const FormFields& form,
                                 const std::vector<std::string>& headers) const;

  // RFC 3986 percent-encoding of everything but unreserved characters.
  static std::string url_encode(std::string_view text);
  // "a=1&b=2" with both sides encoded.
  static std::string form_encode(const FormFields& fields);

 private:
  HttpTimeouts timeouts_;
};

}  // namespace authd
