// The fixed role table of the spec:
//   admin: read create update delete; editor: read create update;
//   writer: read create;              user: read.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace authd {

enum class Role { user, writer, editor, admin };
enum class Capability { read, create, update, delete_ };

// Exact, lower-case names ("admin", "delete"); anything else is std::nullopt.
std::optional<Role> parse_role(std::string_view name) noexcept;
std::optional<Capability> parse_capability(std::string_view name) noexcept;
std::string_view to_string(Role role) noexcept;
std::string_view to_string(Capability capability) noexcept;

std::span<const Capability> capabilities_of(Role role) noexcept;
bool role_has(Role role, Capability capability) noexcept;

}  // namespace authd
