// The operator's changes to accounts, audited: the admin API (src/api/admin/
// admin_users.cpp) and authctl both go through these, so both record the
// same events (role_changed, user_deleted, user_created, signout, and
// invitations_revoked listing the invitations a demoted or deleted admin
// made) in the audit log.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "authd/accounts.hpp"
#include "authd/audit.hpp"
#include "authd/refresh.hpp"
#include "authd/revocation.hpp"

namespace authd {

// Who acts, for the audit line.
struct Actor {
  std::string name{};        // the admin's username, or "authctl:<login>"
  std::string client{};      // address, or "local"
  std::string request_id{};  // "" for authctl
};

class UserAdmin {
 public:
  UserAdmin(Accounts& accounts, TokenRevocation& revocation, RefreshTokens& refresh, const AuditLog& audit)
      : accounts_(accounts), revocation_(revocation), refresh_(refresh), audit_(audit) {}

  // Errors: as Accounts::create / set_role / remove (not_found, conflict, ...).
  // The last admin is neither demoted nor deleted unless `force` (authctl
  // --force only); a refusal is audited (outcome "refused").
  Result<User> create(const Actor& actor, std::string_view username, std::string_view password, Role role,
                      std::string_view fullname, std::string_view email);
  Result<User> set_role(const Actor& actor, std::string_view username, Role role, bool force = false);
  Result<void> remove(const Actor& actor, std::string_view username, bool force = false);
  // Ends every token and refresh token of the user (a lost device, a
  // suspected theft), and its pending reset and verification links: the
  // operator's way to disable an account. Errors: not_found, storage_full, internal.
  Result<User> sign_out(const Actor& actor, std::string_view username);

 private:
  void record(const Actor& actor, std::string event, std::string_view username, std::string reason,
              std::string outcome = "ok") const;
  // "invitations_revoked": the ids of the invitations a demoted or deleted admin made.
  void record_revoked(const Actor& actor, std::string_view username, const std::vector<std::string>& ids,
                      std::string_view why) const;
  Accounts& accounts_;
  TokenRevocation& revocation_;
  RefreshTokens& refresh_;
  const AuditLog& audit_;
};

}  // namespace authd
