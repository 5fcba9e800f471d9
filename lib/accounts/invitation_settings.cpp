// The settings of sign-up and invitations (authd/invitations.hpp).
#include "authd/invitations.hpp"

namespace authd {

std::vector<settings::Setting> invitation_settings(InvitationSettings& s) {
  return settings::grouped("Sign-up and invitations", {
      settings::choice("signup_mode", s.signup_mode, {{"open", SignupMode::open}, {"invite", SignupMode::invite}},
                       "Who may create an account (docs/mail.md): open = anyone (POST /signup, and third-party "
                       "sign-in creates accounts); invite = only people invited by an admin (POST "
                       "/admin/invitations, authctl invite): POST /signup answers 403 Sign-up Closed and "
                       "third-party sign-in admits only accounts that exist already."),
      settings::seconds("invitation_ttl", s.ttl, 60, kInvitationMaxTtl.count(),
                        "Lifetime of an invitation link, in seconds (authctl invite --ttl sets one invitation's)."),
  });
}

}  // namespace authd
