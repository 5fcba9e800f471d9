#include "authd/passkeys.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "authd/crypto.hpp"
#include "authd/second_factor_methods.hpp"
#include "builtin_methods.hpp"
#include "webauthn.hpp"

namespace authd {
namespace {

constexpr std::int64_t kTimeoutMs = 120000;
constexpr std::string_view kAnyone = "anyone";     // the subject of a password-less sign-in's challenge
constexpr std::size_t kMaxChallengeText = 2048;   // base64url of the challenge token

std::unexpected<Error> refuse(std::string why) { return fail(Errc::mfa_failed, std::move(why)); }

webauthn::Policy policy_of(const MfaSettings& s) { return {s.rp_id, s.origins, s.require_user_verification}; }

// A password-less sign-in is the whole authentication: the authenticator
// must have verified the user (PIN, biometrics), whatever
// webauthn_user_verification says for second-factor use (WebAuthn §7.2
// step 17: the options asked for "required"; issue 23 class 3).
webauthn::Policy signin_policy_of(const MfaSettings& s) {
  auto policy = policy_of(s);
  policy.require_user_verification = true;
  return policy;
}

// A base64url member of `object`, decoded. Error: invalid_input naming it.
Result<std::string> binary_member(const Json& object, std::string_view name) {
  const auto text = object.get_string(name);
  if (!text) return fail_field(std::string(name), std::string(name) + " must be a base64url string");
  auto decoded = crypto::base64url_decode(*text);
  if (!decoded) {
    // Browsers may pad; accept that one variation.
    std::string trimmed(*text);
    while (!trimmed.empty() && trimmed.back() == '=') trimmed.pop_back();
    decoded = crypto::base64url_decode(trimmed);
  }
  if (!decoded) return fail_field(std::string(name), std::string(name) + " must be a base64url string");
  return std::move(*decoded);
}

// A challenge is a signed token (kChallengeTokenType: its own typ, audience
// and key, token.hpp): nothing is stored when it is handed out, so an anonymous
// POST /signin/passkey/begin costs no write (issue 23 class 9). It names its
// ceremony (`purpose`) and user (`sub`), and expires after
// webauthn_challenge_ttl; its raw bytes are the token's text.
std::string new_challenge(const TokenService& tokens, std::string_view purpose, std::string_view user_id,
                          std::int64_t now, std::chrono::seconds ttl) {
  const std::string token =
      tokens.issue(kChallengeTokenType, user_id.empty() ? kAnyone : user_id, "", now, {{"purpose", std::string(purpose)}}, ttl);
  return crypto::base64url_encode(token);
}

struct Challenge {
  std::string raw;  // the bytes the authenticator signed over (via clientDataJSON)
  std::string id;   // jti: spent once, see spend()
  std::int64_t expires_at = 0;
};

// Checks a presented challenge: ours, unexpired, for `purpose` and `user_id`, not spent.
Result<Challenge> open_challenge(Store& store, const TokenService& tokens, std::string_view challenge,
                                 std::string_view purpose, std::string_view user_id, std::int64_t now) {
  auto raw = crypto::base64url_decode(challenge);
  if (!raw) return refuse("malformed challenge");
  auto claims = tokens.verify(*raw, kChallengeTokenType, now);
  if (!claims) return refuse("unknown or expired challenge");
  const auto named = claims->extra.find("purpose");
  if (named == claims->extra.end() || named->second != purpose ||
      claims->subject != (user_id.empty() ? kAnyone : user_id)) {
    return refuse("the challenge was issued for another ceremony");
  }
  auto spent = read_value(store, [&](StoreTxn& txn) { return txn.get_entry(kChallengeNamespace, claims->token_id); });
  if (!spent) return std::unexpected(spent.error());
  if (*spent) return refuse("the challenge was used already");
  return Challenge{std::move(*raw), claims->token_id, claims->expires_at};
}

// Marks a challenge used, inside the write that accepts its ceremony: a
// replayed registration or assertion fails here. Only a verified ceremony
// writes, so unauthenticated callers cannot make the store grow.
Result<void> spend(StoreTxn& txn, const Challenge& challenge) {
  auto spent = txn.get_entry(kChallengeNamespace, challenge.id);
  if (!spent) return std::unexpected(spent.error());
  if (*spent) return refuse("the challenge was used already");
  return txn.put_entry(kChallengeNamespace, challenge.id, "spent", challenge.expires_at + 1);
}

// The passkey index entry (kPasskeyNamespace, by credential id): its owner's
// _id and name, a line each.
std::string owner_entry(std::string_view user_id, std::string_view username) {
  return std::string(user_id) + "\n" + std::string(username);
}

// The `response` object of a PublicKeyCredential. Error: invalid_input.
Result<Json> response_of(const Json& credential) {
  if (!credential.is_object() || !credential.get("response").is_object()) {
    return fail_field("response", "the credential needs a response object");
  }
  return credential.get("response");
}

// A ceremony's response decoded: clientDataJSON, the ceremony's other members
// (in the order asked for), and the challenge clientDataJSON names, checked
// (open_challenge: ours, unexpired, for `purpose` and `user_id`, not spent).
struct Answer {
  std::string client_data;
  std::vector<std::string> members;
  Challenge challenge;
};

Result<Answer> open_answer(Store& store, const TokenService& tokens, const Json& response,
                           std::initializer_list<std::string_view> members, std::string_view purpose,
                           std::string_view user_id, std::int64_t now) {
  Answer answer;
  auto client_data = binary_member(response, "clientDataJSON");
  if (!client_data) return std::unexpected(client_data.error());
  answer.client_data = std::move(*client_data);
  for (const auto name : members) {
    auto member = binary_member(response, name);
    if (!member) return std::unexpected(member.error());
    answer.members.push_back(std::move(*member));
  }
  // The challenge named in clientDataJSON (base64url), so it can be checked.
  auto client = Json::parse(answer.client_data, 8);
  if (!client || !client->is_object()) return refuse("clientDataJSON is not a JSON object");
  const auto named = client->get_string("challenge");
  if (!named || named->empty() || named->size() > kMaxChallengeText) return refuse("clientDataJSON has no challenge");
  auto challenge = open_challenge(store, tokens, *named, purpose, user_id, now);
  if (!challenge) return std::unexpected(challenge.error());
  answer.challenge = std::move(*challenge);
  return answer;
}

Json credential_list(const Json& passkeys) {
  Json list = Json::array();
  for (std::size_t i = 0; i < passkeys.size(); ++i) {
    Json entry = Json::object();
    entry.set("type", Json::string("public-key")).set("id", Json::string(passkeys.at(i).get_string("id").value_or("")));
    list.append(std::move(entry));
  }
  return list;
}

std::string_view verification(const MfaSettings& s) { return s.require_user_verification ? "required" : "preferred"; }

}  // namespace

Result<void> Passkeys::enabled() const {
  if (settings_.rp_id.empty()) return fail(Errc::not_configured, "passkeys are not configured (webauthn_rp_id)");
  return {};
}

Result<Json> Passkeys::begin_registration(const User& user, std::int64_t now) {
  if (auto ok = enabled(); !ok) return std::unexpected(ok.error());
  auto state = read_value(store_, [&](StoreTxn& txn) { return SecondFactors::load(txn, user.id); });
  if (!state) return std::unexpected(state.error());
  const auto challenge = new_challenge(tokens_, "register", user.id, now, settings_.challenge_ttl);
  Json rp = Json::object();
  rp.set("id", Json::string(settings_.rp_id)).set("name", Json::string(settings_.rp_name));
  Json person = Json::object();
  person.set("id", Json::string(crypto::base64url_encode(user.id)))
      .set("name", Json::string(user.username))
      .set("displayName", Json::string(user.fullname.empty() ? user.username : user.fullname));
  Json params = Json::array();
  for (const int alg : {-7, -8}) {
    Json p = Json::object();
    p.set("type", Json::string("public-key")).set("alg", Json::integer(alg));
    params.append(std::move(p));
  }
  Json selection = Json::object();
  selection.set("residentKey", Json::string("preferred"))
      .set("requireResidentKey", Json::boolean(false))
      .set("userVerification", Json::string(verification(settings_)));
  Json options = Json::object();
  options.set("challenge", Json::string(challenge))
      .set("rp", std::move(rp))
      .set("user", std::move(person))
      .set("pubKeyCredParams", std::move(params))
      .set("timeout", Json::integer(kTimeoutMs))
      .set("attestation", Json::string("none"))
      .set("authenticatorSelection", std::move(selection))
      .set("excludeCredentials", credential_list(state->get("passkeys")));
  return options;
}

Result<PasskeyRegistered> Passkeys::finish_registration(const User& user, const Json& credential,
                                                        std::string_view name, std::int64_t now) {
  if (auto ok = enabled(); !ok) return std::unexpected(ok.error());
  auto response = response_of(credential);
  if (!response) return std::unexpected(response.error());
  auto answer = open_answer(store_, tokens_, *response, {"attestationObject"}, "register", user.id, now);
  if (!answer) return std::unexpected(answer.error());
  const Challenge& challenge = answer->challenge;
  auto registration =
      webauthn::verify_registration(policy_of(settings_), challenge.raw, answer->client_data, answer->members[0]);
  if (!registration) return std::unexpected(registration.error());

  PasskeyRegistered out;
  out.id = crypto::base64url_encode(registration->credential.id);
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto known = txn.get_entry(kPasskeyNamespace, out.id);
    if (!known) return std::unexpected(known.error());
    if (*known) return fail(Errc::conflict, "this passkey is registered already");
    if (auto spent = spend(txn, challenge); !spent) return spent;
    auto state = SecondFactors::load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    Json passkeys = state->get("passkeys");
    if (!passkeys.is_array()) passkeys = Json::array();
    Json entry = Json::object();
    entry.set("id", Json::string(out.id))
        .set("key", Json::string(crypto::base64url_encode(registration->credential.public_key)))
        .set("count", Json::integer(registration->credential.sign_count))
        .set("created", Json::integer(now))
        .set("name", Json::string(name.empty() ? std::string_view("passkey") : name));
    passkeys.append(std::move(entry));
    state->set("passkeys", passkeys);
    out.recovery_codes.clear();
    if (state->get("recovery").size() == 0) out.recovery_codes = SecondFactors::new_recovery_codes(*state);
    if (auto ok = txn.put_entry(kPasskeyNamespace, out.id, owner_entry(user.id, user.username), 0); !ok) return ok;
    return SecondFactors::save(txn, user.id, *state);
  });
  if (!done) return std::unexpected(done.error());
  return out;
}

