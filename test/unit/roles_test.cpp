#include "authd/roles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace authd {
namespace {

constexpr Role kAllRoles[] = {Role::user, Role::writer, Role::editor, Role::admin};
constexpr Capability kAllCapabilities[] = {Capability::read, Capability::create,
                                           Capability::update, Capability::delete_};

std::set<Capability> capability_set(Role role) {
  auto caps = capabilities_of(role);
  return {caps.begin(), caps.end()};
}

TEST(Roles, CapabilityTableIsExactlyTheSpecTable) {
  EXPECT_EQ(capability_set(Role::admin),
            (std::set<Capability>{Capability::read, Capability::create, Capability::update,
                                  Capability::delete_}));
  EXPECT_EQ(capability_set(Role::editor),
            (std::set<Capability>{Capability::read, Capability::create, Capability::update}));
  EXPECT_EQ(capability_set(Role::writer),
            (std::set<Capability>{Capability::read, Capability::create}));
  EXPECT_EQ(capability_set(Role::user), (std::set<Capability>{Capability::read}));
}

TEST(Roles, CapabilitiesOfHasNoDuplicates) {
  for (Role role : kAllRoles) {
    auto caps = capabilities_of(role);
    EXPECT_EQ(caps.size(), capability_set(role).size()) << to_string(role);
  }
}

TEST(Roles, RoleHasMatchesTheTable) {
  for (const auto& row : test::kSpecCapabilities) {
    SCOPED_TRACE(std::string(to_string(row.role)));
    EXPECT_EQ(role_has(row.role, Capability::read), row.read);
    EXPECT_EQ(role_has(row.role, Capability::create), row.create);
    EXPECT_EQ(role_has(row.role, Capability::update), row.update);
    EXPECT_EQ(role_has(row.role, Capability::delete_), row.del);
  }
}

TEST(Roles, RoleHasAgreesWithCapabilitiesOf) {
  for (Role role : kAllRoles) {
    auto caps = capability_set(role);
    for (Capability cap : kAllCapabilities) {
      EXPECT_EQ(role_has(role, cap), caps.contains(cap))
          << to_string(role) << " / " << to_string(cap);
    }
  }
}

TEST(Roles, RoleNames) {
  EXPECT_EQ(to_string(Role::admin), "admin");
  EXPECT_EQ(to_string(Role::editor), "editor");
  EXPECT_EQ(to_string(Role::writer), "writer");
  EXPECT_EQ(to_string(Role::user), "user");
}

TEST(Roles, CapabilityNames) {
  EXPECT_EQ(to_string(Capability::read), "read");
  EXPECT_EQ(to_string(Capability::create), "create");
  EXPECT_EQ(to_string(Capability::update), "update");
  EXPECT_EQ(to_string(Capability::delete_), "delete");
}

TEST(Roles, ParseToStringRoundTrip) {
  for (Role role : kAllRoles) {
    auto parsed = parse_role(to_string(role));
    ASSERT_TRUE(parsed.has_value()) << to_string(role);
    EXPECT_EQ(*parsed, role);
  }
  for (Capability cap : kAllCapabilities) {
    auto parsed = parse_capability(to_string(cap));
    ASSERT_TRUE(parsed.has_value()) << to_string(cap);
    EXPECT_EQ(*parsed, cap);
  }
}

TEST(Roles, ParseRoleRejectsUnknownAndCaseVariants) {
  for (const char* bad : {"Admin", "ADMIN", "", " admin", "admin ", "root", "users", "adm",
                          "delete", "Editor", "USER"}) {
    EXPECT_FALSE(parse_role(bad).has_value()) << '"' << bad << '"';
  }
  EXPECT_FALSE(parse_role(std::string_view("admin\0", 6)).has_value());
}

TEST(Roles, ParseCapabilityRejectsUnknownAndCaseVariants) {
  for (const char* bad : {"Delete", "READ", "", "delete_", "write", "admin", " read"}) {
    EXPECT_FALSE(parse_capability(bad).has_value()) << '"' << bad << '"';
  }
}

}  // namespace
}  // namespace authd
