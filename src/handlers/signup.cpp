// POST /signup {username, password, fullname, email} -> 201 {token, user}
// Only as application/json and not from another site (no login CSRF through
// a form: the route table's checks, routes.cpp admit()); sign-ups per
// address are limited (signup_address_limit).
#include "authd/clock.hpp"
#include "handlers/handlers.hpp"

namespace authd::handlers {

HandlerResult signup(App& app, const http::Request& request, const RouteContext&) {
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  auto fields = signup_request_from_json(*body);
  if (!fields) return std::unexpected(fields.error());
  if (auto admitted = app.core->throttle().admit_signup(request.remote_addr, unix_now()); !admitted) {
    return std::unexpected(admitted.error());
  }
  auto user = app.core->accounts().sign_up(*fields);
  if (!user) {
    if (user.error().code == Errc::conflict || user.error().code == Errc::invalid_input) {
      audit(app, request, {.event = "signup", .username = fields->username, .outcome = "refused",
                           .reason = user.error().code == Errc::conflict ? "username taken" : "invalid input"});
    }
    return std::unexpected(user.error());
  }
  audit(app, request, {.event = "signup", .username = user->username, .outcome = "ok"});

  // The spec's shape: __v, _id, acl, password (the stored hash), role, username.
  Json shown = Json::object();
  shown.set("__v", Json::integer(user->version))
      .set("_id", Json::string(user->id))
      .set("acl", Json::array())
      .set("password", Json::string(user->password_hash))
      .set("role", Json::string(to_string(user->role)))
      .set("username", Json::string(user->username));
  return token_response(app, request, 201, *user, std::move(shown));
}

}  // namespace authd::handlers