Result<void> Passkeys::remove(const User& user, std::string_view credential_id) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto state = SecondFactors::load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    const Json passkeys = state->get("passkeys");
    Json left = Json::array();
    bool found = false;
    for (std::size_t i = 0; i < passkeys.size(); ++i) {
      if (passkeys.at(i).get_string("id").value_or("") == credential_id) {
        found = true;
      } else {
        left.append(passkeys.at(i));
      }
    }
    if (!found) return fail(Errc::not_found, "no such passkey");
    if (auto ok = txn.delete_entry(kPasskeyNamespace, credential_id); !ok) return ok;
    state->set("passkeys", std::move(left));
    return SecondFactors::save(txn, user.id, *state);  // the recovery codes too when it was the last primary factor
  });
}

Result<Json> Passkeys::begin_authentication(const std::optional<User>& user, std::int64_t now) {
  if (auto ok = enabled(); !ok) return std::unexpected(ok.error());
  Json allowed = Json::array();
  if (user) {
    auto state = read_value(store_, [&](StoreTxn& txn) { return SecondFactors::load(txn, user->id); });
    if (!state) return std::unexpected(state.error());
    allowed = credential_list(state->get("passkeys"));
    if (allowed.size() == 0) return refuse("the user has no passkey");
  }
  const auto challenge = new_challenge(tokens_, user ? "assert" : "signin", user ? user->id : std::string(), now,
                                      settings_.challenge_ttl);
  Json options = Json::object();
  options.set("challenge", Json::string(challenge))
      .set("rpId", Json::string(settings_.rp_id))
      .set("timeout", Json::integer(kTimeoutMs))
      .set("userVerification", Json::string(user ? verification(settings_) : std::string_view("required")))
      .set("allowCredentials", std::move(allowed));
  return options;
}

