// The one mapping from Error to HTTP: every kind gets its status, typed fields
// become headers, and internal details never reach the body.
#include "http/error_mapping.hpp"

#include <gtest/gtest.h>

#include <string>

#include "authd/json.hpp"

namespace authd::http {
namespace {

std::string header(const ErrorAnswer& answer, std::string_view name) {
  for (const auto& [n, v] : answer.headers) {
    if (n == name) return v;
  }
  return "(absent)";
}

std::string body_error(const ErrorAnswer& answer) {
  auto body = Json::parse(answer.body);
  EXPECT_TRUE(body.has_value()) << answer.body;
  return body ? std::string(body->get_string("error").value_or("(none)")) : "";
}

TEST(ErrorMapping, EveryKindHasItsStatus) {
  const std::pair<Errc, int> expected[] = {
      {Errc::invalid_input, 400},     {Errc::invalid_login, 500},    {Errc::no_credentials, 401},
      {Errc::invalid_token, 401},     {Errc::malformed_credentials, 400}, {Errc::not_permitted, 403},
      {Errc::not_found, 404},         {Errc::wrong_method, 405},     {Errc::conflict, 409},
      {Errc::too_large, 413},         {Errc::too_slow, 408},         {Errc::storage_full, 507},
      {Errc::throttled, 429},         {Errc::unavailable, 503},      {Errc::provider_refused, 403},
      {Errc::not_configured, 501},    {Errc::upstream_failed, 502},  {Errc::upstream_timeout, 504},
      {Errc::config, 500},            {Errc::io, 500},               {Errc::internal, 500},
      {Errc::cross_site, 403},        {Errc::unsupported_type, 415}, {Errc::email_not_verified, 403},
      {Errc::signup_closed, 403},
  };
  for (const auto& [code, status] : expected) {
    EXPECT_EQ(to_http(Error(code, "x")).status, status) << to_string(code);
  }
}

TEST(ErrorMapping, TheSpecsTextsAreExact) {
  EXPECT_EQ(body_error(to_http(Error(Errc::invalid_login, "wrong password for alice"))), "Invalid Login");
  for (Errc code : {Errc::no_credentials, Errc::invalid_token, Errc::not_permitted, Errc::malformed_credentials}) {
    EXPECT_EQ(body_error(to_http(Error(code, "detail"))), "Access Denied") << to_string(code);
  }
  // Exactly {"error":"Email Not Verified"} (issue 24), no detail.
  EXPECT_EQ(to_http(Error(Errc::email_not_verified, "detail")).body, R"({"error":"Email Not Verified"})");
  // signup_mode = invite (issue 24 part 4): the title, and why.
  EXPECT_EQ(to_http(Error(Errc::signup_closed, "sign-up is by invitation only")).body,
            R"({"error":"Sign-up Closed","detail":"sign-up is by invitation only"})");
}

TEST(ErrorMapping, RetryAfterComesFromTheTypedField) {
  auto throttled = to_http(Error::retry_later(Errc::throttled, 17, "too many sign-ups from this address"));
  EXPECT_EQ(throttled.status, 429);
  EXPECT_NE(throttled.body.find("too many sign-ups from this address; retry in 17 s"), std::string::npos)
      << "a 429 says which limit was hit: " << throttled.body;
  EXPECT_EQ(header(throttled, "Retry-After"), "17");
  auto busy = to_http(Error::retry_later(Errc::unavailable, 3, "busy"));
  EXPECT_EQ(header(busy, "Retry-After"), "3");
  // Never less than one second, even when the field is missing.
  EXPECT_EQ(header(to_http(Error(Errc::unavailable, "busy")), "Retry-After"), "1");
}

TEST(ErrorMapping, AllowComesFromTheTypedField) {
  auto answer = to_http(Error::methods({"GET", "HEAD", "POST"}));
  EXPECT_EQ(answer.status, 405);
  EXPECT_EQ(header(answer, "Allow"), "GET, HEAD, POST");
}

TEST(ErrorMapping, BearerChallengesFollowRfc6750) {
  EXPECT_EQ(header(to_http(Error(Errc::no_credentials, "")), "WWW-Authenticate"), "Bearer realm=\"authd\"");
  EXPECT_NE(header(to_http(Error(Errc::invalid_token, "")), "WWW-Authenticate").find("invalid_token"),
            std::string::npos);
  EXPECT_NE(header(to_http(Error(Errc::not_permitted, "")), "WWW-Authenticate").find("insufficient_scope"),
            std::string::npos);
}

TEST(ErrorMapping, InternalDetailsStayOutOfTheBody) {
  for (Errc code : {Errc::internal, Errc::io, Errc::config}) {
    auto answer = to_http(Error(code, "/var/lib/authd/data.mdb: secret detail"));
    EXPECT_EQ(answer.body.find("secret"), std::string::npos) << answer.body;
    EXPECT_EQ(answer.body.find("/var"), std::string::npos) << answer.body;
  }
  auto login = to_http(Error(Errc::invalid_login, "no such user alice"));
  EXPECT_EQ(login.body.find("alice"), std::string::npos);
}

TEST(ErrorMapping, InvalidInputShowsItsMessage) {
  auto answer = to_http(Error::invalid_field("email", "email must be an address like name@example.com"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(body_error(answer), "email must be an address like name@example.com");
}

}  // namespace
}  // namespace authd::http
