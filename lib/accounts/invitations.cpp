#include "authd/invitations.hpp"

#include <algorithm>
#include <optional>

#include "mailed_link.hpp"
#include "authd/username_index.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"
#include "authd/password_reset.hpp"

namespace authd {
namespace {

constexpr std::size_t kIdBytes = 8;

std::string encode(const Invitation& invitation) {
  Json value = Json::object();
  value.set("id", Json::string(invitation.id))
      .set("email", Json::string(invitation.email))
      .set("role", Json::string(to_string(invitation.role)))
      .set("created", Json::integer(invitation.created_at))
      .set("exp", Json::integer(invitation.expires_at))
      .set("by", Json::string(invitation.invited_by))
      .set("by_id", Json::string(invitation.invited_by_id));
  return value.dump();
}

std::optional<Invitation> decode(std::string_view text) {
  auto value = Json::parse(text);
  if (!value || !value->is_object()) return std::nullopt;
  const auto role = parse_role(value->get_string("role").value_or(""));
  if (!role) return std::nullopt;
  return Invitation{std::string(value->get_string("id").value_or("")),
                    std::string(value->get_string("email").value_or("")),
                    *role,
                    value->get_integer("created").value_or(0),
                    value->get_integer("exp").value_or(0),
                    std::string(value->get_string("by").value_or("")),
                    std::string(value->get_string("by_id").value_or(""))};
}

bool made_by_operator(const Invitation& invitation) { return invitation.invited_by.starts_with("authctl:"); }

// The inviter may still grant the invitation's role: authctl's operator
// (whoever can run authctl owns the store), or the same admin account, by
// name and _id, still an admin. Any role needs an admin: only admins invite.
Result<bool> inviter_may_grant(StoreTxn& txn, const Invitation& invitation) {
  if (made_by_operator(invitation)) return true;
  if (invitation.invited_by.empty()) return false;
  auto inviter = txn.find_user(invitation.invited_by);
  if (!inviter) {
    if (inviter.error().code == Errc::not_found) return false;
    return std::unexpected(inviter.error());
  }
  if (!invitation.invited_by_id.empty() && inviter->id != invitation.invited_by_id) return false;  // a new account of that name
  return inviter->role == Role::admin;
}

}  // namespace

Result<IssuedInvitation> Invitations::create(std::string_view email, Role role, std::string_view invited_by,
                                             std::string_view invited_by_id, std::chrono::seconds ttl,
                                             std::string_view site, bool send_mail, std::int64_t now) {
  if (auto ok = validate_email(email, policy_); !ok) return fail_field("email", ok.error().message);
  if (send_mail && !mail::valid_address(email)) {
    return fail_field("email", "email must be an address mail can be sent to (ASCII, no quotes or spaces)");
  }
  if (ttl.count() < 1 || ttl > kInvitationMaxTtl) {
    return fail_field("ttl", "ttl must be from 1 to " + std::to_string(kInvitationMaxTtl.count()) + " seconds");
  }
  IssuedInvitation issued;
  Invitation& invitation = issued.invitation;
  invitation.id = crypto::random_hex(kIdBytes);
  invitation.email = std::string(email);
  invitation.role = role;
  invitation.created_at = now;
  invitation.expires_at = now + ttl.count();
  invitation.invited_by = std::string(invited_by);
  invitation.invited_by_id = std::string(invited_by_id);
  const std::string token = crypto::random_token(mailed_link::kTokenBytes);
  issued.link = std::string(site) + "/invite#token=" + token;
  std::optional<mail::Message> message;
  if (send_mail) {
    auto rendered = templates_.render("invitation", email,
                                      {{"site", std::string(site)},
                                       {"link", issued.link},
                                       {"email", std::string(email)},
                                       {"role", std::string(to_string(role))},
                                       {"expires", describe_duration(ttl.count())}});
    if (!rendered) return std::unexpected(rendered.error());
    message = std::move(*rendered);
  }
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    const std::string key = mailed_link::key_of(token);
    if (auto ok = txn.put_entry(kNamespace, key, encode(invitation), invitation.expires_at); !ok) return ok;
    if (!message) return {};
    // The mail ends with the link: a message still queued then is useless.
    auto queued = mail::Outbox::enqueue(txn, mail_, *message, "invitation", "", now, invitation.expires_at);
    if (!queued) return std::unexpected(queued.error());
    return {};
  });
  if (!done) return std::unexpected(done.error());
  issued.mailed = message.has_value();
  if (issued.mailed) events_.mail_queued();
  events_.invitation(InvitationEvent::created);
  return issued;
}

Result<std::vector<Invitation>> Invitations::list(std::int64_t now) {
  auto all = read_value(store_, [&](StoreTxn& txn) { return txn.list_entries(kNamespace); });
  if (!all) return std::unexpected(all.error());
  std::vector<Invitation> pending;
  for (const auto& [key, text] : *all) {
    auto invitation = decode(text);
    if (invitation && invitation->expires_at > now) pending.push_back(std::move(*invitation));
  }
  std::sort(pending.begin(), pending.end(), [](const Invitation& a, const Invitation& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  });
  return pending;
}

