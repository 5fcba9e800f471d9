// POST /signin with Authorization: Basic -> 200 {token, user:{acl, username}}
// Every failure is the same 500 {"error":"Invalid Login"}; repeated failures
// are throttled (429, lib/accounts/throttle.cpp), a throttle that cannot
// count refuses (503). A successful sign-in also gives the browser a signed
// device cookie (OWASP "device cookies"): with it, that browser is never
// locked out by failures others send for the same name.
// With a second factor: 401 {"error":"MFA Required","mfa_token","methods"} (api/mfa/mfa.cpp).
// The flow itself is the sign-in use case (lib/core/sign_in.cpp).
#include "authd/authorization.hpp"
#include "authd/clock.hpp"
#include "api/session/routes.hpp"
#include "api/session/session_answers.hpp"

namespace authd::handlers {

HandlerResult signin(App& app, const http::Request& request, const RouteContext&) {
  // Never from another site: the route table refuses it (api/access_policy.cpp, admit()).
  auto credentials = parse_basic_authorization(request.authorization());
  if (!credentials) return fail(Errc::invalid_login, "malformed Basic credentials");  // no hash, nothing to guess
  return sign_in_answer(app, request,
                        app.core->sign_in().with_password(*credentials, sign_in_client(request), unix_now()));
}

}  // namespace authd::handlers
