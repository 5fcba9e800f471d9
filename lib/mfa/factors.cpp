#include <algorithm>
#include <cctype>
#include <optional>

#include "authd/crypto.hpp"
#include "authd/mfa.hpp"
#include "authd/second_factor_methods.hpp"
#include "authd/totp.hpp"
#include "builtin_methods.hpp"

namespace authd {
namespace {

constexpr std::size_t kSecretBytes = 20;  // 160 bits, RFC 4226 §4's recommendation

std::string hex_sha256(std::string_view text) { return crypto::to_hex(crypto::sha256(text)); }

// Recovery codes as shown: "abcde-fghij" (50 random bits); compared without
// case and dashes.
std::string normalized_recovery(std::string_view code) {
  std::string out;
  for (char c : code) {
    if (c == '-' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string new_recovery_code() {
  std::array<unsigned char, 7> bytes{};
  if (!crypto::random_bytes(bytes)) std::abort();  // no safe way on without a CSPRNG
  std::string code = totp::base32_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  code.resize(10);
  for (auto& c : code) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return code.substr(0, 5) + "-" + code.substr(5);
}

bool six_digits(std::string_view code) {
  return code.size() == static_cast<std::size_t>(totp::kDigits) &&
         std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The step of `code` among now-1, now, now+1 that is later than `last_step`; -1 if none.
std::int64_t matching_step(std::string_view key, std::string_view code, std::int64_t now, std::int64_t last_step) {
  const auto current = totp::step_of(now);
  std::int64_t found = -1;
  for (std::int64_t step = current - 1; step <= current + 1; ++step) {
    if (step <= last_step) continue;
    // Every candidate is computed and compared: the time does not tell which matched.
    if (crypto::equal_constant_time(totp::hotp(key, static_cast<std::uint64_t>(step)), code) && found < 0) found = step;
  }
  return found;
}

std::string uri_escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Error bad_code() { return Error(Errc::mfa_failed, "the code is not valid"); }

// A TOTP code of the active secret, at a step later than the last one used.
Result<bool> check_totp_code(Json& state, std::string_view code, std::int64_t now) {
  if (!six_digits(code)) return false;
  Json totp = state.get("totp");  // shares the state's object: a change below is the state's
  if (!totp.is_object() || totp.get_integer("active").value_or(0) != 1) return false;
  const auto key = totp::base32_decode(totp.get_string("secret").value_or(""));
  if (!key) return fail(Errc::internal, "corrupt TOTP secret");
  const auto step = matching_step(*key, code, now, totp.get_integer("last_step").value_or(-1));
  if (step < 0) return false;
  totp.set("last_step", Json::integer(step));  // each code once: later steps only from now on
  return true;
}

// One of the unspent recovery codes, spent by the match: every stored hash is
// compared, in constant time.
Result<bool> check_recovery_code(Json& state, std::string_view code) {
  if (six_digits(code)) return false;  // a TOTP code: recovery codes are ten letters and digits
  const std::string wanted = hex_sha256(normalized_recovery(code));
  const Json codes = state.get("recovery");
  Json left = Json::array();
  bool matched = false;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const auto stored = codes.at(i).as_string().value_or("");
    if (!matched && crypto::equal_constant_time(stored, wanted)) {
      matched = true;  // spent
    } else {
      left.append(Json::string(stored));
    }
  }
  if (matched) state.set("recovery", std::move(left));
  return matched;
}

}  // namespace

Result<Json> SecondFactors::load(StoreTxn& txn, std::string_view user_id) {
  auto entry = txn.get_entry(kMfaNamespace, user_id);
  if (!entry) return std::unexpected(entry.error());
  if (!*entry) return Json::object();
  auto state = Json::parse(**entry);
  if (!state || !state->is_object()) return fail(Errc::internal, "corrupt second-factor entry");
  return std::move(*state);
}

Result<void> SecondFactors::save(StoreTxn& txn, std::string_view user_id, const Json& state) {
  bool kept = false;
  for (const auto& method : second_factor_methods()) kept = kept || (method->primary && method->present(state));
  if (!kept) return txn.delete_entry(kMfaNamespace, user_id);
  return txn.put_entry(kMfaNamespace, user_id, state.dump(), 0);
}

Result<FactorStatus> SecondFactors::status(const User& user) const {
  auto state = read_value(store_, [&](StoreTxn& txn) { return load(txn, user.id); });
  if (!state) return std::unexpected(state.error());
  FactorStatus status;
  for (const auto& method : second_factor_methods()) {
    method->describe(*state, status.shown);
    if (!method->usable(*state)) continue;
    status.usable.push_back(method->name);
    status.second_step = status.second_step || method->primary;
  }
  return status;
}

Result<TotpEnrolment> SecondFactors::begin_totp(const User& user) {
  std::array<unsigned char, kSecretBytes> bytes{};
  if (auto ok = crypto::random_bytes(bytes); !ok) return std::unexpected(ok.error());
  TotpEnrolment enrolment;
  enrolment.secret = totp::base32_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  crypto::wipe(bytes.data(), bytes.size());
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto state = load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    if (state->get("totp").get_integer("active").value_or(0) == 1) {
      return fail(Errc::conflict, "a TOTP factor is already active; remove it first");
    }
    Json totp = Json::object();
    totp.set("secret", Json::string(enrolment.secret)).set("active", Json::integer(0)).set("last_step", Json::integer(-1));
    state->set("totp", std::move(totp));
    return save(txn, user.id, *state);
  });
  if (!done) return std::unexpected(done.error());
  const std::string label = uri_escape(settings_.issuer) + ":" + uri_escape(user.username);
  enrolment.otpauth_uri = "otpauth://totp/" + label + "?secret=" + enrolment.secret + "&issuer=" +
                          uri_escape(settings_.issuer) + "&algorithm=SHA1&digits=6&period=30";
  return enrolment;
}

Result<std::vector<std::string>> SecondFactors::confirm_totp(const User& user, std::string_view code, std::int64_t now) {
  if (!six_digits(code)) return fail_field("code", "code must be the 6 digits the authenticator app shows");
  std::vector<std::string> codes;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto state = load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    Json totp = state->get("totp");
    if (!totp.is_object()) return fail(Errc::conflict, "no TOTP enrolment is pending: POST /me/mfa/totp first");
    if (totp.get_integer("active").value_or(0) == 1) return fail(Errc::conflict, "the TOTP factor is already active");
    const auto key = totp::base32_decode(totp.get_string("secret").value_or(""));
    if (!key) return fail(Errc::internal, "corrupt TOTP secret");
    const auto step = matching_step(*key, code, now, -1);
    if (step < 0) return fail_field("code", "the code does not match: check the device's clock and try the next code");
    totp.set("active", Json::integer(1)).set("last_step", Json::integer(step));
    codes = new_recovery_codes(*state);
    return save(txn, user.id, *state);
  });
  if (!done) return std::unexpected(done.error());
  return codes;
}

