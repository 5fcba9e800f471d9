#include "authd/roles.hpp"

#include <algorithm>
#include <array>

namespace authd {
namespace {

using enum Capability;
constexpr std::array<Capability, 4> kAdmin{read, create, update, delete_};
constexpr std::array<Capability, 3> kEditor{read, create, update};
constexpr std::array<Capability, 2> kWriter{read, create};
constexpr std::array<Capability, 1> kUser{read};

}  // namespace

std::optional<Role> parse_role(std::string_view name) noexcept {
  if (name == "admin") return Role::admin;
  if (name == "editor") return Role::editor;
  if (name == "writer") return Role::writer;
  if (name == "user") return Role::user;
  return std::nullopt;
}

std::optional<Capability> parse_capability(std::string_view name) noexcept {
  if (name == "read") return read;
  if (name == "create") return create;
  if (name == "update") return update;
  if (name == "delete") return delete_;
  return std::nullopt;
}

std::string_view to_string(Role role) noexcept {
  switch (role) {
    case Role::admin: return "admin";
    case Role::editor: return "editor";
    case Role::writer: return "writer";
    case Role::user: return "user";
  }
  return "user";
}

std::string_view to_string(Capability capability) noexcept {
  switch (capability) {
    case read: return "read";
    case create: return "create";
    case update: return "update";
    case delete_: return "delete";
  }
  return "read";
}

std::span<const Capability> capabilities_of(Role role) noexcept {
  switch (role) {
    case Role::admin: return kAdmin;
    case Role::editor: return kEditor;
    case Role::writer: return kWriter;
    case Role::user: return kUser;
  }
  return {};
}

bool role_has(Role role, Capability capability) noexcept {
  const auto caps = capabilities_of(role);
  return std::find(caps.begin(), caps.end(), capability) != caps.end();
}

}  // namespace authd
