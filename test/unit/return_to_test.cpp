// The portal's return-address check (lib/portal/return_to.cpp): what may follow
// a sign-in, and every known open-redirect trick refused.
#include "authd/return_to.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "authd/settings.hpp"
#include <vector>

namespace authd {
namespace {

const std::vector<std::string> kOrigins{"https://app.example.com", "http://127.0.0.1:8081"};

TEST(ReturnTo, NormalizedOrigin) {
  EXPECT_EQ(normalized_origin("https://app.example.com"), "https://app.example.com");
  EXPECT_EQ(normalized_origin("HTTPS://App.Example.COM:443/"), "https://app.example.com");
  EXPECT_EQ(normalized_origin("http://127.0.0.1:80"), "http://127.0.0.1");
  EXPECT_EQ(normalized_origin("http://127.0.0.1:080"), "http://127.0.0.1");
  EXPECT_EQ(normalized_origin("http://127.0.0.1:8081"), "http://127.0.0.1:8081");
  EXPECT_EQ(normalized_origin("https://[::1]:8443"), "https://[::1]:8443");
  for (const char* bad : {"", "app.example.com", "ftp://app.example.com", "https://", "https://app.example.com/x",
                          "https://app.example.com?x", "https://u@app.example.com", "https://app.example.com:0",
                          "https://app.example.com:65536", "https://app.example.com:", "https://app.example.com:x",
                          "https://app%2eexample.com", "https://app.example.com ", "https://[zz]", "javascript://x",
                          "https://.example.com", "https://\xc3\xa4.example.com"}) {
    EXPECT_EQ(normalized_origin(bad), std::nullopt) << bad;
  }
}

TEST(ReturnTo, PathsOnThisSiteAreAllowed) {
  for (const char* good : {"/", "/account", "/app/x?a=1&b=2#top", "/%2F%2Fevil.com", "/a//b"}) {
    EXPECT_TRUE(return_address_allowed(good, kOrigins)) << good;
  }
}

TEST(ReturnTo, UrlsOnAllowedOriginsAreAllowed) {
  for (const char* good : {"https://app.example.com", "https://app.example.com/", "https://APP.example.com:443/x?y=1",
                           "http://127.0.0.1:8081/files/report.txt", "https://app.example.com#frag"}) {
    EXPECT_TRUE(return_address_allowed(good, kOrigins)) << good;
  }
}

TEST(ReturnTo, OpenRedirectTricksAreRefused) {
  for (const char* bad : {
           "",                                        // nothing
           "//evil.example",                          // scheme-relative
           "///evil.example",                         //
           "/\\evil.example",                         // browsers read \ as /
           "\\\\evil.example",                        //
           "/\t/evil.example",                        // browsers drop tabs and newlines
           "/\n/evil.example",                        //
           " /account",                               // leading space
           "https://evil.example/",                   // another host
           "https://app.example.com.evil.example/",   // a suffix
           "https://evil.example/https://app.example.com",
           "https://app.example.com@evil.example/",   // userinfo
           "https://app.example.com:443@evil.example/",
           "https://app.example.com%2F@evil.example/",
           "http://app.example.com/",                 // another scheme than allowed
           "https://app.example.com:8443/",           // another port
           "http://127.0.0.1:8082/",                  //
           "javascript:alert(1)",                     // scripts
           "JavaScript://app.example.com/%0aalert(1)",
           "data:text/html,<script>alert(1)</script>",
           "account",                                 // relative
           "evil.example",                            //
           "https:evil.example",                      //
           "https:/evil.example",                     //
           "/caf\xc3\xa9",                            // non-ASCII (browsers send it encoded)
       }) {
    EXPECT_FALSE(return_address_allowed(bad, kOrigins)) << bad;
  }
  EXPECT_FALSE(return_address_allowed("/" + std::string(2048, 'a'), kOrigins));
  EXPECT_FALSE(return_address_allowed(std::string("/a\0b", 4), kOrigins));
}

TEST(ReturnTo, ChooseFallsBackToTheDefault) {
  PortalSettings settings{kOrigins, "/account"};
  EXPECT_EQ(choose_return_address("/app/x", settings), "/app/x");
  EXPECT_EQ(choose_return_address("https://app.example.com/y", settings), "https://app.example.com/y");
  EXPECT_EQ(choose_return_address("//evil.example", settings), "/account");
  EXPECT_EQ(choose_return_address("", settings), "/account");
}

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The portal's table alone, loaded from the environment as authd does.
Result<PortalSettings> load_config(const char*, const EnvLookup& env) {
  PortalSettings portal;
  settings::Loader loader;
  loader.add(portal_settings(portal));
  loader.add_check([&portal] { return validate_portal_settings(portal); });
  if (auto ok = loader.load({}, true, env); !ok) return std::unexpected(ok.error());
  return portal;
}

TEST(ReturnTo, Settings) {
  auto defaults = load_config(nullptr, env_of({}));
  ASSERT_TRUE(defaults.has_value()) << defaults.error().message;
  EXPECT_TRUE(defaults->return_origins.empty());
  EXPECT_EQ(defaults->default_return, "/account");

  auto config = load_config(nullptr, env_of({{"AUTHD_PORTAL_RETURN_ORIGINS", "HTTPS://App.example.com:443, http://127.0.0.1:8081"},
                                        {"AUTHD_PORTAL_DEFAULT_RETURN", "https://app.example.com/home"}}));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->return_origins, kOrigins);
  EXPECT_EQ(config->default_return, "https://app.example.com/home");

  auto bad_origin = load_config(nullptr, env_of({{"AUTHD_PORTAL_RETURN_ORIGINS", "https://app.example.com/path"}}));
  ASSERT_FALSE(bad_origin.has_value());
  EXPECT_EQ(bad_origin.error().code, Errc::config);
  EXPECT_NE(bad_origin.error().message.find("https://app.example.com/path"), std::string::npos) << bad_origin.error().message;

  for (const char* unsafe : {"https://evil.example/", "//evil.example", "javascript:alert(1)", ""}) {
    auto bad_default = load_config(nullptr, env_of({{"AUTHD_PORTAL_DEFAULT_RETURN", unsafe}}));
    ASSERT_FALSE(bad_default.has_value()) << unsafe;
    EXPECT_NE(bad_default.error().message.find("portal_default_return"), std::string::npos) << bad_default.error().message;
  }
}

}  // namespace
}  // namespace authd
