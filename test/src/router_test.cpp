// The route table and the router: each request is resolved once into a
// RouteMatch (route, {id}, or the 404/405 it earns), HEAD follows GET, and
// the FastCGI authorizer role bypasses the table.
#include "api/router.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace authd {
namespace {

http::Request request(std::string method, std::string path, std::map<std::string, std::string> params = {}) {
  http::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(params));
  r.param = [shared](std::string_view name) -> std::string_view {
    auto it = shared->find(std::string(name));
    return it == shared->end() ? std::string_view() : std::string_view(it->second);
  };
  return r;
}

TEST(Router, ResolvesLiteralRoutesToTheirLane) {
  auto signup = resolve(request("POST", "/signup"));
  ASSERT_NE(signup.route, nullptr);
  EXPECT_EQ(signup.route->pattern, "/signup");
  EXPECT_EQ(signup.lane(), Lane::password);
  EXPECT_EQ(resolve(request("GET", "/oauth")).lane(), Lane::upstream);
  EXPECT_EQ(resolve(request("GET", "/records")).lane(), Lane::read);
  EXPECT_EQ(resolve(request("POST", "/records")).lane(), Lane::write);
  EXPECT_EQ(resolve(request("POST", "/introspect")).lane(), Lane::direct);
}

// resolve() tries only the rows that share the path's first letter: every
// row of the table is still found by its own method and path, and a path
// whose first letter no row has ('~', a byte over 0x7f) is still a 404.
TEST(Router, EveryRowIsFoundByItsOwnMethodAndPath) {
  for (const Route& route : route_table()) {
    std::string path(route.pattern);
    if (const auto id = path.find("{id}"); id != std::string::npos) path.replace(id, 4, "abc123");
    const std::string method = route.method == "*" ? "GET" : std::string(route.method);
    const auto match = resolve(request(method, path));
    ASSERT_NE(match.route, nullptr) << route.method << ' ' << route.pattern;
    EXPECT_EQ(match.route, &route) << route.method << ' ' << route.pattern;
  }
  for (const char* path : {"/~", "/\xC3\xA9", "/{id}", "x", ""}) {
    const auto match = resolve(request("GET", path));
    EXPECT_EQ(match.route, nullptr) << path;
  }
}

TEST(Router, CapturesTheIdSegment) {
  auto match = resolve(request("DELETE", "/records/abc123"));
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.id, "abc123");
  EXPECT_EQ(match.route->capability, Capability::delete_);
}

TEST(Router, AnEmptyOrExtraSegmentIsNotARoute) {
  for (const char* path : {"/records/", "/records/a/b", "/recordsx", "/signup/x", "/"}) {
    auto match = resolve(request("GET", path));
    EXPECT_EQ(match.route, nullptr) << path;
    ASSERT_TRUE(match.error.has_value()) << path;
  }
}

TEST(Router, UnknownPathIsNotFound) {
  auto match = resolve(request("GET", "/nowhere"));
  EXPECT_EQ(match.route, nullptr);
  ASSERT_TRUE(match.error.has_value());
  EXPECT_EQ(match.error->code, Errc::not_found);
  EXPECT_EQ(match.lane(), Lane::read);  // answered without the store
}

TEST(Router, WrongMethodListsTheAllowedOnesAsData) {
  auto match = resolve(request("PATCH", "/records"));
  ASSERT_TRUE(match.error.has_value());
  EXPECT_EQ(match.error->code, Errc::wrong_method);
  const std::set<std::string> allowed(match.error->allowed.begin(), match.error->allowed.end());
  EXPECT_EQ(allowed, (std::set<std::string>{"GET", "HEAD", "POST"}));
}

TEST(Router, HeadIsAnsweredWhereverGetIs) {
  auto match = resolve(request("HEAD", "/records/x"));
  ASSERT_NE(match.route, nullptr);
  EXPECT_EQ(match.route->method, "GET");
}

TEST(Router, TheAuthorizerRoleBypassesTheTable) {
  auto match = resolve(request("GET", "/anything/at/all", {{"FCGI_ROLE", "AUTHORIZER"}}));
  EXPECT_TRUE(match.authorizer);
  EXPECT_EQ(match.route, nullptr);
  EXPECT_FALSE(match.error.has_value());
}

