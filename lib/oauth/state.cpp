// PKCE and the signed state cookie.
#include "authd/oauth.hpp"

namespace authd {
namespace {

constexpr std::string_view kStateSubject = "oauth-state";

}  // namespace

Pkce Pkce::generate() {
  Pkce pkce;
  pkce.verifier = crypto::random_token(32);  // 43 characters of base64url (RFC 7636 §4.1)
  pkce.challenge = challenge_for(pkce.verifier);
  return pkce;
}

std::string Pkce::challenge_for(std::string_view verifier) {
  return crypto::base64url_encode(crypto::sha256(verifier));
}

std::string seal_oauth_state(const TokenService& tokens, const OAuthState& state, std::int64_t now,
                             std::chrono::seconds ttl) {
  std::map<std::string, std::string, std::less<>> claims{
      {"provider", state.provider}, {"state", state.state}, {"verifier", state.verifier}, {"nonce", state.nonce}};
  if (!state.device.empty()) claims.emplace("device", state.device);
  return tokens.issue(kOAuthStateTokenType, kStateSubject, "", now, claims, ttl);
}

Result<OAuthState> open_oauth_state(const TokenService& tokens, std::string_view cookie, std::int64_t now) {
  if (cookie.empty()) return fail(Errc::provider_refused, "no sign-in in progress (state cookie missing)");
  auto claims = tokens.verify(cookie, kOAuthStateTokenType, now);
  if (!claims || claims->subject != kStateSubject) {
    return fail(Errc::provider_refused, "the sign-in state is invalid or expired; start again");
  }
  auto take = [&](std::string_view name) {
    const auto found = claims->extra.find(name);
    return found == claims->extra.end() ? std::string() : found->second;
  };
  OAuthState state{take("provider"), take("state"), take("verifier"), take("nonce"), take("device")};
  if (state.provider.empty() || state.state.empty() || state.verifier.empty()) {
    return fail(Errc::provider_refused, "the sign-in state is incomplete; start again");
  }
  return state;
}

}  // namespace authd