Result<Invitation> Invitations::revoke(std::string_view id) {
  std::optional<Invitation> revoked;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    revoked.reset();
    auto all = txn.list_entries(kNamespace);
    if (!all) return std::unexpected(all.error());
    for (const auto& [key, text] : *all) {
      auto invitation = decode(text);
      if (!invitation || invitation->id != id) continue;
      revoked = std::move(*invitation);
      return txn.delete_entry(kNamespace, key);
    }
    return {};
  });
  if (!done) return std::unexpected(done.error());
  if (!revoked) return fail(Errc::not_found, "no such invitation");
  events_.invitation(InvitationEvent::revoked);
  return std::move(*revoked);
}

Result<std::vector<std::string>> Invitations::revoke_made_by(StoreTxn& txn, const User& inviter) {
  std::vector<std::string> revoked;
  auto all = txn.list_entries(kNamespace);
  if (!all) return std::unexpected(all.error());
  for (const auto& [key, text] : *all) {
    auto invitation = decode(text);
    if (!invitation || invitation->invited_by != inviter.username) continue;
    if (!invitation->invited_by_id.empty() && invitation->invited_by_id != inviter.id) continue;
    if (auto ok = txn.delete_entry(kNamespace, key); !ok) return std::unexpected(ok.error());
    revoked.push_back(std::move(invitation->id));
  }
  return revoked;
}

Result<User> Invitations::accept(const InvitationAcceptance& acceptance, std::int64_t now) {
  auto invalid = [] {
    return fail_field("token", "the invitation link is unknown, used, revoked or expired: ask for a new one");
  };
  if (acceptance.token.empty() || acceptance.token.size() > 128) return invalid();
  const std::string key = mailed_link::key_of(acceptance.token);
  // Cheap checks first, so that an unknown token or a taken name costs no hashing.
  auto known = read_value(store_, [&](StoreTxn& txn) { return txn.get_entry(kNamespace, key); });
  if (!known) return std::unexpected(known.error());
  const auto invitation = *known ? decode(**known) : std::nullopt;
  if (!invitation || invitation->expires_at <= now) return invalid();
  const SignupRequest fields{acceptance.username, acceptance.password, acceptance.fullname, invitation->email};
  if (auto ok = validate_signup(fields, policy_); !ok) return std::unexpected(ok.error());
  if (auto taken = username_index::find_user(store_, acceptance.username)) {
    return fail(Errc::conflict, "username already exists");
  } else if (taken.error().code != Errc::not_found) {
    return std::unexpected(taken.error());
  }
  auto hash = hasher_.hash(acceptance.password);
  if (!hash) return std::unexpected(hash.error());

  User user;
  user.username = acceptance.username;
  user.password_hash = std::move(*hash);
  user.fullname = acceptance.fullname;
  user.created_at = user.updated_at = now;
  bool valid = false;
  bool inviter_gone = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    valid = false;  // a backend may run this again (serialization failure)
    inviter_gone = false;
    auto entry = txn.get_entry(kNamespace, key);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return {};  // used or revoked meanwhile
    const auto current = decode(**entry);
    // Malformed, or expired but not purged yet: refuse (and drop it).
    if (!current || current->expires_at <= now) return txn.delete_entry(kNamespace, key);
    // The inviter was demoted or deleted since: the invitation dies with their power.
    auto granted = inviter_may_grant(txn, *current);
    if (!granted) return std::unexpected(granted.error());
    if (!*granted) {
      inviter_gone = true;
      return txn.delete_entry(kNamespace, key);
    }
    user.id = new_object_id();
    user.role = current->role;
    user.email = current->email;
    user.email_verified = true;  // the link reached the address
    if (auto ok = username_index::insert_user(txn, user); !ok) return ok;  // conflict: the invitation stays
    if (auto ok = txn.delete_entry(kNamespace, key); !ok) return ok;
    valid = true;
    return {};
  });
  if (!done) {
    if (done.error().code == Errc::conflict) return fail(Errc::conflict, "username already exists");
    return std::unexpected(done.error());
  }
  if (inviter_gone) {
    return fail_field("token", "the invitation was revoked: whoever made it may no longer grant its role; ask for a "
                               "new one");
  }
  if (!valid) return invalid();
  events_.invitation(InvitationEvent::accepted);
  return user;
}

Json to_json(const Invitation& invitation) {
  Json shown = Json::object();
  shown.set("id", Json::string(invitation.id))
      .set("email", Json::string(invitation.email))
      .set("role", Json::string(to_string(invitation.role)))
      .set("created_at", Json::integer(invitation.created_at))
      .set("expires_at", Json::integer(invitation.expires_at))
      .set("invited_by", Json::string(invitation.invited_by));
  return shown;
}

}  // namespace authd
