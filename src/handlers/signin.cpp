// POST /signin with Authorization: Basic -> 200 {token, user:{acl, username}}
// Every failure is the same 500 {"error":"Invalid Login"}.
#include "authd/authorization.hpp"
#include "handlers/handlers.hpp"

namespace authd::handlers {

HandlerResult signin(App& app, const http::Request& request, const RouteContext&) {
  auto credentials = parse_basic_authorization(request.authorization());
  if (!credentials) return fail(Errc::invalid_login, "malformed Basic credentials");
  auto user = app.accounts->sign_in(*credentials);
  if (!user) return std::unexpected(user.error());

  Json shown = Json::object();
  shown.set("acl", Json::array()).set("username", Json::string(user->username));
  return token_response(app, request, 200, *user, std::move(shown));
}

}  // namespace authd::handlers