Result<void> SecondFactors::remove_totp(const User& user) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto state = load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    if (!state->has("totp")) return fail(Errc::not_found, "no TOTP factor");
    state->erase("totp");
    return save(txn, user.id, *state);  // the recovery codes too when it was the last primary factor
  });
}

Result<void> SecondFactors::reset(std::string_view user_id) {
  return store_.write([&](StoreTxn& txn) { return erase(txn, user_id); });
}

Result<void> SecondFactors::erase(StoreTxn& txn, std::string_view user_id) {
  auto state = load(txn, user_id);
  if (!state) return std::unexpected(state.error());
  for (const auto& method : second_factor_methods()) {
    if (!method->forget) continue;
    if (auto ok = method->forget(txn, *state); !ok) return ok;
  }
  return txn.delete_entry(kMfaNamespace, user_id);
}

Result<void> SecondFactors::adopt(StoreTxn& txn, std::string_view user_id, std::string_view username,
                                  const Json& state) {
  if (!state.is_object()) return fail(Errc::invalid_input, "second_factors must be an object");
  if (auto ok = erase(txn, user_id); !ok) return ok;
  for (const auto& method : second_factor_methods()) {
    if (!method->adopt) continue;
    if (auto ok = method->adopt(txn, state, user_id, username); !ok) return ok;
  }
  return save(txn, user_id, state);
}

std::vector<std::string> SecondFactors::new_recovery_codes(Json& state) {
  std::vector<std::string> codes;
  Json hashed = Json::array();
  for (int i = 0; i < kRecoveryCodeCount; ++i) {
    codes.push_back(new_recovery_code());
    hashed.append(Json::string(hex_sha256(normalized_recovery(codes.back()))));
  }
  state.set("recovery", std::move(hashed));
  return codes;
}

Result<std::string> SecondFactors::verify_code(const User& user, std::string_view code, std::int64_t now) {
  std::optional<std::string> amr;  // of the method that matched
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto state = load(txn, user.id);
    if (!state) return std::unexpected(state.error());
    for (const auto& method : second_factor_methods()) {
      if (!method->verify_code) continue;
      auto matched = method->verify_code(*state, code, now);
      if (!matched) return std::unexpected(matched.error());
      if (!*matched) continue;
      amr = method->amr;
      return save(txn, user.id, *state);
    }
    return {};  // nothing matched: nothing written
  });
  if (!done) return std::unexpected(done.error());
  if (!amr) return fail(bad_code());
  return std::move(*amr);
}

