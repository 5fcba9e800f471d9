// lib/directory's pure parts: RFC 4515 filter escaping (the attack: a
// username that adds a wildcard or a clause to the user search), DN
// comparison, groups to roles, and the settings' checks at start.
#include "authd/directory.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <string>

#include "test_support.hpp"

namespace authd {
namespace {

TEST(DirectoryFilter, EscapesEveryMetacharacterOfRfc4515) {
  EXPECT_EQ(escape_filter_value("alice"), "alice");
  EXPECT_EQ(escape_filter_value("*"), "\\2a");
  EXPECT_EQ(escape_filter_value("al*"), "al\\2a");
  EXPECT_EQ(escape_filter_value("a(b)c"), "a\\28b\\29c");
  EXPECT_EQ(escape_filter_value("back\\slash"), "back\\5cslash");
  EXPECT_EQ(escape_filter_value(std::string("nul\0byte", 8)), "nul\\00byte");
  EXPECT_EQ(escape_filter_value("tab\there"), "tab\\09here");
  EXPECT_EQ(escape_filter_value("\xc3\xa9"), "\\c3\\a9");  // UTF-8 é, byte by byte
  EXPECT_EQ(escape_filter_value("\x7f"), "\\7f");
}

TEST(DirectoryFilter, AnInjectedClauseStaysOneValue) {
  const std::string filter = expand_filter("(&(objectClass=inetOrgPerson)(uid={username}))", "username",
                                           "alice)(uid=*))(|(uid=*");
  EXPECT_EQ(filter, "(&(objectClass=inetOrgPerson)(uid=alice\\29\\28uid=\\2a\\29\\29\\28|\\28uid=\\2a))");
  // Still exactly the pattern's parentheses: the value added none.
  int open = 0, close = 0;
  for (const char c : filter) {
    open += c == '(';
    close += c == ')';
  }
  EXPECT_EQ(open, 3);
  EXPECT_EQ(close, 3);
  EXPECT_EQ(filter.find('*'), std::string::npos);
}

TEST(DirectoryFilter, ReplacesEveryPlaceholder) {
  EXPECT_EQ(expand_filter("(|(uid={username})(mail={username}))", "username", "a*"),
            "(|(uid=a\\2a)(mail=a\\2a))");
  EXPECT_EQ(expand_filter("(member={dn})", "dn", "uid=x,ou=p"), "(member=uid=x,ou=p)");
  EXPECT_EQ(expand_filter("(uid=x)", "username", "y"), "(uid=x)");
}

TEST(DirectoryDn, ComparesCaseAndSpacesAfterCommasAway) {
  EXPECT_TRUE(same_dn("cn=Admins,ou=Groups,dc=example,dc=org", "CN=admins, ou=groups, DC=example,dc=org"));
  EXPECT_FALSE(same_dn("cn=admins,ou=groups,dc=example,dc=org", "cn=admins2,ou=groups,dc=example,dc=org"));
  EXPECT_FALSE(same_dn("cn=admins,ou=groups", "cn=admins,ou=groups,dc=example"));
  EXPECT_FALSE(same_dn("cn=a b", "cn=ab"));  // a space inside a value counts
}

TEST(DirectoryRoles, TheMostCapableMappedRoleWins) {
  DirectorySettings s;
  s.role_groups[static_cast<std::size_t>(Role::admin)] = {"cn=admins,dc=x"};
  s.role_groups[static_cast<std::size_t>(Role::editor)] = {"cn=editors,dc=x"};
  s.role_groups[static_cast<std::size_t>(Role::writer)] = {"cn=writers,dc=x"};
  EXPECT_EQ(role_for_groups(s, {"cn=writers,dc=x", "cn=editors,dc=x"}), Role::editor);
  EXPECT_EQ(role_for_groups(s, {"cn=other,dc=x", "CN=Admins,dc=x"}), Role::admin);
  EXPECT_EQ(role_for_groups(s, {"cn=other,dc=x"}), std::nullopt);
  s.default_role = Role::user;
  EXPECT_EQ(role_for_groups(s, {}), Role::user);
}

TEST(DirectoryUrls, LoopbackIsLocalhostA127AddressOrIpv6One) {
  EXPECT_TRUE(directory_url_on_loopback("ldap://127.0.0.1:389"));
  EXPECT_TRUE(directory_url_on_loopback("ldap://localhost"));
  EXPECT_TRUE(directory_url_on_loopback("ldap://[::1]:389/"));
  EXPECT_TRUE(directory_url_on_loopback("ldapi://%2Frun%2Fslapd%2Fldapi"));
  EXPECT_FALSE(directory_url_on_loopback("ldap://ldap.example.org"));
  EXPECT_FALSE(directory_url_on_loopback("ldap://127.0.0.1.example.org"));
  EXPECT_FALSE(directory_url_on_loopback("ldap://10.0.0.1:389"));
}

TEST(DirectoryIds, ObjectGuidInAdsStringFormEntryUuidAsIsOtherBinaryInHex) {
  // An objectGUID as Samba's LDAP server sent it (base64 R1q8FETxHESvmK5DX3ZYwQ==),
  // and the form samba-tool user show / Get-ADUser print for it.
  const std::string guid("\x47\x5a\xbc\x14\x44\xf1\x1c\x44\xaf\x98\xae\x43\x5f\x76\x58\xc1", 16);
  EXPECT_EQ(directory_id_text("objectGUID", guid), "14bc5a47-f144-441c-af98-ae435f7658c1");
  EXPECT_EQ(directory_id_text("objectguid", guid), "14bc5a47-f144-441c-af98-ae435f7658c1");
  // Sixteen printable bytes are still a GUID, never taken for text.
  EXPECT_EQ(directory_id_text("objectGUID", "ABCDEFGHIJKLMNOP"), "44434241-4645-4847-494a-4b4c4d4e4f50");
  EXPECT_EQ(directory_id_text("entryUUID", "e0364a1c-7f67-1041-8701-0b1c45281597"),
            "e0364a1c-7f67-1041-8701-0b1c45281597");
  EXPECT_EQ(directory_id_text("objectGUID", std::string("\x01\xff", 2)), "01ff");  // not 16 bytes: hex
  EXPECT_EQ(directory_id_text("nsUniqueId", std::string("a\0b", 3)), "610062");
}

TEST(DirectoryAccounts, ActiveDirectoryDisabledOrLockedOut) {
  EXPECT_FALSE(directory_account_disabled("", ""));              // OpenLDAP: neither attribute
  EXPECT_FALSE(directory_account_disabled("512", "0"));          // NORMAL_ACCOUNT
  EXPECT_FALSE(directory_account_disabled("66048", ""));         // and DONT_EXPIRE_PASSWORD
  EXPECT_TRUE(directory_account_disabled("514", "0"));           // ACCOUNTDISABLE
  EXPECT_TRUE(directory_account_disabled("66050", ""));
  EXPECT_TRUE(directory_account_disabled("-2147483646", ""));    // the sign bit set too
  EXPECT_TRUE(directory_account_disabled("512", "16"));          // UF_LOCKOUT (computed)
  EXPECT_FALSE(directory_account_disabled("512", "8388608"));    // password expired: the bind refuses it
  EXPECT_FALSE(directory_account_disabled("5x", "zz"));          // unreadable: not set
}

TEST(DirectoryPasswords, UnicodePwdIsTheQuotedPasswordInUtf16le) {
  std::string value;
  ASSERT_TRUE(unicode_pwd_value("Ab-1", value));
  EXPECT_EQ(value, std::string("\"\0A\0b\0-\0" "1\0\"\0", 12));
  // é (2 bytes), € (3), 𝄞 (4: a surrogate pair D834 DD1E).
  ASSERT_TRUE(unicode_pwd_value("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", value));
  EXPECT_EQ(value, std::string("\"\0\xe9\0\xac\x20\x34\xd8\x1e\xdd\"\0", 12));
  ASSERT_TRUE(unicode_pwd_value("", value));
  EXPECT_EQ(value, std::string("\"\0\"\0", 4));
}

TEST(DirectoryPasswords, UnicodePwdRefusesWhatIsNotUtf8) {
  std::string value;
  EXPECT_FALSE(unicode_pwd_value(std::string("a\0b", 3), value));  // NUL
  EXPECT_FALSE(unicode_pwd_value("\xff", value));                  // no such lead byte
  EXPECT_FALSE(unicode_pwd_value("\xc3", value));                  // cut short
  EXPECT_FALSE(unicode_pwd_value("\xc3(", value));                 // not a continuation
  EXPECT_FALSE(unicode_pwd_value("\xc0\xaf", value));              // overlong '/'
  EXPECT_FALSE(unicode_pwd_value("\xed\xa0\x80", value));          // a surrogate (D800)
  EXPECT_FALSE(unicode_pwd_value("\xf4\x90\x80\x80", value));      // past U+10FFFF
}

TEST(DirectoryPasswords, ChangesAreOffByDefault) {
  DirectorySettings s;
  EXPECT_EQ(s.password_change, DirectoryPasswordChange::off);
}

// Loads the directory table from `values` (name -> value), then its checks.
Result<void> load(DirectorySettings& s, const std::map<std::string, std::string>& values) {
  settings::Loader loader;
  loader.add(directory_settings(s));
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : values) env[settings::variable_for(name)] = value;
  auto loaded = loader.load({}, true, [&env](const char* name) -> const char* {
    const auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  });
  if (!loaded) return loaded;
  return finish_directory_settings(s);
}

class DirectorySettingsTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> valid() {
    return {{"directory_urls", "ldap://127.0.0.1:389 ldaps://ldap.example.org"},
            {"directory_user_base", "ou=people,dc=example,dc=org"},
            {"directory_admin_groups", "cn=admins,ou=groups,dc=example,dc=org; cn=root,dc=example,dc=org"}};
  }
  test::TempDir dir_;
};

