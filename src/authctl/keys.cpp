// authctl key rotate|retire|list [--id-token]: the key ring where the store
// keeps it: the access-token keys (<state_dir>/keys with LMDB, the database's
// signing_* entries with PostgreSQL), or with --id-token the OpenID provider's
// ID-token keys (<state_dir>/id-token-keys, the id_token_signing_* entries).
#include <cstdio>

#include "authd/key_ring.hpp"
#include "authd/key_storage.hpp"
#include "commands.hpp"

namespace authctl {
namespace {

using namespace authd;

struct Ring {
  crypto::KeyAlgorithm algorithm;
  std::shared_ptr<KeyStorage> storage;
  std::string what;  // for the audit line: "signing key" or "ID-token signing key"
};

Result<Ring> key_ring_of(Core& core, const Invocation& invocation) {
  if (invocation.has("id-token")) {
    if (!core.settings().oidc.provider) {
      return fail(Errc::invalid_input, "oidc_provider is false: there are no ID-token keys to manage");
    }
    return Ring{core.settings().oidc.id_token_algorithm, id_token_key_storage(core.settings(), core.store()),
                "ID-token signing key"};
  }
  const auto algorithm = key_algorithm(core.settings().token.algorithm);
  if (!algorithm) {
    return fail(Errc::invalid_input,
                "token_algorithm is HS256: there are no public-key signing keys to manage (--id-token: the ID-token keys)");
  }
  return Ring{*algorithm, key_storage(core.settings(), core.store()), "signing key"};
}

}  // namespace

int rotate_key(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto ring = key_ring_of(**core, invocation);
  if (!ring) return failure(ring.error().message);
  auto kid = KeyRing::rotate(*ring->storage, ring->algorithm);
  if (!kid) return failure(kid.error().message);
  const Actor actor = operator_actor();
  (*core)->audit().record({.event = "key_rotated", .client = actor.client, .outcome = "ok",
                           .reason = "new " + ring->what + " " + *kid, .actor = actor.name});
  std::printf("%s\n", kid->c_str());
  return kOk;
}

int retire_keys(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto ring = key_ring_of(**core, invocation);
  if (!ring) return failure(ring.error().message);
  auto retired = KeyRing::retire(*ring->storage, invocation.operands.empty() ? std::string() : invocation.operands[0]);
  if (!retired) return failure(retired.error().message);
  const Actor actor = operator_actor();
  for (const auto& kid : *retired) {
    std::printf("retired %s\n", kid.c_str());
    (*core)->audit().record({.event = "key_retired", .client = actor.client, .outcome = "ok",
                             .reason = ring->what + " " + kid, .actor = actor.name});
  }
  return kOk;
}

int list_keys(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto ring = key_ring_of(**core, invocation);
  if (!ring) return failure(ring.error().message);
  auto opened = KeyRing::open(ring->storage, ring->algorithm);
  if (!opened) return failure(opened.error().message);
  const auto keys = (*opened)->keys(KeyRing::Check::always, 0);
  if (keys->current.empty()) return failure("cannot read the signing keys in " + ring->storage->where() + " now");
  if (context.json()) {
    Json list = Json::array();
    for (const auto& [kid, pair] : keys->by_kid) {
      Json entry = Json::object();
      entry.set("kid", Json::string(kid)).set("current", Json::boolean(kid == keys->current));
      list.append(std::move(entry));
    }
    print_json(list);
    return kOk;
  }
  for (const auto& [kid, pair] : keys->by_kid) std::printf("%s%s\n", kid.c_str(), kid == keys->current ? " *" : "");
  return kOk;
}

}  // namespace authctl
