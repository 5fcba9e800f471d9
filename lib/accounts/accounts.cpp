#include "authd/accounts.hpp"

#include <array>
#include <cctype>

namespace authd {
namespace {

constexpr std::array<std::string_view, 4> kSignupFields{"username", "password", "fullname", "email"};

bool has_control(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Deliberately simple (RFC 5321 allows far more than anyone uses): one '@'
// with something on both sides, no whitespace or control characters.
bool plausible_email(std::string_view email) {
  const auto at = email.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= email.size()) return false;
  if (email.find('@', at + 1) != std::string_view::npos) return false;
  for (unsigned char c : email) {
    if (c <= 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

Result<SignupRequest> signup_request_from_json(const Json& body) {
  if (!body.is_object()) return fail(Errc::invalid_input, "request body must be a JSON object");
  std::array<std::string, 4> values;
  for (std::size_t i = 0; i < kSignupFields.size(); ++i) {
    const auto field = kSignupFields[i];
    if (!body.has(field)) return fail(Errc::invalid_input, std::string(field) + " is required");
    const auto value = body.get_string(field);
    if (!value) return fail(Errc::invalid_input, std::string(field) + " must be a string");
    values[i] = std::string(*value);
  }
  return SignupRequest{std::move(values[0]), std::move(values[1]), std::move(values[2]), std::move(values[3])};
}

Result<void> validate_username(std::string_view name, const CredentialPolicy& policy) {
  bool name_ok = !name.empty() && name.size() <= policy.username_max_length;
  for (unsigned char c : name) name_ok = name_ok && is_username_char(c);
  if (!name_ok) {
    return fail(Errc::invalid_input, "username must be 1 to " + std::to_string(policy.username_max_length) +
                                       " characters of A-Z a-z 0-9 . _ @ + -");
  }
  return {};
}

Result<void> validate_password(std::string_view password, const CredentialPolicy& policy) {
  if (password.size() < policy.password_min_length) {
    return fail(Errc::invalid_input,
                "password must be at least " + std::to_string(policy.password_min_length) + " bytes");
  }
  if (password.size() > policy.password_max_length) {
    return fail(Errc::invalid_input,
                "password must be at most " + std::to_string(policy.password_max_length) + " bytes");
  }
  return {};
}

Result<void> validate_signup(const SignupRequest& request, const CredentialPolicy& policy) {
  if (auto ok = validate_username(request.username, policy); !ok) return ok;
  if (auto ok = validate_password(request.password, policy); !ok) return ok;
  if (request.fullname.size() > policy.fullname_max_length || has_control(request.fullname)) {
    return fail(Errc::invalid_input, "fullname must be at most " + std::to_string(policy.fullname_max_length) +
                                       " bytes without control characters");
  }
  if (request.email.size() > policy.email_max_length || !plausible_email(request.email)) {
    return fail(Errc::invalid_input, "email must be an address like name@example.com");
  }
  return {};
}

Result<User> Accounts::sign_up(const SignupRequest& request) {
  if (auto valid = validate_signup(request, policy_); !valid) return std::unexpected(valid.error());
  // Cheap early answer for a taken name; the create below is what guarantees
  // uniqueness (it runs inside one write transaction).
  if (auto existing = users_.find(request.username)) return fail(Errc::conflict, "username already exists");
  else if (existing.error().code != Errc::not_found) return std::unexpected(existing.error());

  auto hash = hasher_.hash(request.password);
  if (!hash) return std::unexpected(hash.error());
  return users_.create(NewUser{request.username, std::move(*hash), request.fullname, request.email, Role::user});
}

Result<User> Accounts::sign_in(const BasicCredentials& credentials) const {
  auto invalid = [] { return fail(Errc::invalid_login, "Invalid Login"); };
  if (credentials.username.size() > policy_.username_max_length ||
      credentials.password.size() > policy_.password_max_length) {
    return invalid();  // never hash an over-long input
  }
  auto user = users_.find(credentials.username);
  if (!user) {
    if (user.error().code != Errc::not_found) return std::unexpected(user.error());
    hasher_.verify_dummy(credentials.password);  // same work as a real check: no user enumeration by timing
    return invalid();
  }
  if (user->password_hash.empty()) {
    hasher_.verify_dummy(credentials.password);
    return invalid();
  }
  if (!hasher_.verify(user->password_hash, credentials.password)) return invalid();
  return user;
}

}  // namespace authd