Result<FactorProof> SecondFactors::verify_answer(std::string_view name, const Json& answer,
                                                 std::optional<std::string_view> user_id, const TokenService& tokens,
                                                 std::int64_t now) {
  const auto method = find_second_factor_method(name);
  if (!method || !method->verify_answer) {
    return fail(Errc::not_configured, "no second-factor method \"" + std::string(name) + "\" takes an answer");
  }
  return method->verify_answer(FactorServices{store_, settings_, tokens}, answer, user_id, now);
}

Result<std::string> SecondFactors::start_sign_in(const User& user, std::string_view first, std::int64_t now) {
  const std::string token = crypto::random_token(32);
  Json pending = Json::object();
  pending.set("user", Json::string(user.id))
      .set("username", Json::string(user.username))
      .set("first", Json::string(first))
      .set("attempts", Json::integer(0))
      .set("expires", Json::integer(now + settings_.token_ttl.count()));
  auto done = store_.write([&](StoreTxn& txn) {
    return txn.put_entry(kMfaTokenNamespace, hex_sha256(token), pending.dump(), now + settings_.token_ttl.count());
  });
  if (!done) return std::unexpected(done.error());
  return token;
}

Result<MfaPending> SecondFactors::pending(std::string_view token, std::int64_t now) const {
  if (token.empty() || token.size() > 128) return fail(Errc::mfa_failed, "unknown or expired mfa_token");
  auto entry = read_value(store_, [&](StoreTxn& txn) { return txn.get_entry(kMfaTokenNamespace, hex_sha256(token)); });
  if (!entry) return std::unexpected(entry.error());
  if (!*entry) return fail(Errc::mfa_failed, "unknown or expired mfa_token");
  auto value = Json::parse(**entry);
  if (!value) return fail(Errc::internal, "corrupt mfa_token entry");
  // The entry may outlive its expiry until purge_expired runs.
  if (value->get_integer("expires").value_or(0) <= now) return fail(Errc::mfa_failed, "unknown or expired mfa_token");
  return MfaPending{std::string(value->get_string("user").value_or("")),
                    std::string(value->get_string("username").value_or("")),
                    std::string(value->get_string("first").value_or("pwd"))};
}

Result<void> SecondFactors::finish_sign_in(std::string_view token) {
  bool existed = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto entry = txn.get_entry(kMfaTokenNamespace, hex_sha256(token));
    if (!entry) return std::unexpected(entry.error());
    existed = entry->has_value();
    return txn.delete_entry(kMfaTokenNamespace, hex_sha256(token));
  });
  if (!done) return done;
  // Two requests raced with one token: only the one that deleted it wins.
  if (!existed) return fail(Errc::mfa_failed, "unknown or expired mfa_token");
  return {};
}

Result<void> SecondFactors::failed_attempt(std::string_view token) {
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    const std::string key = hex_sha256(token);
    auto entry = txn.get_entry(kMfaTokenNamespace, key);
    if (!entry) return std::unexpected(entry.error());
    if (!*entry) return {};
    auto value = Json::parse(**entry);
    if (!value) return txn.delete_entry(kMfaTokenNamespace, key);
    const auto attempts = value->get_integer("attempts").value_or(0) + 1;
    if (attempts >= kMfaTokenAttempts) return txn.delete_entry(kMfaTokenNamespace, key);
    value->set("attempts", Json::integer(attempts));
    return txn.put_entry(kMfaTokenNamespace, key, value->dump(), value->get_integer("expires").value_or(0));
  });
}

namespace mfa_methods {

SecondFactorMethod totp_method() {
  SecondFactorMethod method;
  method.name = "totp";
  method.present = [](const Json& state) { return state.has("totp"); };
  method.usable = [](const Json& state) { return state.get("totp").get_integer("active").value_or(0) == 1; };
  method.describe = [](const Json& state, Json& shown) {
    const Json totp = state.get("totp");
    const bool active = totp.is_object() && totp.get_integer("active").value_or(0) == 1;
    shown.set("totp", Json::boolean(active)).set("totp_pending", Json::boolean(totp.is_object() && !active));
  };
  method.verify_code = check_totp_code;
  method.amr = "otp";  // RFC 8176: a one-time password
  method.acr = "2";
  return method;
}

SecondFactorMethod recovery_method() {
  SecondFactorMethod method;
  method.name = "recovery";
  method.primary = false;
  method.present = [](const Json& state) { return state.get("recovery").size() > 0; };
  method.usable = method.present;
  method.describe = [](const Json& state, Json& shown) {
    shown.set("recovery_codes", Json::integer(static_cast<std::int64_t>(state.get("recovery").size())));
  };
  method.verify_code = [](Json& state, std::string_view code, std::int64_t) { return check_recovery_code(state, code); };
  method.amr = "otp";  // a one-time code too
  method.acr = "2";
  return method;
}

}  // namespace mfa_methods

}  // namespace authd
