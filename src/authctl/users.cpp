// authctl add|role|list|show|delete|signout|mfa reset: the accounts, through
// the same operations as the admin API (authd/user_admin.hpp).
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "authd/accounts.hpp"
#include "authd/crypto.hpp"
#include "commands.hpp"

namespace authctl {
namespace {

using namespace authd;

// One line from stdin, without echo when it is a terminal.
std::string read_password() {
  const bool tty = ::isatty(STDIN_FILENO);
  termios saved{};
  if (tty) {
    std::fputs("Password: ", stderr);
    ::tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string password;
  std::getline(std::cin, password);
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::fputs("\n", stderr);
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  return password;
}

std::optional<Role> role_operand(const std::string& name) {
  auto role = parse_role(name);
  if (!role) std::fprintf(stderr, "authctl: unknown role '%s' (admin, editor, writer, user)\n", name.c_str());
  return role;
}

// A role change or deletion refused: its conflict is the last-admin rule.
int refused_change(const Error& error, const std::string& username) {
  if (error.code == Errc::conflict) return failure(error.message + " (or use --force)");
  return refused(error, username);
}

Json user_json(const User& user) {
  Json shown = Json::object();
  shown.set("username", Json::string(user.username))
      .set("role", Json::string(to_string(user.role)))
      .set("_id", Json::string(user.id))
      .set("__v", Json::integer(user.version))
      .set("fullname", Json::string(user.fullname))
      .set("email", Json::string(user.email))
      .set("email_verified", Json::boolean(user.email_verified))
      .set("source", Json::string(is_directory_user(user) ? "directory" : "local"));
  if (is_directory_user(user)) shown.set("directory_id", Json::string(std::string(directory_id(user))));
  return shown;
}

}  // namespace

int add_user(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& username = invocation.operands[0];
  const auto role = role_operand(invocation.operands[1]);
  if (!role) return kFailure;
  Accounts& accounts = (*core)->accounts();
  if (auto ok = validate_username(username, accounts.policy()); !ok) return failure(ok.error().message);
  if (auto existing = accounts.find(username)) return failure("user '" + username + "' already exists");
  std::string password = read_password();
  auto created = (*core)->user_admin().create(operator_actor(), username, password, *role,
                                           invocation.value("fullname"), invocation.value("email"));
  crypto::wipe(password.data(), password.size());
  if (!created) return refused(created.error(), username);
  if (context.json()) {
    print_json(user_json(*created));
  } else {
    std::printf("added %s (%s) %s\n", created->username.c_str(), std::string(to_string(created->role)).c_str(),
                created->id.c_str());
  }
  return kOk;
}

int set_role(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const auto role = role_operand(invocation.operands[1]);
  if (!role) return kFailure;
  // A directory user's role is its groups' (--force does not change that).
  if (auto found = (*core)->accounts().find(invocation.operands[0]); found && is_directory_user(*found)) {
    return failure(invocation.operands[0] + ": " + std::string(kDirectoryManagesRole));
  }
  auto user = (*core)->user_admin().set_role(operator_actor(), invocation.operands[0], *role, invocation.has("force"));
  if (!user) return refused_change(user.error(), invocation.operands[0]);
  if (context.json()) {
    print_json(user_json(*user));
  } else {
    std::printf("%s is now %s\n", user->username.c_str(), std::string(to_string(user->role)).c_str());
  }
  return kOk;
}

int list_users(Context& context, const Invocation&) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto all = (*core)->accounts().list(UserQuery{});
  if (!all) return failure(all.error().message);
  if (context.json()) {
    Json users = Json::array();
    for (const auto& user : all->users) users.append(user_json(user));
    print_json(users);
    return kOk;
  }
  std::printf("%-32s %-7s %-24s %-5s %s\n", "USERNAME", "ROLE", "_ID", "__V", "SOURCE");
  for (const auto& user : all->users) {
    std::printf("%-32s %-7s %-24s %-5lld %s\n", user.username.c_str(), std::string(to_string(user.role)).c_str(),
                user.id.c_str(), static_cast<long long>(user.version), is_directory_user(user) ? "directory" : "local");
  }
  return kOk;
}

int show_user(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto user = (*core)->accounts().find(invocation.operands[0]);
  if (!user) return refused(user.error(), invocation.operands[0]);
  if (context.json()) {
    print_json(user_json(*user));
    return kOk;
  }
  std::printf("username  %s\nrole      %s\n_id       %s\n__v       %lld\nfullname  %s\nemail     %s%s\n",
              user->username.c_str(), std::string(to_string(user->role)).c_str(), user->id.c_str(),
              static_cast<long long>(user->version), user->fullname.c_str(), user->email.c_str(),
              user->email.empty() ? "" : user->email_verified ? " (verified)" : " (not verified)");
  if (is_directory_user(*user)) {
    std::printf("source    directory (%s)\n", std::string(directory_id(*user)).c_str());
  } else {
    std::printf("source    local\n");
  }
  return kOk;
}

int delete_user(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  if (auto found = (*core)->accounts().find(invocation.operands[0]);
      found && is_directory_user(*found) && !invocation.has("force")) {
    return failure(invocation.operands[0] + ": " + std::string(kDirectoryManagesAccount));
  }
  if (auto ok = (*core)->user_admin().remove(operator_actor(), invocation.operands[0], invocation.has("force")); !ok) {
    return refused_change(ok.error(), invocation.operands[0]);
  }
  std::printf("deleted %s\n", invocation.operands[0].c_str());
  return kOk;
}

int sign_out_user(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  if (auto ok = (*core)->user_admin().sign_out(operator_actor(), invocation.operands[0]); !ok) {
    return refused(ok.error(), invocation.operands[0]);
  }
  std::printf("signed out %s everywhere\n", invocation.operands[0].c_str());
  return kOk;
}

// `mfa reset USER`: the user signs in with the password alone again (and, in
// a role of mfa_required_roles, must enrol anew before using a token).
int reset_mfa(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  auto user = (*core)->accounts().find(invocation.operands[0]);
  if (!user) return refused(user.error(), invocation.operands[0]);
  if (auto done = (*core)->mfa().reset(user->id); !done) return failure(done.error().message);
  const Actor actor = operator_actor();
  (*core)->audit().record({.event = "mfa_reset", .username = user->username, .client = actor.client, .outcome = "ok",
                           .reason = "every second factor removed", .actor = actor.name});
  std::printf("second factors of %s removed\n", user->username.c_str());
  return kOk;
}

}  // namespace authctl
