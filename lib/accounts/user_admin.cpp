#include "authd/user_admin.hpp"

namespace authd {

void UserAdmin::record(const Actor& actor, std::string event, std::string_view username, std::string reason,
                       std::string outcome) const {
  audit_.record({.event = std::move(event), .username = std::string(username), .client = actor.client,
                 .request_id = actor.request_id, .outcome = std::move(outcome), .reason = std::move(reason),
                 .actor = actor.name});
}

void UserAdmin::record_revoked(const Actor& actor, std::string_view username, const std::vector<std::string>& ids,
                               std::string_view why) const {
  if (ids.empty()) return;
  std::string listed;
  for (const auto& id : ids) listed += (listed.empty() ? "" : ", ") + id;
  record(actor, "invitations_revoked", username,
         "made by an admin " + std::string(why) + ": " + std::to_string(ids.size()) + " invitation" +
             (ids.size() == 1 ? "" : "s") + " (" + listed + ")");
}

Result<User> UserAdmin::create(const Actor& actor, std::string_view username, std::string_view password, Role role,
                               std::string_view fullname, std::string_view email) {
  auto user = accounts_.create(username, password, role, fullname, email);
  if (user) record(actor, "user_created", username, "role " + std::string(to_string(role)));
  return user;
}

Result<User> UserAdmin::set_role(const Actor& actor, std::string_view username, Role role, bool force) {
  auto before = accounts_.find(username);
  if (!before) return before;
  const std::string change = "role " + std::string(to_string(before->role)) + " -> " + std::string(to_string(role));
  std::vector<std::string> revoked;
  auto user = accounts_.set_role(username, role, force, &revoked);
  if (user) {
    record(actor, "role_changed", username, force && before->role == Role::admin ? change + " (forced)" : change);
    record_revoked(actor, username, revoked, "demoted");
  } else if (user.error().code == Errc::conflict) {
    record(actor, "role_changed", username, change + ": the last admin", "refused");
  }
  return user;
}

Result<void> UserAdmin::remove(const Actor& actor, std::string_view username, bool force) {
  std::vector<std::string> revoked;
  auto removed = accounts_.remove(username, force, &revoked);
  if (removed) {
    record(actor, "user_deleted", username, force ? "forced" : "");
    record_revoked(actor, username, revoked, "deleted");
  }
  else if (removed.error().code == Errc::conflict) record(actor, "user_deleted", username, "the last admin", "refused");
  return removed;
}

Result<User> UserAdmin::sign_out(const Actor& actor, std::string_view username) {
  auto user = revocation_.end_all(username, /*with_links=*/true);
  if (!user) return user;
  if (auto ended = refresh_.end_user(user->id); !ended) return std::unexpected(ended.error());
  record(actor, "signout", username, "every session and pending mailed link, by an operator");
  return user;
}

}  // namespace authd
