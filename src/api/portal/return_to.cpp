// The way back from the sign-in portal, decided on the server (an open
// redirect must not depend on page script):
//   GET /auth/return?rd=ADDRESS (or ?return_to=ADDRESS)
//       303 to ADDRESS when it is a path on this site or a URL on an origin of
//       portal_return_origins, else 303 to portal_default_return. The portal
//       sends the browser here after a sign-in.
//   GET /auth/portal   with X-Original-URI (a forward-auth proxy's 401 for a
//       browser, see conf/nginx/authd-forward-auth.conf)
//       302 to /login?rd=<the original URI, percent-encoded>: the proxy cannot
//       encode it itself, and an unencoded '&' or '+' would corrupt it.
// Both answer {"location": ...} too, and are never cached.
#include "authd/return_to.hpp"
#include "api/portal/routes.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

constexpr std::string_view kPortalPath = "/login";

http::Response redirect(int status, const std::string& location) {
  Json body = Json::object();
  body.set("location", Json::string(location));
  auto response = http::Response::json(status, body);
  response.header("Location", location).header("Cache-Control", "no-store");
  return response;
}

}  // namespace

HandlerResult return_to(App& app, const http::Request& request, const RouteContext&) {
  const auto query = http::parse_query(request.query);
  auto requested = query.find("rd");
  if (requested == query.end()) requested = query.find("return_to");
  const std::string_view address = requested == query.end() ? std::string_view{} : std::string_view(requested->second);
  return redirect(303, choose_return_address(address, app.server.portal));
}

HandlerResult portal_redirect(App& app, const http::Request& request, const RouteContext&) {
  const auto original_uri = request.param("HTTP_X_ORIGINAL_URI");
  if (original_uri.empty()) return fail(Errc::invalid_input, "X-Original-URI is required");
  // An address the portal would refuse anyway is not carried along.
  if (!return_address_allowed(original_uri, app.server.portal.return_origins)) {
    return redirect(302, std::string(kPortalPath));
  }
  return redirect(302, std::string(kPortalPath) + "?rd=" + http::percent_encoded(original_uri));
}

}  // namespace authd::handlers