TEST(Router, EveryRouteHasAHandlerAndGuardedRoutesAreDirect) {
  for (const auto& route : route_table()) {
    EXPECT_NE(route.handler, nullptr) << route.pattern;
    if (route.access == Access::bearer) {
      EXPECT_TRUE(route.lane == Lane::direct || route.lane == Lane::read || route.lane == Lane::write)
          << route.pattern;
    }
    // A route that changes state commits on the write lane (off the event
    // loops when a commit waits on the disk), unless its own lane is a worker
    // pool anyway; the POSTs that only read are named here.
    const bool changes_state = route.method == "POST" || route.method == "PUT" || route.method == "DELETE";
    const bool reads_only = route.pattern == "/introspect" || route.pattern == "/userinfo";
    if (changes_state && !reads_only && route.lane != Lane::password && route.lane != Lane::upstream) {
      EXPECT_EQ(route.lane, Lane::write) << route.method << " " << route.pattern;
    }
    // Only reads are tried from the store's memory and run again (lane.hpp).
    if (route.lane == Lane::read) {
      EXPECT_TRUE(route.method == "GET" || route.pattern == "/auth/check") << route.pattern;
    }
    EXPECT_NE(route.lane, Lane::store) << route.pattern;
    // The table is the one place a route is declared: no pattern twice for one method.
    int same = 0;
    for (const auto& other : route_table()) same += other.method == route.method && other.pattern == route.pattern;
    EXPECT_EQ(same, 1) << route.method << " " << route.pattern;
  }
}

// Login CSRF (issue 23 class 1): a page on another site posts a form or a
// text/plain fetch to a route that sets cookies or changes state. The checks
// are a property of the route table, so a new route cannot forget them.
http::Request with_body(http::Request r, std::string body) {
  r.body = std::move(body);
  return r;
}

TEST(RouteTableCsrf, EveryStateChangingRouteRefusesOtherSites) {
  int checked = 0;
  for (const auto& route : route_table()) {
    if (!changes_state(route)) {
      // Only reads, and the access check that judges another request.
      EXPECT_TRUE(route.method == "GET" || (route.method == "*" && route.pattern == "/auth/check")) << route.pattern;
      continue;
    }
    const std::string method(route.method);
    const std::string path(route.pattern);
    if (route.site == Site::any) {
      // The one exception: OpenID Connect's authorization request by form
      // post, which issues what the same GET would, from the relying party's page.
      EXPECT_EQ(method + " " + path, "POST /authorize");
      EXPECT_TRUE(admit(route, with_body(request(method, path,
                                                 {{"CONTENT_TYPE", "application/x-www-form-urlencoded"},
                                                  {"HTTP_SEC_FETCH_SITE", "cross-site"}}),
                                         "x=1")).has_value());
      continue;
    }
    ++checked;
    // A form route (POST /token) gets the same checks with its own body type.
    const bool form = route.body == Body::form;
    const std::string json = form ? "x=1" : R"({"x":1})";
    const std::string type = form ? "application/x-www-form-urlencoded" : "application/json";
    const std::map<std::string, std::string> json_type{{"CONTENT_TYPE", type}};
    for (const auto& hostile : std::vector<std::map<std::string, std::string>>{
             {{"CONTENT_TYPE", type}, {"HTTP_SEC_FETCH_SITE", "cross-site"}},
             {{"CONTENT_TYPE", type}, {"HTTP_SEC_FETCH_SITE", "same-site"}},
             {{"CONTENT_TYPE", type}, {"HTTP_ORIGIN", "http://evil.example"}, {"HTTP_HOST", "site"}},
             {{"CONTENT_TYPE", type}, {"HTTP_ORIGIN", "null"}, {"HTTP_HOST", "site"}},
             {{"CONTENT_TYPE", "text/plain"}, {"HTTP_SEC_FETCH_SITE", "cross-site"}, {"HTTP_COOKIE", "auth=x"}},
         }) {
      auto refused = admit(route, with_body(request(method, path, hostile), json));
      ASSERT_FALSE(refused.has_value()) << method << " " << path;
      EXPECT_EQ(refused.error().code, Errc::cross_site) << method << " " << path;
    }
    auto same_origin = request(method, path,
                               {{"CONTENT_TYPE", type}, {"HTTP_SEC_FETCH_SITE", "same-origin"},
                                {"HTTP_ORIGIN", "http://site"}, {"HTTP_HOST", "site"}});
    EXPECT_TRUE(admit(route, with_body(same_origin, json)).has_value()) << method << " " << path;
    EXPECT_TRUE(admit(route, with_body(request(method, path, json_type), json)).has_value()) << "no browser: " << path;
    // A bearer header is no ambient credential (no CSRF); cached Basic credentials are.
    EXPECT_TRUE(admit(route, with_body(request(method, path,
                                               {{"CONTENT_TYPE", type},
                                                {"HTTP_SEC_FETCH_SITE", "cross-site"},
                                                {"HTTP_AUTHORIZATION", "Bearer abc"}}),
                                       json)).has_value())
        << path;
    EXPECT_FALSE(admit(route, with_body(request(method, path,
                                                {{"CONTENT_TYPE", type},
                                                 {"HTTP_SEC_FETCH_SITE", "cross-site"},
                                                 {"HTTP_AUTHORIZATION", "Basic YTpi"}}),
                                        json)).has_value())
        << path;
  }
  EXPECT_GE(checked, 20);
}

