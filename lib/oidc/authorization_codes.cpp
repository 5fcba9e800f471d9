#include "authd/authorization_codes.hpp"

#include <algorithm>
#include <cctype>

#include "authd/backchannel_logout.hpp"
#include "authd/crypto.hpp"
#include "authd/json.hpp"

namespace authd {
namespace {

constexpr std::string_view kNamespace = "oidc_code";
// A used code is remembered this long after its first use, so that a replay
// within it revokes what the first use issued.
constexpr std::int64_t kRememberUsed = 600;

std::string key_of(std::string_view code) { return crypto::to_hex(crypto::sha256(code)); }

bool base64url_char(unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; }

Json grant_json(const CodeGrant& g) {
  Json json = Json::object();
  json.set("client_id", Json::string(g.client_id))
      .set("redirect_uri", Json::string(g.redirect_uri))
      .set("user_id", Json::string(g.user_id))
      .set("username", Json::string(g.username))
      .set("scope", Json::string(g.scope))
      .set("nonce", Json::string(g.nonce))
      .set("code_challenge", Json::string(g.code_challenge))
      .set("amr", Json::string(g.amr))
      .set("auth_time", Json::integer(g.auth_time));
  if (!g.sid.empty()) json.set("sid", Json::string(g.sid)).set("iss", Json::string(g.issuer));
  return json;
}

std::string text(const Json& json, std::string_view name) { return std::string(json.get_string(name).value_or("")); }

CodeGrant grant_of(const Json& json) {
  CodeGrant g;
  g.client_id = text(json, "client_id");
  g.redirect_uri = text(json, "redirect_uri");
  g.user_id = text(json, "user_id");
  g.username = text(json, "username");
  g.scope = text(json, "scope");
  g.nonce = text(json, "nonce");
  g.code_challenge = text(json, "code_challenge");
  g.amr = text(json, "amr");
  g.auth_time = json.get_integer("auth_time").value_or(0);
  g.sid = text(json, "sid");
  g.issuer = text(json, "iss");
  return g;
}

}  // namespace

Result<std::string> AuthorizationCodes::issue(const CodeGrant& grant, std::int64_t now) {
  const std::string code = crypto::random_token(32);
  Json entry = Json::object();
  entry.set("grant", grant_json(grant)).set("expires_at", Json::integer(now + kAuthorizationCodeTtl));
  auto done = store_.write([&](StoreTxn& txn) {
    return txn.put_entry(kNamespace, key_of(code), entry.dump(), now + kAuthorizationCodeTtl);
  });
  if (!done) return std::unexpected(done.error());
  return code;
}

Result<CodeGrant> AuthorizationCodes::redeem(std::string_view code, std::int64_t now, CodeReplay* replay) {
  if (code.empty() || code.size() > 128 || !std::all_of(code.begin(), code.end(), [](char c) {
        return base64url_char(static_cast<unsigned char>(c));
      })) {
    return fail(Errc::invalid_token, "malformed authorization code");
  }
  const std::string key = key_of(code);
  CodeGrant grant;
  bool replayed = false;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    replayed = false;
    auto value = txn.get_entry(kNamespace, key);
    if (!value) return std::unexpected(value.error());
    if (!*value) return fail(Errc::invalid_token, "unknown or expired authorization code");
    auto entry = Json::parse(**value);
    if (!entry || !entry->is_object()) return fail(Errc::internal, "corrupt authorization code entry");
    grant = grant_of(entry->get("grant"));
    if (entry->get("used").is_true()) {
      replayed = true;
      if (replay) {
        const Json issued = entry->get("issued");
        replay->grant = grant;
        replay->issued.refresh_family = text(issued, "refresh_family");
        // An entry of an older version kept the token itself (user.family.secret):
        // its family still ends.
        if (const auto legacy = text(issued, "refresh_token"); replay->issued.refresh_family.empty()) {
          const auto first = legacy.find('.');
          const auto second = legacy.find('.', first == std::string::npos ? legacy.size() : first + 1);
          if (second != std::string::npos) replay->issued.refresh_family = legacy.substr(first + 1, second - first - 1);
        }
        replay->issued.access_jti = text(issued, "access_jti");
        replay->issued.access_exp = issued.get_integer("access_exp").value_or(0);
      }
      return txn.delete_entry(kNamespace, key);  // revoked once is enough
    }
    if (entry->get_integer("expires_at").value_or(0) <= now) {
      return fail(Errc::invalid_token, "expired authorization code");
    }
    entry->set("used", Json::boolean(true));
    if (auto ok = txn.put_entry(kNamespace, key, entry->dump(), now + kRememberUsed); !ok) return ok;
    return record_rp_session(txn, grant.user_id, grant.client_id, grant.sid, grant.issuer,
                             now + rp_session_ttl_.count());
  });
  if (!done) return std::unexpected(done.error());
  if (replayed) return fail(Errc::invalid_token, "authorization code used twice: what it issued is revoked");
  return grant;
}

Result<void> AuthorizationCodes::record_issued(std::string_view code, const IssuedForCode& issued, std::int64_t now) {
  const std::string key = key_of(code);
  return store_.write([&](StoreTxn& txn) -> Result<void> {
    auto value = txn.get_entry(kNamespace, key);
    if (!value) return std::unexpected(value.error());
    if (!*value) return {};  // replayed and revoked meanwhile
    auto entry = Json::parse(**value);
    if (!entry || !entry->is_object()) return fail(Errc::internal, "corrupt authorization code entry");
    Json record = Json::object();
    record.set("refresh_family", Json::string(issued.refresh_family))
        .set("access_jti", Json::string(issued.access_jti))
        .set("access_exp", Json::integer(issued.access_exp));
    entry->set("issued", std::move(record));
    return txn.put_entry(kNamespace, key, entry->dump(), now + kRememberUsed);
  });
}

bool valid_pkce_challenge(std::string_view challenge) {
  return challenge.size() == 43 && std::all_of(challenge.begin(), challenge.end(), [](char c) {
           return base64url_char(static_cast<unsigned char>(c));
         });
}

bool pkce_s256_matches(std::string_view verifier, std::string_view challenge) {
  if (verifier.size() < 43 || verifier.size() > 128) return false;
  for (const unsigned char c : verifier) {
    if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')) return false;
  }
  const auto digest = crypto::sha256(verifier);
  return crypto::equal_constant_time(crypto::base64url_encode(digest), challenge);
}

}  // namespace authd
