// Fixtures shared by the unit tests that need more than a store
// (test_support.hpp has that): the built-in mail templates with the mail
// settings the tests use, CoreSettings loaded from AUTHD_* variables, and a
// TokenService on a key ring of its own.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "authd/core.hpp"
#include "authd/key_ring.hpp"
#include "authd/mail.hpp"
#include "authd/token.hpp"
#include "test_support.hpp"

namespace authd::test {

// The built-in mail texts (conf/mail/ is their editable copy).
inline mail::Templates builtin_templates() {
  auto templates = mail::Templates::load({});
  if (!templates) throw std::runtime_error("mail::Templates::load: " + templates.error().message);
  return std::move(*templates);
}

// Mail to a server nobody listens on, with links to https://auth.example.org.
inline MailSettings mail_settings() {
  MailSettings settings;
  settings.smtp_url = "smtp://127.0.0.1:1";
  settings.public_url = "https://auth.example.org";
  return settings;
}

// CoreSettings as authd loads them from the environment, given only `vars`
// (no settings file).
inline Result<CoreSettings> load_core_settings(std::map<std::string, std::string> vars) {
  const EnvLookup env = [vars = std::move(vars)](const char* name) -> const char* {
    const auto found = vars.find(name);
    return found == vars.end() ? nullptr : found->second.c_str();
  };
  CoreSettings settings;
  settings::Loader loader;
  CoreSettingsTables tables(settings, loader);
  if (auto ok = loader.load({}, false, env); !ok) return std::unexpected(ok.error());
  return settings;
}

// A TokenService signing with `algorithm`: HS256 with `key` alone; EdDSA and
// ES256 with a key ring of their own, new in a temporary directory.
struct RingTokens {
  TempDir dir;
  std::shared_ptr<KeyRing> ring;
  std::optional<TokenService> tokens;
  explicit RingTokens(TokenAlgorithm algorithm, std::string key = std::string(32, 'k')) {
    TokenPolicy policy;
    policy.algorithm = algorithm;
    if (algorithm != TokenAlgorithm::hs256) {
      ring = *KeyRing::open(dir.path(), algorithm == TokenAlgorithm::eddsa ? crypto::KeyAlgorithm::ed25519
                                                                           : crypto::KeyAlgorithm::es256);
    }
    tokens.emplace(*TokenService::create(SigningKey(std::move(key)), policy, ring));
  }
};

}  // namespace authd::test