TEST(RouteTableCsrf, JsonRoutesTakeOnlyApplicationJsonBeforeParsing) {
  // The state-changing routes that read no body at all; every other one declares Body::json.
  const std::set<std::pair<std::string, std::string>> bodiless{
      {"POST", "/signin"},        {"POST", "/signout"},           {"POST", "/signout/all"},
      {"DELETE", "/admin/users/{id}"}, {"POST", "/admin/users/{id}/signout"}, {"DELETE", "/records/{id}"},
      {"DELETE", "/admin/clients/{id}"}, {"POST", "/admin/clients/{id}/secret"}, {"DELETE", "/admin/invitations/{id}"},
      {"POST", "/userinfo"}, {"DELETE", "/me/clients/{id}"},  // the bearer token in the header (RFC 6750 §2.1), no body
  };
  for (const auto& route : route_table()) {
    const std::string method(route.method);
    const std::string path(route.pattern);
    if (changes_state(route) && !bodiless.contains({method, path})) {
      EXPECT_TRUE(route.body == Body::json || route.body == Body::form)
          << method << " " << path << " reads a body: declare Body::json (or Body::form)";
    }
    if (route.body == Body::form) {
      // An OAuth form route takes only application/x-www-form-urlencoded.
      for (const char* type : {"text/plain", "application/json", "multipart/form-data; boundary=x", ""}) {
        auto refused = admit(route, with_body(request(method, path, {{"CONTENT_TYPE", type}}), "a=1"));
        ASSERT_FALSE(refused.has_value()) << method << " " << path << " as " << type;
        EXPECT_EQ(refused.error().code, Errc::unsupported_type) << method << " " << path << " as " << type;
      }
      EXPECT_TRUE(admit(route, with_body(request(method, path, {{"CONTENT_TYPE", "application/x-www-form-urlencoded"}}),
                                         "a=1")).has_value())
          << path;
    }
    if (route.body != Body::json) continue;
    for (const char* type : {"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", "application/jsonp", ""}) {
      auto refused = admit(route, with_body(request(method, path, {{"CONTENT_TYPE", type}}), R"({"x":1})"));
      ASSERT_FALSE(refused.has_value()) << method << " " << path << " as " << type;
      EXPECT_EQ(refused.error().code, Errc::unsupported_type) << method << " " << path << " as " << type;
    }
    EXPECT_TRUE(admit(route, with_body(request(method, path, {{"CONTENT_TYPE", "Application/JSON; charset=utf-8"}}),
                                       "{}")).has_value())
        << path;
    // No body (a page's bodiless POST: fetch sends "" as text/plain) is for the handler to judge.
    EXPECT_TRUE(admit(route, request(method, path, {{"CONTENT_TYPE", "text/plain;charset=UTF-8"}})).has_value()) << path;
  }
}

}  // namespace
}  // namespace authd
