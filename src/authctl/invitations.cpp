// authctl invite|invitation list|invitation revoke: invitations
// (authd/invitations.hpp) made on the store directly, as POST
// /admin/invitations makes them. `invite` prints the link, so that an
// operator without a mail server can hand it over (whoever runs authctl can
// create accounts anyway); with smtp_url set the mail goes too (unless
// --no-mail), sent by a running authd's mail sender.
#include <charconv>
#include <cstdio>
#include <ctime>
#include <optional>

#include "authd/clock.hpp"
#include "authd/invitations.hpp"
#include "commands.hpp"

namespace authctl {
namespace {

using namespace authd;

std::string utc(std::int64_t when) {
  const std::time_t t = static_cast<std::time_t>(when);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// --ttl SECONDS, else invitation_ttl. nullopt (after a message) when malformed.
std::optional<std::chrono::seconds> ttl_option(const Context& context, const Invocation& invocation) {
  if (!invocation.has("ttl")) return context.settings().core.invitations.ttl;
  const std::string text = invocation.value("ttl");
  long long seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > kInvitationMaxTtl.count()) {
    std::fprintf(stderr, "authctl: --ttl must be a number of seconds from 1 to %lld\n",
                 static_cast<long long>(kInvitationMaxTtl.count()));
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

// Runs `use` with the core's invitations, written with the operator's mail
// templates (mail_templates) when `mailing`, else the built-in ones (a
// broken template directory stops only `invite`); the exit code of `use`,
// or kFailure after a message.
template <class Use>
int with_invitations(Context& context, bool mailing, Use use) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  Core& c = **core;
  if (mailing) {
    if (auto loaded = c.load_mail_templates(); !loaded) return failure(loaded.error().message);
  }
  return use(c, c.invitations());
}

}  // namespace

int invite(Context& context, const Invocation& invocation) {
  const std::string& email = invocation.operands[0];
  const auto role = parse_role(invocation.operands[1]);
  if (!role) return failure("unknown role '" + invocation.operands[1] + "' (admin, editor, writer, user)");
  const auto ttl = ttl_option(context, invocation);
  if (!ttl) return kFailure;
  const MailSettings& mail_settings = context.settings().core.mail;
  std::string site = invocation.has("url") ? invocation.value("url") : mail_settings.public_url;
  while (!site.empty() && site.back() == '/') site.pop_back();
  if (!site.starts_with("https://") && !site.starts_with("http://")) {
    return failure("the link needs the site's address: set public_url or give --url https://auth.example.org");
  }
  const bool send_mail = mail_settings.enabled() && !invocation.has("no-mail");
  return with_invitations(context, true, [&](Core& c, Invitations& invitations) {
    const Actor actor = operator_actor();
    auto issued = invitations.create(email, *role, actor.name, "", *ttl, site, send_mail, unix_now());
    if (!issued) return failure(issued.error().message);
    const Invitation& invitation = issued->invitation;
    c.audit().record({.event = "invitation_created", .client = actor.client, .outcome = "ok",
                      .reason = "invitation " + invitation.id + ", role " + std::string(to_string(invitation.role)),
                      .actor = actor.name});
    if (context.json()) {
      Json shown = to_json(invitation);
      shown.set("link", Json::string(issued->link)).set("mailed", Json::boolean(issued->mailed));
      print_json(shown);
      return kOk;
    }
    std::printf("invitation %s: %s as %s, until %s\nlink: %s\n", invitation.id.c_str(), invitation.email.c_str(),
                std::string(to_string(invitation.role)).c_str(), utc(invitation.expires_at).c_str(),
                issued->link.c_str());
    std::fputs(issued->mailed ? "authctl: the link is mailed too (authd's mail sender delivers it)\n"
                              : "authctl: not mailed: hand the link over yourself; it works once\n",
               stderr);
    return kOk;
  });
}

int list_invitations(Context& context, const Invocation&) {
  return with_invitations(context, false, [&](Core&, Invitations& invitations) {
    auto pending = invitations.list(unix_now());
    if (!pending) return failure(pending.error().message);
    if (context.json()) {
      Json list = Json::array();
      for (const auto& invitation : *pending) list.append(to_json(invitation));
      print_json(list);
      return kOk;
    }
    std::printf("%-16s %-7s %-23s %s\n", "ID", "ROLE", "EXPIRES", "EMAIL");
    for (const auto& invitation : *pending) {
      std::printf("%-16s %-7s %-23s %s\n", invitation.id.c_str(), std::string(to_string(invitation.role)).c_str(),
                  utc(invitation.expires_at).c_str(), invitation.email.c_str());
    }
    return kOk;
  });
}

int revoke_invitation(Context& context, const Invocation& invocation) {
  return with_invitations(context, false, [&](Core& c, Invitations& invitations) {
    const std::string& id = invocation.operands[0];
    auto revoked = invitations.revoke(id);
    if (!revoked) return failure(revoked.error().message + " '" + id + "'");
    const Actor actor = operator_actor();
    c.audit().record({.event = "invitation_revoked", .client = actor.client, .outcome = "ok",
                      .reason = "invitation " + revoked->id, .actor = actor.name});
    std::printf("revoked %s (%s)\n", revoked->id.c_str(), revoked->email.c_str());
    return kOk;
  });
}

}  // namespace authctl
