// What the session group gives the other groups: the answers that start a
// session (token_response, sign_in_answer, the cookies), the sign-up answer's
// user object.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/route.hpp"
#include "authd/json.hpp"
#include "authd/sign_in.hpp"

namespace authd::handlers {

// The user object of the sign-up answer (the spec's shape: __v, _id, acl,
// password (the stored hash), role, username).
Json signup_user_json(const User& user);

// The answer of every successful sign-in (password or third party): the
// token as cookie `auth`, header `token` and body field `token`. `amr`: how
// the user authenticated when a second factor was used ("pwd otp", ...).
http::Response token_response(const App& app, const http::Request& request, int status, const User& user,
                              Json user_body, std::string_view amr = {});

// A new session for `user`: an access token and, with refresh_token_ttl, a new
// refresh family that the token names (`sid`, so that POST /signout ends it).
struct Session {
  std::string token;
  std::vector<std::string> cookies;  // Set-Cookie values: auth, then refresh (if any)
};
Session start_session(const App& app, const http::Request& request, const User& user, std::string_view amr);
// The cookies of a session the sign-in use case issued at `now`.
Session session_cookies(const App& app, const http::Request& request, IssuedSession issued, std::int64_t now);

// What the sign-in use case (Core::sign_in, authd/sign_in.hpp) needs of
// `request`, and its outcome as HTTP (sign_in_answer.cpp): 200 {token,
// user:{acl, username}} with the session's cookies (and the device cookie
// when it gives one), or the 401 MFA Required challenge.
SignInClient sign_in_client(const http::Request& request);
HandlerResult sign_in_answer(const App& app, const http::Request& request, Result<SignInOutcome> outcome);
// Adds a new device cookie (authd_device) for `user` to `response` (sign-up).
void give_device_cookie(const App& app, const http::Request& request, http::Response& response, const User& user);
// Sets the session's cookies, header `token` and Cache-Control: no-store on `response`.
void attach_session(http::Response& response, Session session);

// The Set-Cookie value of an access token (auth, Path=/, HttpOnly, SameSite=Lax).
std::string auth_cookie(const App& app, const http::Request& request, std::string_view token);

// The Set-Cookie value of a refresh token (HttpOnly, Path=/token/refresh)
// that lives `max_age` seconds (its family's remaining life).
std::string refresh_cookie(const App& app, const http::Request& request, std::string_view refresh_token,
                           std::int64_t max_age);

// A Set-Cookie value that deletes cookie `name` at `path`.
std::string expired_cookie(const App& app, const http::Request& request, std::string_view name, std::string_view path);

// Whether cookies get the Secure attribute (cookie_secure, or HTTPS when auto).
bool secure_cookies(const App& app, const http::Request& request);

}  // namespace authd::handlers
