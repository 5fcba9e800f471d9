// The UserInfo endpoint (OpenID Connect Core 1.0 §5.3):
//   GET or POST /userinfo with Authorization: Bearer <an access token from POST /token>
//   200 {"sub", and per granted scope: profile -> preferred_username, name;
//        email -> email, email_verified; roles -> roles: [role]}
// Only tokens issued to a client (client_id claim) pass; authd's own session
// tokens are refused here, and client tokens everywhere else (lib/guard).
// A token whose client has been removed is refused (401): the registry is
// read from the store on every request, so a removal holds on every node at once.
#include "authd/clock.hpp"
#include "api/oidc/routes.hpp"
#include "api/oidc/oidc.hpp"

namespace authd::handlers {

using oidc::has_word;

HandlerResult oidc_userinfo(App& app, const http::Request& request, const RouteContext&) {
  if (auto on = oidc::require_provider(app); !on) return std::unexpected(on.error());
  auto principal = app.core->guard().check_client_token(request.authorization(), unix_now());
  if (!principal) return std::unexpected(principal.error());
  if (auto live = oidc::client_still_registered(app, principal->claims()); !live) return std::unexpected(live.error());
  const User& user = principal->user();
  const auto found = principal->claims().extra.find("scope");
  const std::string scope = found == principal->claims().extra.end() ? std::string() : found->second;
  if (!has_word(scope, "openid")) return fail(Errc::not_permitted, "the token's scope has no openid");
  Json body = Json::object();
  body.set("sub", Json::string(user.id));
  if (has_word(scope, "profile")) {
    body.set("preferred_username", Json::string(user.username));
    body.set("name", Json::string(user.fullname.empty() ? user.username : user.fullname));
  }
  if (has_word(scope, "email") && !user.email.empty()) {
    body.set("email", Json::string(user.email)).set("email_verified", Json::boolean(user.email_verified));
  }
  if (has_word(scope, "roles")) {
    Json roles = Json::array();
    roles.append(Json::string(to_string(user.role)));
    body.set("roles", std::move(roles));
  }
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
