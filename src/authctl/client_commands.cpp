// authctl client add|list|show|remove|rotate-secret: the OpenID Connect
// clients (lib/oidc/clients.cpp), registered applications signing in through authd.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "authd/clock.hpp"
#include "authd/oidc_clients.hpp"
#include "authd/text.hpp"
#include "commands.hpp"

namespace authctl {
namespace {

using namespace authd;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

void print(const Context& context, const OidcClient& client, const std::string& secret = {}) {
  if (context.json()) {
    Json shown = describe_client(client);
    if (!secret.empty()) shown.set("client_secret", Json::string(secret));
    print_json(shown);
    return;
  }
  std::printf("client_id: %s\nname: %s\ntype: %s%s%s\nredirect_uris: %s\npost_logout_redirect_uris: %s\nscopes: %s\n",
              client.id.c_str(), client.name.c_str(), client.is_public ? "public" : "confidential",
              client.first_party ? " first-party" : "", client.require_par ? " require-par" : "", joined(client.redirect_uris).c_str(),
              joined(client.post_logout_uris).c_str(), joined(client.scopes).c_str());
  if (!client.backchannel_logout_uri.empty()) {
    std::printf("backchannel_logout_uri: %s%s\n", client.backchannel_logout_uri.c_str(),
                client.backchannel_logout_session_required ? " (session required)" : "");
  }
  std::printf("grant_types: %s\ntoken_endpoint_auth_method: %s\n", joined(client.grant_types).c_str(),
              std::string(auth_method(client)).c_str());
  if (client.role) std::printf("role: %s\n", std::string(to_string(*client.role)).c_str());
  if (!client.jwks_uri.empty()) std::printf("jwks_uri: %s\n", client.jwks_uri.c_str());
  if (!client.jwks.empty()) std::printf("jwks: %s\n", client.jwks.c_str());
  if (!secret.empty()) std::printf("client_secret: %s\n", secret.c_str());
}

int usage(const char* message) {
  std::fprintf(stderr, "authctl: %s\n", message);
  return kUsage;
}

// --grant, --role, --jwks FILE, --jwks-uri URL (service clients, private_key_jwt).
std::optional<std::string> service_options(const Invocation& invocation, OidcClient& spec) {
  for (const auto& value : invocation.values("grant")) {
    for (auto word : text::words(value)) spec.grant_types.emplace_back(word);
  }
  if (invocation.has("role")) {
    spec.role = parse_role(invocation.value("role"));
    if (!spec.role) return "--role must be one of user, writer, editor, admin";
  }
  if (invocation.has("jwks")) {
    std::ifstream file(invocation.value("jwks"));
    std::stringstream text;
    if (!file || !(text << file.rdbuf())) return "cannot read the JWK Set file " + invocation.value("jwks");
    spec.jwks = text.str();
  }
  if (invocation.has("jwks-uri")) spec.jwks_uri = invocation.value("jwks-uri");
  return std::nullopt;
}

void audit(Core& core, std::string event, const std::string& client_id, std::string reason = {}) {
  const Actor actor = operator_actor();
  core.audit().record({.event = std::move(event), .client = actor.client, .outcome = "ok",
                       .reason = reason.empty() ? "client " + client_id : std::move(reason), .actor = actor.name});
}

}  // namespace

int add_client(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  OidcClient spec;
  spec.name = invocation.operands[0];
  spec.redirect_uris = invocation.values("redirect-uri");
  spec.post_logout_uris = invocation.values("post-logout-uri");
  for (const auto& value : invocation.values("scope")) {
    for (auto word : text::words(value)) spec.scopes.emplace_back(word);
  }
  spec.is_public = invocation.has("public");
  spec.first_party = invocation.has("first-party");
  spec.require_par = invocation.has("require-par");
  spec.backchannel_logout_uri = invocation.value("backchannel-logout-uri");
  spec.backchannel_logout_session_required = invocation.has("backchannel-logout-session-required");
  if (spec.backchannel_logout_uri.empty() && spec.backchannel_logout_session_required) {
    return usage("--backchannel-logout-session-required needs --backchannel-logout-uri");
  }
  if (auto wrong = service_options(invocation, spec)) return failure(*wrong);
  auto issued = (*core)->oidc_clients().add(std::move(spec), unix_now());
  if (!issued) return failure(issued.error().message);
  audit(**core, "client_added", issued->client.id);
  print(context, issued->client, issued->secret);
  if (!issued->secret.empty()) {
    std::fputs("authctl: the secret is shown only now; keep it in the application's configuration\n", stderr);
  }
  return kOk;
}

int list_clients(Context& context, const Invocation&) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto clients = (*core)->oidc_clients().list();
  if (!clients) return failure(clients.error().message);
  if (context.json()) {
    Json list = Json::array();
    for (const auto& client : *clients) {
      Json entry = Json::object();
      entry.set("client_id", Json::string(client.id))
          .set("name", Json::string(client.name))
          .set("public", Json::boolean(client.is_public));
      list.append(std::move(entry));
    }
    print_json(list);
    return kOk;
  }
  std::printf("%-31s %-12s %s\n", "CLIENT_ID", "TYPE", "NAME");
  for (const auto& client : *clients) {
    std::printf("%-31s %-12s %s\n", client.id.c_str(), client.is_public ? "public" : "confidential", client.name.c_str());
  }
  return kOk;
}

int show_client(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& id = invocation.operands[0];
  auto client = (*core)->oidc_clients().find(id);
  if (!client) return failure(client.error().message + " '" + id + "'");
  print(context, *client);
  return kOk;
}

int remove_client(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& id = invocation.operands[0];
  auto removed = (*core)->oidc_clients().remove(id);
  if (!removed) return failure(removed.error().message + " '" + id + "'");
  audit(**core, "client_removed", id, describe_removal(id, *removed));
  std::printf("removed %s (%zu refresh families ended, %zu consents deleted)\n", id.c_str(), removed->refresh_families,
              removed->consents);
  return kOk;
}

int update_client(Context& context, const Invocation& invocation) {
  if (!invocation.has("backchannel-logout-uri")) return usage("client update needs --backchannel-logout-uri URI (\"\" removes it)");
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& id = invocation.operands[0];
  const std::string uri = invocation.value("backchannel-logout-uri");
  auto changed = set_backchannel_logout((*core)->store(), id, uri, invocation.has("backchannel-logout-session-required"));
  if (!changed) return failure(changed.error().message + (changed.error().code == Errc::not_found ? " '" + id + "'" : ""));
  audit(**core, "client_updated", id,
        "client " + id + (uri.empty() ? ": back-channel logout removed" : ": backchannel_logout_uri " + uri));
  print(context, *changed);
  return kOk;
}

int rotate_client_secret(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& id = invocation.operands[0];
  auto issued = (*core)->oidc_clients().rotate_secret(id);
  if (!issued) return failure(issued.error().message + " '" + id + "'");
  audit(**core, "client_secret_rotated", id);
  if (context.json()) {
    Json shown = Json::object();
    shown.set("client_id", Json::string(id)).set("client_secret", Json::string(issued->secret));
    print_json(shown);
  } else {
    std::printf("client_id: %s\nclient_secret: %s\n", id.c_str(), issued->secret.c_str());
  }
  return kOk;
}

}  // namespace authctl
