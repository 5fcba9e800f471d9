// GET /auth/providers: the configured third-party identity providers, for the
// sign-in portal's buttons. Open (no credentials): it names what the portal
// shows anyway, never a client id, secret or endpoint.
//   200 {"providers":[{"name":"github","login_url":"<prefix>/oauth?provider=github"}, ...],
//        "signup":"open"}
// sorted by name; an empty list when third-party sign-in is not configured.
// "signup" is signup_mode (open, invite): the portal offers "Create an
// account" only when it is open.
#include "api/portal/routes.hpp"

namespace authd::handlers {

HandlerResult auth_providers(App& app, const http::Request& request, const RouteContext&) {
  Json providers = Json::array();
  for (const auto& provider : app.core->settings().oauth.providers) {
    const std::string& name = provider.name;
    Json entry = Json::object();
    // Provider names are lower-case letters, digits and '_' (validated at
    // start): nothing to percent-encode.
    // Below a prefix (base_path, or the directory of a CGI/.htaccess install)
    // the link carries it.
    entry.set("name", Json::string(name))
        .set("login_url", Json::string(request.base_path + "/oauth?provider=" + name));
    providers.append(std::move(entry));
  }
  Json body = Json::object();
  const bool open = app.core->settings().invitations.signup_mode == SignupMode::open;
  body.set("providers", std::move(providers)).set("signup", Json::string(open ? "open" : "invite"));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-cache");
  return response;
}

}  // namespace authd::handlers