Result<PasskeyUsed> Passkeys::finish_authentication(const Json& credential, std::optional<std::string_view> user_id,
                                                    std::int64_t now) {
  if (auto ok = enabled(); !ok) return std::unexpected(ok.error());
  auto response = response_of(credential);
  if (!response) return std::unexpected(response.error());
  const auto id = credential.get_string("id");
  if (!id || id->empty() || id->size() > 1400) return fail_field("id", "id must be the credential id (base64url)");
  auto answer = open_answer(store_, tokens_, *response, {"authenticatorData", "signature"},
                            user_id ? "assert" : "signin", user_id ? *user_id : std::string_view(), now);
  if (!answer) return std::unexpected(answer.error());
  const Challenge& challenge = answer->challenge;
  const auto policy = user_id ? policy_of(settings_) : signin_policy_of(settings_);

  PasskeyUsed out;
  std::optional<Error> refused;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto owner = txn.get_entry(kPasskeyNamespace, *id);
    if (!owner) return std::unexpected(owner.error());
    if (!*owner) return refuse("unknown passkey");
    const auto newline = (*owner)->find('\n');
    out.user_id = (*owner)->substr(0, newline);
    out.username = newline == std::string::npos ? std::string() : (*owner)->substr(newline + 1);
    if (user_id && out.user_id != *user_id) return refuse("the passkey belongs to another user");
    auto state = SecondFactors::load(txn, out.user_id);
    if (!state) return std::unexpected(state.error());
    Json passkeys = state->get("passkeys");
    for (std::size_t i = 0; i < passkeys.size(); ++i) {
      Json entry = passkeys.at(i);
      if (entry.get_string("id").value_or("") != *id) continue;
      const auto key = crypto::base64url_decode(entry.get_string("key").value_or(""));
      if (!key) return fail(Errc::internal, "corrupt passkey entry");
      const webauthn::Credential stored{std::string(*id), *key,
                                        static_cast<std::uint32_t>(entry.get_integer("count").value_or(0))};
      auto used = webauthn::verify_assertion(policy, challenge.raw, stored, answer->client_data, answer->members[0],
                                             answer->members[1]);
      if (!used) {
        refused = used.error();  // committed as is: nothing was changed
        return {};
      }
      if (auto spent = spend(txn, challenge); !spent) return spent;
      out.user_verified = used->user_verified;
      entry.set("count", Json::integer(used->sign_count));
      return SecondFactors::save(txn, out.user_id, *state);
    }
    return refuse("unknown passkey");  // the index outlived the factor (reset, deleted user)
  });
  if (!done) return std::unexpected(done.error());
  if (refused) return fail(*refused);
  return out;
}

