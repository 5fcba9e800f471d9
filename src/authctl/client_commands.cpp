#include "authctl/client_commands.hpp"

#include <cstdio>

#include "authd/clock.hpp"
#include "authd/text.hpp"

namespace authd::authctl {
namespace {

int usage() {
  std::fputs(kClientUsage, stderr);
  return 2;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "authctl: %s\n", message.c_str());
  return 1;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

void print(const OidcClient& client) {
  std::printf("client_id: %s\nname: %s\ntype: %s%s\nredirect_uris: %s\npost_logout_redirect_uris: %s\nscopes: %s\n",
              client.id.c_str(), client.name.c_str(), client.is_public ? "public" : "confidential",
              client.first_party ? " first-party" : "", joined(client.redirect_uris).c_str(),
              joined(client.post_logout_uris).c_str(), joined(client.scopes).c_str());
}

void audit(Core& core, const Actor& actor, std::string event, const std::string& client_id) {
  core.audit().record({.event = std::move(event), .client = actor.client, .outcome = "ok",
                       .reason = "client " + client_id, .actor = actor.name});
}

// `add NAME --redirect-uri URI... [--public] [--first-party] [--post-logout-uri URI...] [--scope S...]`:
// a list option takes every following word up to the next option (or is repeated).
int add(Core& core, const Actor& actor, const std::vector<std::string>& args) {
  if (args.empty() || args[0].starts_with("--")) return usage();
  OidcClient spec;
  spec.name = args[0];
  std::vector<std::string>* list = nullptr;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--redirect-uri") list = &spec.redirect_uris;
    else if (arg == "--post-logout-uri") list = &spec.post_logout_uris;
    else if (arg == "--scope") list = &spec.scopes;
    else if (arg == "--public") { spec.is_public = true; list = nullptr; }
    else if (arg == "--first-party") { spec.first_party = true; list = nullptr; }
    else if (arg.starts_with("--") || !list) return usage();
    else if (list == &spec.scopes) { for (auto word : text::words(arg)) spec.scopes.emplace_back(word); }
    else list->push_back(arg);
  }
  auto issued = core.oidc_clients().add(std::move(spec), unix_now());
  if (!issued) return failure(issued.error().message);
  audit(core, actor, "client_added", issued->client.id);
  print(issued->client);
  if (!issued->secret.empty()) {
    std::printf("client_secret: %s\n", issued->secret.c_str());
    std::fputs("authctl: the secret is shown only now; keep it in the application's configuration\n", stderr);
  }
  return 0;
}

int list(Core& core) {
  auto clients = core.oidc_clients().list();
  if (!clients) return failure(clients.error().message);
  std::printf("%-31s %-12s %s\n", "CLIENT_ID", "TYPE", "NAME");
  for (const auto& client : *clients) {
    std::printf("%-31s %-12s %s\n", client.id.c_str(), client.is_public ? "public" : "confidential", client.name.c_str());
  }
  return 0;
}

}  // namespace

const char* const kClientUsage =
    "  client add NAME --redirect-uri URI... [--public] [--first-party]\n"
    "             [--post-logout-uri URI...] [--scope SCOPE...]\n"
    "                         register an application signing in through authd (OpenID Connect);\n"
    "                         prints its client_id and, unless --public, its secret (shown once)\n"
    "  client list|show ID|remove ID|rotate-secret ID\n";

int client_command(Core& core, const Actor& actor, const std::vector<std::string>& args) {
  if (args.empty()) return usage();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "add") return add(core, actor, rest);
  if (args[0] == "list" && rest.empty()) return list(core);
  if (rest.size() != 1) return usage();
  const std::string& id = rest[0];
  if (args[0] == "show") {
    auto client = core.oidc_clients().find(id);
    if (!client) return failure(client.error().message + " '" + id + "'");
    print(*client);
    return 0;
  }
  if (args[0] == "remove") {
    if (auto ok = core.oidc_clients().remove(id); !ok) return failure(ok.error().message + " '" + id + "'");
    audit(core, actor, "client_removed", id);
    std::printf("removed %s\n", id.c_str());
    return 0;
  }
  if (args[0] == "rotate-secret") {
    auto issued = core.oidc_clients().rotate_secret(id);
    if (!issued) return failure(issued.error().message + " '" + id + "'");
    audit(core, actor, "client_secret_rotated", id);
    std::printf("client_id: %s\nclient_secret: %s\n", id.c_str(), issued->secret.c_str());
    return 0;
  }
  return usage();
}

}  // namespace authd::authctl