TEST_F(DirectorySettingsTest, OffByDefaultAndValidWhenComplete) {
  DirectorySettings off;
  ASSERT_TRUE(load(off, {}));
  EXPECT_FALSE(off.enabled());
  DirectorySettings s;
  auto loaded = load(s, valid());
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(s.urls.size(), 2u);
  ASSERT_EQ(s.role_groups[static_cast<std::size_t>(Role::admin)].size(), 2u);
  EXPECT_EQ(s.role_groups[static_cast<std::size_t>(Role::admin)][1], "cn=root,dc=example,dc=org");
}

TEST_F(DirectorySettingsTest, RefusesWhatWouldNotWork) {
  const std::map<std::string, std::map<std::string, std::string>> broken = {
      {"not an LDAP URL", {{"directory_urls", "http://ldap.example.org"}}},
      {"no user base", {{"directory_user_base", ""}}},
      {"filter without {username}", {{"directory_user_filter", "(uid=alice)"}}},
      {"unbalanced filter", {{"directory_user_filter", "(uid={username}"}}},
      {"two filters", {{"directory_user_filter", "(uid={username})(cn=x)"}}},
      {"attribute with a space", {{"directory_id_attribute", "entry UUID"}}},
      {"no role at all", {{"directory_admin_groups", ""}}},
      {"stale limit under the ttl", {{"directory_cache_ttl", "600"}, {"directory_stale_limit", "60"}}},
      {"group search without a base", {{"directory_groups", "search"}}},
      {"bind DN without a password file", {{"directory_bind_dn", "cn=authd,dc=example,dc=org"}}},
      {"missing CA file", {{"directory_ca_file", "/nonexistent/ca.pem"}}},
  };
  for (const auto& [why, change] : broken) {
    auto values = valid();
    for (const auto& [name, value] : change) values[name] = value;
    DirectorySettings s;
    EXPECT_FALSE(load(s, values)) << why;
  }
}

TEST_F(DirectorySettingsTest, ReadsTheBindPasswordFromAPrivateFile) {
  const auto file = dir_.path() / "service.pw";
  std::ofstream(file) << "service secret\n";
  ::chmod(file.c_str(), 0644);
  auto values = valid();
  values["directory_bind_dn"] = "cn=authd,dc=example,dc=org";
  values["directory_bind_password_file"] = file.string();
  DirectorySettings readable;
  auto refused = load(readable, values);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("chmod 600"), std::string::npos) << refused.error().message;
  ::chmod(file.c_str(), 0600);
  DirectorySettings s;
  auto loaded = load(s, values);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(s.bind_password, "service secret");
}

}  // namespace
}  // namespace authd