namespace mfa_methods {

// Passkeys: a browser ceremony rather than a typed code (the routes of
// src/api/mfa/passkeys.cpp), so an answer (the assertion) instead of
// verify_code; without a user, a password-less sign-in (passkey_signin).
SecondFactorMethod passkey_method() {
  SecondFactorMethod method;
  method.name = "webauthn";
  method.amr = "hwk";               // RFC 8176: proof of possession of a hardware-secured key
  method.multi_factor_amr = "mfa";  // signing in alone, the authenticator verified its user too
  method.acr = "2";
  method.refused_reason = "passkey assertion refused";
  method.audit_name = "passkey";
  method.verify_answer = [](const FactorServices& services, const Json& answer, std::optional<std::string_view> user_id,
                            std::int64_t now) -> Result<FactorProof> {
    if (!user_id && !services.settings.passkey_signin) {
      return fail(Errc::not_configured, "passkey sign-in is off (passkey_signin)");
    }
    Passkeys passkeys(services.store, services.settings, services.tokens);
    auto used = passkeys.finish_authentication(answer, user_id, now);
    if (!used) {
      // A malformed credential is a refused answer too (mfa_failed), as a wrong one.
      if (used.error().code == Errc::invalid_input) return fail(Errc::mfa_failed, used.error().message);
      return std::unexpected(used.error());
    }
    // A second step adds the key; alone, a verified user makes it two factors.
    const bool both = !user_id && used->user_verified;
    return FactorProof{std::move(used->user_id), std::move(used->username), both ? "hwk mfa" : "hwk"};
  };
  method.present = [](const Json& state) { return state.get("passkeys").size() > 0; };
  method.usable = method.present;
  method.describe = [](const Json& state, Json& shown) {
    const Json passkeys = state.get("passkeys");
    Json list = Json::array();
    for (std::size_t i = 0; i < passkeys.size(); ++i) {
      const Json key = passkeys.at(i);
      Json entry = Json::object();
      entry.set("id", Json::string(key.get_string("id").value_or("")))
          .set("name", Json::string(key.get_string("name").value_or("passkey")))
          .set("created", Json::integer(key.get_integer("created").value_or(0)));
      list.append(std::move(entry));
    }
    shown.set("passkeys", std::move(list));
  };
  method.forget = [](StoreTxn& txn, const Json& state) -> Result<void> {
    const Json passkeys = state.get("passkeys");
    for (std::size_t i = 0; i < passkeys.size(); ++i) {
      if (auto ok = txn.delete_entry(kPasskeyNamespace, passkeys.at(i).get_string("id").value_or("")); !ok) return ok;
    }
    return {};
  };
  method.adopt = [](StoreTxn& txn, const Json& state, std::string_view user_id, std::string_view username) -> Result<void> {
    const Json passkeys = state.get("passkeys");
    if (!passkeys.is_null() && !passkeys.is_array()) return fail(Errc::invalid_input, "passkeys must be an array");
    // Every id checked before any is written: a refusal leaves nothing behind.
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < passkeys.size(); ++i) {
      const std::string id(passkeys.at(i).get_string("id").value_or(""));
      if (id.empty()) return fail(Errc::invalid_input, "a passkey without an id");
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) return fail(Errc::invalid_input, "passkey " + id + " appears twice");
      auto known = txn.get_entry(kPasskeyNamespace, id);
      if (!known) return std::unexpected(known.error());
      if (*known) return fail(Errc::conflict, "passkey " + id + " is registered to another account");
      ids.push_back(id);
    }
    for (const auto& id : ids) {
      if (auto ok = txn.put_entry(kPasskeyNamespace, id, owner_entry(user_id, username), 0); !ok) {
        return ok;
      }
    }
    return {};
  };
  return method;
}

}  // namespace mfa_methods

}  // namespace authd
