// The sign-in use case (authd/sign_in.hpp): every way of signing in goes
// through the same throttle, verification, second factor, audit lines and
// session here; src/api/ only translate HTTP to and from it.
#include "authd/sign_in.hpp"

#include "authd/audit.hpp"
#include "authd/core.hpp"
#include "authd/device_notice.hpp"
#include "authd/email_verification.hpp"
#include "authd/invitations.hpp"
#include "authd/mfa.hpp"
#include "authd/second_factor_methods.hpp"
#include "authd/text.hpp"
#include "authd/username_index.hpp"

namespace authd {
namespace {

// The device token (kDeviceTokenType: its own typ, audience and key, never
// accepted as a session), naming the user it was given to.
constexpr std::string_view kDeviceSubject = "device";

// "2026-11-26 05:09:56 UTC".
std::string shown_time(std::int64_t now) {
  std::string text = rfc3339_utc(now);
  if (text.size() == 20 && text[10] == 'T' && text.back() == 'Z') {
    text[10] = ' ';
    text.pop_back();
    text += " UTC";
  }
  return text;
}

}  // namespace

SignIn::SignIn(Core& core, const mail::Templates* templates)
    : core_(core), templates_(templates), events_(core.events()) {}

void SignIn::audit(const SignInClient& client, std::string event, std::string username, std::string outcome,
                   std::string reason) const {
  if (!core_.audit().enabled()) return;
  core_.audit().record({.event = std::move(event), .username = std::move(username), .client = client.address,
                        .request_id = client.request_id, .outcome = std::move(outcome), .reason = std::move(reason)});
}

std::string SignIn::known_device(std::string_view device_token, std::string_view username, std::int64_t now) const {
  if (device_token.empty()) return {};
  auto claims = core_.tokens().verify(device_token, kDeviceTokenType, now);
  if (!claims || claims->subject != kDeviceSubject || !text::iequals(claims->username, username)) return {};
  return claims->token_id;
}

std::string SignIn::new_device_token(const User& user, std::int64_t now) const {
  return core_.tokens().issue(kDeviceTokenType, kDeviceSubject, user.username, now, {}, device_ttl());
}

std::chrono::seconds SignIn::device_ttl() const noexcept { return core_.throttle().policy().device_ttl; }

void SignIn::tell_new_device(const User& user, const SignInClient& client, std::int64_t now, std::string_view kind) {
  if (!templates_) return;
  // The browser as a summary from a fixed list (authd/device_notice.hpp):
  // the client's own text never reaches the mail.
  const std::string browser = summarise_user_agent(client.user_agent);
  const std::string address = client.address.empty() ? std::string("unknown") : client.address;
  // A pending sign-in gives no device cookie yet: the device is its address
  // and browser, told once an hour (a password tried again and again).
  const std::string once = kind == "sign_in_pending" ? address + "\n" + browser : std::string();
  tell_user(core_.store(), core_.settings().mail, *templates_, kind, user, now, events_,
            {{"time", shown_time(now)}, {"address", address}, {"user_agent", browser}}, once);
}

IssuedSession SignIn::issue(const User& user, std::string_view amr, std::int64_t now) {
  IssuedSession session;
  if (core_.refresh().enabled()) {
    if (auto started = core_.refresh().start(user, now, amr)) {
      session.refresh = std::move(*started);
    } else {
      events_.warning("cannot start a refresh token: " + started.error().message);
    }
  }
  // Issued at the `now` the family started at: its auth_time (the sign-in)
  // is then the one /token/refresh keeps in every later token.
  session.access_token =
      core_.issue_access_token(user, amr, session.refresh ? std::string_view(session.refresh->family) : "", {}, now);
  return session;
}

SignedIn SignIn::signed_in(User user, std::string amr, std::int64_t now) {
  SignedIn done;
  done.session = issue(user, amr, now);
  done.issued_at = now;
  done.user = std::move(user);
  done.amr = std::move(amr);
  return done;
}

SignedIn SignIn::signed_in_on_device(User user, std::string amr, std::string_view device, const SignInClient& client,
                                     std::int64_t now) {
  if (device.empty()) tell_new_device(user, client, now);
  SignedIn done = signed_in(std::move(user), std::move(amr), now);
  done.device_token = new_device_token(done.user, now);
  done.device_ttl = device_ttl();
  return done;
}

Result<User> SignIn::check_password(const BasicCredentials& credentials, PasswordRefusal* refusal,
                                    const SignInClient& client, std::int64_t now,
                                    const DirectoryClient::BeforeBind& before_bind) {
  auto& accounts = core_.accounts();
  auto& directory = core_.directory();
  if (!directory.enabled()) return accounts.sign_in(credentials, refusal);
  auto local = username_index::find_user(core_.store(), credentials.username);
  if (!local && local.error().code != Errc::not_found) return std::unexpected(local.error());
  const bool local_account = local && !is_directory_user(*local);
  if (local_account && directory.settings().name_clash == NameClash::local) return accounts.sign_in(credentials, refusal);
  // A name authd would not take is never sent to the directory (its filter
  // metacharacters are escaped anyway: escape_filter_value).
  if (!validate_username(credentials.username, accounts.policy()) ||
      credentials.password.size() > accounts.policy().password_max_length) {
    return accounts.sign_in(credentials, refusal);  // the same answer and work as an unknown user
  }
  auto found = directory.sign_in(credentials.username, credentials.password, now, before_bind);
  if (!found) {
    if (found.error().code == Errc::unavailable) {
      audit(client, "signin_failed", credentials.username, "refused", "no directory server answered");
      return fail(Error::retry_later(Errc::unavailable, found.error().retry_after.value_or(5),
                                     "the directory cannot be reached: directory users cannot sign in now"));
    }
    if (found.error().code != Errc::invalid_login) return std::unexpected(found.error());
    if (refusal) *refusal = PasswordRefusal::directory;
    return fail(Errc::invalid_login, "directory: " + found.error().message);
  }
  // No such entry: a local account (directory_name_clash = directory), or
  // nobody, at the cost of a password check either way.
  if (!*found) return accounts.sign_in(credentials, refusal);
  const DirectoryEntry& entry = **found;
  if (local_account) {
    events_.warning("directory: " + entry.dn + " and the local account " + local->username +
                    " share a name: neither signs in by password (directory_name_clash = directory) until the "
                    "local account is renamed or deleted");
    if (refusal) *refusal = PasswordRefusal::directory;
    return fail(Errc::invalid_login, "directory: a local account has this name");
  }
  if (refusal) *refusal = PasswordRefusal::directory;  // for the refusals below
  if (!entry.role) return fail(Errc::invalid_login, "directory: in no group that gives a role");
  auto user = accounts.sign_in_directory({.stable_id = entry.stable_id,
                                          .username = entry.username.empty() ? credentials.username : entry.username,
                                          .fullname = entry.fullname,
                                          .email = entry.email,
                                          .role = *entry.role});
  if (!user && user.error().code == Errc::conflict) {
    events_.warning("directory: " + entry.dn + " cannot sign in: " + user.error().message);
    return fail(Errc::invalid_login, "directory: " + user.error().message);
  }
  return user;
}

Result<void> SignIn::refuse_unverified(const User& user, const SignInClient& client) {
  if (!core_.settings().mail.require_verified_email) return {};
  // An account without a password signs in through its provider (which
  // vouches for it); one without an email has nothing to verify (docs/mail.md).
  if (user.password_hash.empty() || user.email.empty() || user.email_verified) return {};
  audit(client, "signin_refused", user.username, "refused", "email not verified");
  return fail(Errc::email_not_verified, "the account's email address is not verified yet");
}

Result<std::optional<SecondFactorDue>> SignIn::second_factor_due(const User& user, std::string_view first,
                                                                 const SignInClient& client, std::int64_t now) {
  auto status = core_.mfa().status(user);
  if (!status) return std::unexpected(status.error());
  if (!status->any()) return std::optional<SecondFactorDue>();
  auto token = core_.mfa().start_sign_in(user, first, now);
  if (!token) return std::unexpected(token.error());
  audit(client, "signin_mfa_pending", user.username, "ok",
        "first factor " + std::string(first) + " accepted; second factor asked");
  return std::optional<SecondFactorDue>(SecondFactorDue{std::move(*token), status->methods()});
}

Result<SignInOutcome> SignIn::with_password(const BasicCredentials& credentials, const SignInClient& client,
                                            std::int64_t now) {
  auto& throttle = core_.throttle();
  const auto device = known_device(client.device_token, credentials.username, now);
  if (auto allowed = throttle.check(credentials.username, client.address, now, device); !allowed) {
    if (allowed.error().code == Errc::throttled) {
      events_.password_sign_in(PasswordOutcome::throttled);
      audit(client, "throttled", credentials.username, "refused", allowed.error().message);
    }
    return std::unexpected(allowed.error());
  }
  PasswordRefusal refusal = PasswordRefusal::wrong;
  // A directory entry answers to several names (sAMAccountName and
  // userPrincipalName): the name typed has its count, and the entry's own
  // name is checked too before the password reaches the directory, and
  // counts every failure, so that no name gives a guesser attempts of its own.
  std::string account_name;
  const DirectoryClient::BeforeBind before_bind = [&](const DirectoryEntry& entry) -> Result<void> {
    if (entry.username.empty() || text::iequals(entry.username, credentials.username)) return {};
    account_name = entry.username;
    return throttle.check(account_name, client.address, now, device);
  };
  auto user = check_password(credentials, &refusal, client, now, before_bind);
  if (!user && user.error().code == Errc::throttled) {
    events_.password_sign_in(PasswordOutcome::throttled);
    audit(client, "throttled", credentials.username, "refused",
          user.error().message + (account_name.empty() ? "" : " (the directory account " + account_name + ")"));
    return std::unexpected(user.error());
  }
  if (!user) {
    if (user.error().code == Errc::invalid_login) {
      events_.password_sign_in(PasswordOutcome::failed);
      // An imported bcrypt hash of a refused cost: the client sees a wrong
      // password, the operator a clear line (accounts.hpp).
      const bool unusable_hash = refusal == PasswordRefusal::unusable_hash;
      if (unusable_hash) {
        events_.warning("user '" + credentials.username + "': " + user.error().message + " (accepted: " +
                        std::to_string(PasswordHasher::kBcryptMinCost) + " to " +
                        std::to_string(PasswordHasher::kBcryptMaxCost) +
                        "): password sign-in refused until an operator replaces the account's password "
                        "(authctl delete, then authctl add)");
      }
      audit(client, "signin_failed", credentials.username, "refused",
            unusable_hash || refusal == PasswordRefusal::directory ? user.error().message
                                                                   : "wrong password or unknown user");
      // Fail closed: a failure we cannot count must not be free.
      if (auto counted = throttle.record_failure(credentials.username, client.address, now, device, account_name);
          !counted) {
        return std::unexpected(counted.error());
      }
    }
    return std::unexpected(user.error());
  }
  if (auto noted = throttle.record_success(user->username, client.address, now); !noted) {
    events_.warning("cannot record a sign-in: " + noted.error().message);
  }
  if (auto verified = refuse_unverified(*user, client); !verified) {
    events_.password_sign_in(PasswordOutcome::refused);
    return std::unexpected(verified.error());
  }
  auto due = second_factor_due(*user, "pwd", client, now);
  if (!due) return std::unexpected(due.error());
  if (*due) {
    // The password was right: from a new device, the owner hears of it now,
    // before the second factor (a stolen password is news even if it stops there).
    if (device.empty()) tell_new_device(*user, client, now, "sign_in_pending");
    return SignInOutcome(std::move(**due));
  }

  events_.password_sign_in(PasswordOutcome::ok);
  audit(client, "signin", user->username, "ok");
  return SignInOutcome(signed_in_on_device(std::move(*user), "", device, client, now));
}

Result<std::string> SignIn::verify_second_factor(const User& user, const SecondFactorProof& proof, std::int64_t now) {
  if (proof.method.empty()) return core_.mfa().verify_code(user, proof.code, now);
  auto proved = core_.mfa().verify_answer(proof.method, proof.answer.value_or(Json()), user.id, core_.tokens(), now);
  if (!proved) return std::unexpected(proved.error());
  return std::move(proved->amr);
}

Result<SignInOutcome> SignIn::with_second_factor(std::string_view mfa_token, const SecondFactorProof& proof,
                                                 const SignInClient& client, std::int64_t now) {
  auto& mfa = core_.mfa();
  auto pending = mfa.pending(mfa_token, now);
  if (!pending) return std::unexpected(pending.error());
  auto& throttle = core_.throttle();
  if (auto allowed = throttle.check(second_factor_throttle_key(pending->username), client.address, now); !allowed) {
    return std::unexpected(allowed.error());
  }
  auto user = core_.accounts().find(pending->username);
  if (!user || user->id != pending->user_id) {
    (void)mfa.finish_sign_in(mfa_token);
    return fail(Errc::mfa_failed, "the account of this sign-in no longer exists");
  }
  auto method = verify_second_factor(*user, proof, now);
  if (!method) {
    if (method.error().code == Errc::mfa_failed) {
      const auto answered = proof.method.empty() ? nullptr : find_second_factor_method(proof.method);
      audit(client, "signin_mfa_failed", user->username, "refused",
            answered ? answered->refused_reason : SecondFactorMethod().refused_reason);
      (void)mfa.failed_attempt(mfa_token);
      if (auto counted = throttle.record_failure(second_factor_throttle_key(user->username), client.address, now); !counted) {
        events_.warning("cannot count a failed second factor: " + counted.error().message);
      }
    }
    return std::unexpected(method.error());
  }
  // Spent now; a second request with the same token fails here even if its code was right.
  if (auto spent = mfa.finish_sign_in(mfa_token); !spent) return std::unexpected(spent.error());
  if (auto noted = throttle.record_success(second_factor_throttle_key(user->username), client.address, now); !noted) {
    events_.warning("cannot record a second-factor sign-in: " + noted.error().message);
  }
  audit(client, "signin", user->username, "ok", "with second factor " + *method);
  const auto device = known_device(client.device_token, user->username, now);
  return SignInOutcome(signed_in_on_device(std::move(*user), pending->first + " " + *method, device, client, now));
}

Result<SignInOutcome> SignIn::with_method(std::string_view method, const Json& answer, const SignInClient& client,
                                          std::int64_t now) {
  // How the audit log names the method (the passkey's "passkey"); an unknown
  // name fails below as not_configured and is audited as such.
  const auto declared = find_second_factor_method(method);
  const std::string shown = declared ? declared->audit_name : std::string(method);
  auto proved = core_.mfa().verify_answer(method, answer, std::nullopt, core_.tokens(), now);
  if (!proved) {
    audit(client, "signin_failed", "", "refused", declared ? declared->refused_reason : "no such method");
    return std::unexpected(proved.error());
  }
  auto user = core_.accounts().find(proved->username);
  if (!user || user->id != proved->user_id) {
    return fail(Errc::mfa_failed, "the " + shown + "'s account no longer exists");
  }
  if (auto verified = refuse_unverified(*user, client); !verified) return std::unexpected(verified.error());
  audit(client, "signin", user->username, "ok", shown);
  const auto device = known_device(client.device_token, user->username, now);
  return SignInOutcome(signed_in_on_device(std::move(*user), std::move(proved->amr), device, client, now));
}

Result<SignInOutcome> SignIn::with_provider(const ExternalIdentity& identity, const SignInClient& client,
                                            std::int64_t now) {
  // signup_mode = invite: only accounts that exist already (as Keycloak and
  // authentik do with registration off); a new person needs an invitation.
  const bool create_new = core_.settings().invitations.signup_mode == SignupMode::open;
  auto account = core_.accounts().sign_in_external(identity, core_.settings().oauth.keep_role, create_new);
  if (!account) {
    if (account.error().code == Errc::signup_closed) {
      audit(client, "oauth_signin", "", "refused", identity.provider + ", no account and sign-up by invitation only");
    }
    return std::unexpected(account.error());
  }
  if (auto verified = refuse_unverified(account->user, client); !verified) return std::unexpected(verified.error());
  // The device cookie the browser had when the sign-in started (GET /oauth
  // carries it through the state: the provider's redirect back is cross-site).
  const auto device = known_device(client.device_token, account->user.username, now);
  if (core_.settings().mfa.for_oauth) {
    auto due = second_factor_due(account->user, "fed", client, now);
    if (!due) return std::unexpected(due.error());
    if (*due) {
      if (device.empty()) tell_new_device(account->user, client, now, "sign_in_pending");
      return SignInOutcome(std::move(**due));
    }
  }
  audit(client, "oauth_signin", account->user.username, "ok",
        identity.provider + (account->created ? ", account created" : ""));
  // A new account has no device to be new to: it gets its cookie, no notice.
  if (account->created) {
    SignedIn done = signed_in(std::move(account->user), "", now);
    done.device_token = new_device_token(done.user, now);
    done.device_ttl = device_ttl();
    return SignInOutcome(std::move(done));
  }
  return SignInOutcome(signed_in_on_device(std::move(account->user), "", device, client, now));
}

}  // namespace authd
