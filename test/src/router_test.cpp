// The route table and the router: each request is resolved once into a
// RouteMatch (route, {id}, or the 404/405 it earns), HEAD follows GET, and
// the FastCGI authorizer role bypasses the table.
#include "routes.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace authd {
namespace {

http::Request request(std::string method, std::string path, std::map<std::string, std::string> params = {}) {
  http::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(params));
  r.param = [shared](const char* name) -> std::string_view {
    auto it = shared->find(name);
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
  EXPECT_EQ(resolve(request("GET", "/records")).lane(), Lane::direct);
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
  EXPECT_EQ(match.lane(), Lane::direct);
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
      EXPECT_EQ(route.lane, Lane::direct) << route.pattern;
    }
    // The table is the one place a route is declared: no pattern twice for one method.
    int same = 0;
    for (const auto& other : route_table()) same += other.method == route.method && other.pattern == route.pattern;
    EXPECT_EQ(same, 1) << route.method << " " << route.pattern;
  }
}

}  // namespace
}  // namespace authd
