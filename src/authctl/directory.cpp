// authctl directory test USERNAME: the directory's answer for a name, as a
// sign-in would search it (the service account; no password, no bind as the
// user), so an operator sees what a directory user would get.
#include <cstdio>

#include "authd/directory.hpp"
#include "commands.hpp"

namespace authctl {

using namespace authd;

int test_directory(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  DirectoryUsers& directory = (*core)->directory();
  if (!directory.enabled()) return failure("directory users are off (directory_urls is empty)");
  const std::string& username = invocation.operands[0];
  auto found = directory.client().find(username);
  if (!found) return failure(username + ": " + found.error().message);
  if (!*found) {
    if (context.json()) {
      print_json(Json::object().set("username", Json::string(username)).set("found", Json::boolean(false)));
    }
    return failure(username + ": no entry matches directory_user_filter under directory_user_base");
  }
  const DirectoryEntry& entry = **found;
  const std::string role = entry.role ? std::string(to_string(*entry.role)) : std::string("none (refused)");
  if (context.json()) {
    Json groups = Json::array();
    for (const auto& group : entry.groups) groups.append(Json::string(group));
    Json shown = Json::object();
    shown.set("username", Json::string(username))
        .set("found", Json::boolean(true))
        .set("server", Json::string(entry.server))
        .set("dn", Json::string(entry.dn))
        .set("stable_id", Json::string(entry.stable_id))
        .set("authd_username", Json::string(entry.username.empty() ? username : entry.username))
        .set("email", Json::string(entry.email))
        .set("fullname", Json::string(entry.fullname))
        .set("groups", std::move(groups))
        .set("locked", Json::boolean(entry.locked))
        .set("role", entry.role ? Json::string(to_string(*entry.role)) : Json::null());
    print_json(shown);
  } else {
    std::printf("server    %s\ndn        %s\nid        %s\nusername  %s\nemail     %s\nfullname  %s\n",
                entry.server.c_str(), entry.dn.c_str(), entry.stable_id.c_str(),
                (entry.username.empty() ? username : entry.username).c_str(), entry.email.c_str(),
                entry.fullname.c_str());
    if (entry.groups.empty()) std::printf("groups    (none)\n");
    for (std::size_t i = 0; i < entry.groups.size(); ++i) {
      std::printf("%s%s\n", i == 0 ? "groups    " : "          ", entry.groups[i].c_str());
    }
    std::printf("locked    %s\nrole      %s\n", entry.locked ? "yes (cannot sign in)" : "no", role.c_str());
  }
  return entry.role && !entry.locked ? kOk : kFailure;
}

}  // namespace authctl
