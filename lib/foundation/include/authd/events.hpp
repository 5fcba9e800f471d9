// What the library tells the program it runs in, besides its answers: one
// observer, given to Core::open and handed by Core to the services it builds,
// through which every side effect leaves (authd: a queued mail wakes the
// mail sender, a warning reaches the log, a sign-in's outcome and an
// invitation's /metrics).
// Every member does nothing by default; no member may throw.
#pragma once

#include <string_view>

namespace authd {

// How a password sign-in ended (authd: authd_signins_total{outcome}).
enum class PasswordOutcome { ok, failed, throttled, refused };

constexpr std::string_view to_string(PasswordOutcome outcome) noexcept {
  switch (outcome) {
    case PasswordOutcome::ok: return "ok";
    case PasswordOutcome::failed: return "failed";
    case PasswordOutcome::throttled: return "throttled";
    case PasswordOutcome::refused: return "refused";
  }
  return "failed";
}

// What became of an invitation (authd: authd_invitations_total{event}).
enum class InvitationEvent { created, accepted, revoked };

constexpr std::string_view to_string(InvitationEvent event) noexcept {
  switch (event) {
    case InvitationEvent::created: return "created";
    case InvitationEvent::accepted: return "accepted";
    case InvitationEvent::revoked: return "revoked";
  }
  return "created";
}

class Events {
 public:
  virtual ~Events() = default;
  // A mail was queued in the outbox and its write committed (authd wakes its sender).
  virtual void mail_queued() {}
  // Back-channel logouts were queued and their write committed (authd wakes its logout sender).
  virtual void logout_queued() {}
  // Something for the operator's log (never a secret).
  virtual void warning(std::string_view) {}
  // A password sign-in ended.
  virtual void password_sign_in(PasswordOutcome) {}
  // An invitation was created, accepted (its account made) or revoked by id
  // (Invitations; not those an inviter's demotion or deletion revokes).
  virtual void invitation(InvitationEvent) {}
};

// The observer that hears nothing (a program that gives none).
inline Events& no_events() {
  static Events none;
  return none;
}

}  // namespace authd
