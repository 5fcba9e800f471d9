// Invitations: an operator (POST /admin/invitations, authctl invite) invites
// an address with a role; the person chooses a username and a password
// through a single-use link and gets an account with that role and the
// address already verified (the link reached it).
//
//  - create(): a random token, stored only as its SHA-256 in the store's
//    "invitation" namespace (expiring with the invitation), and, when asked,
//    the invitation mail carrying the link, in ONE write transaction (the
//    outbox, authd/mail.hpp). The link is <site>/invite#token=<token>: the
//    token travels in the fragment, which browsers never send to a server.
//  - accept(): the sign-up rules apply (username, password policy); the
//    account is created and the invitation deleted in ONE write transaction,
//    so of two concurrent accepts one wins (LMDB: one writer at a time;
//    PostgreSQL: SERIALIZABLE, the loser runs again and finds it gone).
//  - an invitation is only as good as its inviter: accept() checks, in the
//    same transaction, that the admin who made it still exists (the same
//    account, by _id) and is still an admin (authctl's own, "authctl:<login>",
//    stand as long as the store does); demoting or deleting an admin deletes
//    the invitations they made in the transaction of the change
//    (revoke_made_by), and the audit log lists them.
//  - signup_mode = invite closes POST /signup and third-party sign-in of new
//    accounts; invitations are then the only way in (besides authctl add).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "authd/accounts.hpp"
#include "authd/json.hpp"
#include "authd/mail.hpp"
#include "authd/roles.hpp"
#include "authd/settings.hpp"
#include "authd/store.hpp"

namespace authd {

enum class SignupMode { open, invite };

struct InvitationSettings {
  std::chrono::seconds ttl{7 * 86400};      // invitation_ttl: lifetime of an invitation link
  SignupMode signup_mode = SignupMode::open;  // signup_mode: open, or invite (public sign-up closed)
};

// invitation_ttl, signup_mode.
std::vector<settings::Setting> invitation_settings(InvitationSettings& settings);

// The longest lifetime an operator may give one invitation (authctl --ttl).
inline constexpr std::chrono::seconds kInvitationMaxTtl{90 * 86400};

struct Invitation {
  std::string id;  // a public handle for listing and revoking (not the token)
  std::string email;
  Role role = Role::user;
  std::int64_t created_at = 0;
  std::int64_t expires_at = 0;
  std::string invited_by;  // the admin's username, or "authctl:<login>"
  std::string invited_by_id{};  // the admin's _id ("" for authctl, and invitations made before it was kept)
};

// {"id","email","role","created_at","expires_at","invited_by"}: an invitation
// as GET /admin/invitations and `authctl invitation list --json` show it.
Json to_json(const Invitation& invitation);

struct IssuedInvitation {
  Invitation invitation;
  std::string link;     // <site>/invite#token=...: for authctl to print, never logged or stored
  bool mailed = false;  // the invitation mail is in the outbox
};

struct InvitationAcceptance {
  std::string token;
  std::string username;
  std::string password;
  std::string fullname;  // optional
};

class Invitations {
 public:
  static constexpr std::string_view kNamespace = "invitation";

  // `mail`: the outbox's key (the link is queued sealed). `events` hears
  // of every mail queued and of every invitation created, accepted or
  // revoked (Core::events).
  Invitations(Store& store, const PasswordHasher& hasher, const CredentialPolicy& policy,
              const mail::Templates& templates, const MailSettings& mail, Events& events = no_events())
      : store_(store), hasher_(hasher), policy_(policy), templates_(templates), mail_(mail), events_(events) {}

  // A new invitation of `email` with `role`, living `ttl`, its link under
  // `site` (public_url, or authctl's --url). With `send_mail` the mail is
  // queued in the same transaction. Errors: invalid_input (field "email":
  // the sign-up's rules, and an address we send to when mailing; field
  // "ttl"), storage errors.
  // `invited_by`/`invited_by_id`: the admin's username and _id, or
  // "authctl:<login>" and "".
  Result<IssuedInvitation> create(std::string_view email, Role role, std::string_view invited_by,
                                  std::string_view invited_by_id, std::chrono::seconds ttl, std::string_view site,
                                  bool send_mail, std::int64_t now);

  // Inside the caller's write transaction: deletes every invitation `inviter`
  // made (an admin demoted or deleted) and returns their ids.
  static Result<std::vector<std::string>> revoke_made_by(StoreTxn& txn, const User& inviter);

  // The invitations not used, revoked or expired yet, oldest first.
  Result<std::vector<Invitation>> list(std::int64_t now);

  // Deletes the invitation `id`: its link stops working. Error: not_found.
  Result<Invitation> revoke(std::string_view id);

  // The account of an invitation (role as invited, email verified).
  // Errors: invalid_input (field "token": unknown, used, revoked or expired,
  // or its inviter may no longer grant its role: then it is deleted;
  // otherwise naming username / password / fullname), conflict (username
  // taken: the invitation stays usable), storage errors.
  Result<User> accept(const InvitationAcceptance& acceptance, std::int64_t now);

 private:
  Store& store_;
  const PasswordHasher& hasher_;
  const CredentialPolicy& policy_;
  const mail::Templates& templates_;
  const MailSettings& mail_;
  Events& events_;
};

}  // namespace authd
