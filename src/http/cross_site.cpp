#include "http/cross_site.hpp"

#include <string>

#include "authd/text.hpp"

namespace authd::http {

Result<void> refuse_cross_site(const Request& request) {
  const auto fetch_site = request.param("HTTP_SEC_FETCH_SITE");
  if (!fetch_site.empty()) {
    if (fetch_site == "same-origin" || fetch_site == "none") return {};
    return fail(Errc::cross_site, "cross-site request refused (Sec-Fetch-Site: " + std::string(fetch_site) + ")");
  }
  const auto origin = request.param("HTTP_ORIGIN");
  if (origin.empty()) return {};
  const bool forwarded = request.from_trusted_proxy && !request.param("HTTP_X_FORWARDED_HOST").empty();
  const auto host = forwarded ? request.param("HTTP_X_FORWARDED_HOST") : request.param("HTTP_HOST");
  std::string scheme = request.https ? "https" : "http";
  if (forwarded && !request.param("HTTP_X_FORWARDED_PROTO").empty()) {
    scheme = std::string(request.param("HTTP_X_FORWARDED_PROTO"));
  }
  if (!host.empty() && text::iequals(origin, scheme + "://" + std::string(host))) return {};
  return fail(Errc::cross_site, "cross-site request refused (Origin is not this site)");
}

Result<void> refuse_cross_site_change(const Request& request) {
  const auto method = request.method;
  if (method == "GET" || method == "HEAD" || method == "OPTIONS") return {};
  return refuse_cross_site(request);
}

Result<void> require_json_body(const Request& request) {
  auto type = request.param("CONTENT_TYPE");
  type = text::trim_ows(type.substr(0, std::min(type.find(';'), type.size())));
  if (text::iequals(type, "application/json")) return {};
  return fail(Errc::unsupported_type, "Content-Type must be application/json");
}

Result<void> require_form_body(const Request& request) {
  auto type = request.param("CONTENT_TYPE");
  type = text::trim_ows(type.substr(0, std::min(type.find(';'), type.size())));
  if (text::iequals(type, "application/x-www-form-urlencoded")) return {};
  return fail(Errc::unsupported_type, "Content-Type must be application/x-www-form-urlencoded");
}

}  // namespace authd::http
