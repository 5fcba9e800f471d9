// The path prefix of shared hosting, below the web server: which route and
// prefix authd takes from SCRIPT_NAME/PATH_INFO (http::route_path), and what
// the base_path setting does to a real App's answers (prepare_mounted).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "program/app.hpp"
#include "http/base_path.hpp"
#include "http/request.hpp"

namespace authd {
namespace {

using http::route_path;

TEST(RoutePath, JoinsWhateverWayAFrontEndSplitsThePath) {
  for (const auto& [script, info] : std::map<std::string, std::string>{
           {"/records/abc", ""}, {"", "/records/abc"}, {"/records", "/abc"}, {"/records/abc/", ""}}) {
    const auto route = route_path(script, info, "authd");
    EXPECT_EQ(route.path, "/records/abc") << script << " + " << info;
    EXPECT_EQ(route.base_path, "") << script << " + " << info;
  }
  EXPECT_EQ(route_path("", "", "authd").path, "/");
}

TEST(RoutePath, ScriptNameNamingTheProgramGivesThePrefix) {
  auto route = route_path("/auth/authd.fcgi", "/signup", "authd.fcgi");
  EXPECT_EQ(route.path, "/signup");
  EXPECT_EQ(route.base_path, "/auth");
  route = route_path("/a/b/authd.fcgi", "/records/0123/", "authd.fcgi");
  EXPECT_EQ(route.path, "/records/0123");
  EXPECT_EQ(route.base_path, "/a/b");
  route = route_path("/authd.fcgi", "/auth/check", "authd.fcgi");  // document root = site root
  EXPECT_EQ(route.path, "/auth/check");
  EXPECT_EQ(route.base_path, "");
}

TEST(RoutePath, OtherScriptNamesAreJoined) {
  auto route = route_path("/auth/other.fcgi", "/signup", "authd.fcgi");
  EXPECT_EQ(route.path, "/auth/other.fcgi/signup");
  EXPECT_EQ(route.base_path, "");
  route = route_path("/records/authd", "", "authd");  // no PATH_INFO: not a script call
  EXPECT_EQ(route.path, "/records/authd");
  EXPECT_EQ(route.base_path, "");
}

TEST(BelowBasePath, WholeSegmentsOnly) {
  std::string rest;
  EXPECT_TRUE(below_base_path("/auth/signup", "/auth", rest));
  EXPECT_EQ(rest, "/signup");
  EXPECT_TRUE(below_base_path("/auth", "/auth", rest));
  EXPECT_EQ(rest, "/");
  EXPECT_FALSE(below_base_path("/authx/signup", "/auth", rest));
  EXPECT_FALSE(below_base_path("/signup", "/auth", rest));
}

TEST(BasePathSetting, ParsedAndNormalised) {
  const auto with = [](const char* value) {
    return load_program_settings([value](const char* name) -> const char* {
      return std::string_view(name) == "AUTHD_BASE_PATH" ? value : nullptr;
    }, {});
  };
  EXPECT_EQ(with("/auth")->server.base_path, "/auth");
  EXPECT_EQ(with("/auth/")->server.base_path, "/auth");
  EXPECT_EQ(with("/a/b")->server.base_path, "/a/b");
  EXPECT_EQ(with("/")->server.base_path, "");
  EXPECT_EQ(with("")->server.base_path, "");
  for (const char* bad : {"auth", "/a//b", "/a/../b", "/a/./b", "/a b", "/a?x", "/a#x", "/a%20b"}) {
    const auto config = with(bad);
    ASSERT_FALSE(config.has_value()) << bad;
    EXPECT_NE(config.error().message.find("base_path"), std::string::npos) << config.error().message;
  }
}

// A real App on a fresh state directory, mounted at /auth.
class MountedApp : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 gen{std::random_device{}()};
    dir_ = std::filesystem::temp_directory_path() / ("authd-base-path-" + std::to_string(gen()));
    const std::map<std::string, std::string> env{{"AUTHD_STATE_DIR", dir_.string()},
                                                 {"AUTHD_BASE_PATH", "/auth"},
                                                 {"AUTHD_ARGON2_MEMORY_KIB", "8"},
                                                 {"AUTHD_ARGON2_ITERATIONS", "1"}};
    auto config = load_program_settings([env](const char* name) -> const char* {
      const auto found = env.find(name);
      return found == env.end() ? nullptr : found->second.c_str();
    }, {});
    ASSERT_TRUE(config.has_value()) << config.error().message;
    auto app = App::create(std::move(*config));
    ASSERT_TRUE(app.has_value()) << app.error().message;
    app_ = std::move(*app);
  }
  void TearDown() override {
    app_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  int status_of(std::string method, std::string script_name, std::string path_info = "",
                std::map<std::string, std::string> more = {}) {
    more["REQUEST_METHOD"] = std::move(method);
    more["SCRIPT_NAME"] = std::move(script_name);
    more["PATH_INFO"] = std::move(path_info);
    auto params = std::make_shared<std::map<std::string, std::string>>(std::move(more));
    auto request = http::request_from_params(
        [params](std::string_view name) {
          const auto found = params->find(std::string(name));
          return found == params->end() ? std::string_view() : std::string_view(found->second);
        },
        "authd");
    return prepare_mounted(*app_, std::move(request)).take_answer().status;
  }

  std::filesystem::path dir_;
  std::unique_ptr<App> app_;
};

TEST_F(MountedApp, RoutesBelowTheBasePathOnly) {
  EXPECT_EQ(status_of("GET", "/auth/records"), 401);      // below /auth: the guard answers
  EXPECT_EQ(status_of("GET", "/auth/signup"), 405);       // a known route, another method
  EXPECT_EQ(status_of("GET", "/records"), 404);           // outside /auth
  EXPECT_EQ(status_of("GET", "/authx/records"), 404);     // not a whole segment
  EXPECT_EQ(status_of("GET", "/auth/auth/check", "", {{"REMOTE_ADDR", "127.0.0.1"}}), 400);  // /auth/check below /auth (no X-Original-URI)
  EXPECT_EQ(status_of("GET", "/auth/check"), 404);        // would be /check below /auth
}

TEST_F(MountedApp, AuthorizerRequestsIgnoreTheBasePath) {
  // FCGI_ROLE=AUTHORIZER: the path is the protected application's, not 404; no rule
  // matches it, so authorize_unmatched = deny answers 403.
  EXPECT_EQ(status_of("GET", "/app/page", "", {{"FCGI_ROLE", "AUTHORIZER"}, {"REQUEST_URI", "/app/page"}}), 403);
}

TEST_F(MountedApp, ScriptModeTakesThePrefixFromScriptName) {
  // The web server named the prefix: the route is PATH_INFO already.
  auto params = std::make_shared<std::map<std::string, std::string>>(std::map<std::string, std::string>{
      {"REQUEST_METHOD", "GET"}, {"SCRIPT_NAME", "/auth/authd.fcgi"}, {"PATH_INFO", "/records"}});
  auto request = http::request_from_params(
      [params](std::string_view name) {
        const auto found = params->find(std::string(name));
        return found == params->end() ? std::string_view() : std::string_view(found->second);
      },
      "authd.fcgi");
  EXPECT_EQ(prepare_mounted(*app_, std::move(request)).take_answer().status, 401);
}

}  // namespace
}  // namespace authd
