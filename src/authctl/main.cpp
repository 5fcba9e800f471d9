// authctl: operator commands on the same store as authd, safe while the
// server runs (the store serialises writers across processes). It builds the
// same Core as authd and runs the same account operations.
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app.hpp"
#include "authd/accounts.hpp"
#include "authd/core.hpp"
#include "authd/crypto.hpp"

namespace {

using namespace authd;

constexpr const char* kUsage =
    "usage: authctl COMMAND [ARGS]\n"
    "  add USER ROLE [--fullname NAME] [--email ADDRESS]\n"
    "                         create a user; the password is read from stdin\n"
    "  role USER ROLE         change a user's role (admin, editor, writer, user)\n"
    "  list                   list users: username, role, _id, __v\n"
    "  delete USER            delete a user (their tokens stop working at once)\n"
    "  key rotate             a new token signing key (token_algorithm EdDSA/ES256); new\n"
    "                         tokens use it at once, older keys keep verifying\n"
    "  key retire [KID]       delete KID, or every key but the current one\n"
    "  key list               kid of every key, the current one marked with *\n"
    "Reads the same settings as authd: conf/authd.conf or $AUTHD_CONFIG, then AUTHD_<NAME>.\n";

int usage_error() {
  std::fputs(kUsage, stderr);
  return 2;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "authctl: %s\n", message.c_str());
  return 1;
}

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

std::optional<Role> role_argument(const std::string& name) {
  auto role = parse_role(name);
  if (!role) std::fprintf(stderr, "authctl: unknown role '%s' (admin, editor, writer, user)\n", name.c_str());
  return role;
}

// Errors of the shared account operations, in authctl's words.
int refused(const Error& error, const std::string& username) {
  if (error.code == Errc::conflict) return failure("user '" + username + "' already exists");
  if (error.code == Errc::not_found) return failure("no such user '" + username + "'");
  return failure(error.message);
}

int add(Accounts& accounts, const std::vector<std::string>& args) {
  if (args.size() < 2) return usage_error();
  const std::string& username = args[0];
  const auto role = role_argument(args[1]);
  if (!role) return 1;
  std::string fullname, email;
  for (std::size_t i = 2; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) return usage_error();
    if (args[i] == "--fullname") fullname = args[i + 1];
    else if (args[i] == "--email") email = args[i + 1];
    else return usage_error();
  }
  if (auto ok = validate_username(username, accounts.policy()); !ok) return failure(ok.error().message);
  if (auto existing = accounts.find(username)) return failure("user '" + username + "' already exists");
  std::string password = read_password();
  auto created = accounts.create(username, password, *role, fullname, email);
  crypto::wipe(password.data(), password.size());
  if (!created) return refused(created.error(), username);
  std::printf("added %s (%s) %s\n", created->username.c_str(), std::string(to_string(created->role)).c_str(),
              created->id.c_str());
  return 0;
}

int set_role(Accounts& accounts, const std::vector<std::string>& args) {
  if (args.size() != 2) return usage_error();
  const auto role = role_argument(args[1]);
  if (!role) return 1;
  auto user = accounts.set_role(args[0], *role);
  if (!user) return refused(user.error(), args[0]);
  std::printf("%s is now %s\n", user->username.c_str(), std::string(to_string(user->role)).c_str());
  return 0;
}

int list(Accounts& accounts, const std::vector<std::string>& args) {
  if (!args.empty()) return usage_error();
  auto all = accounts.list(UserQuery{});
  if (!all) return failure(all.error().message);
  std::printf("%-32s %-7s %-24s %s\n", "USERNAME", "ROLE", "_ID", "__V");
  for (const auto& user : all->users) {
    std::printf("%-32s %-7s %-24s %lld\n", user.username.c_str(), std::string(to_string(user.role)).c_str(),
                user.id.c_str(), static_cast<long long>(user.version));
  }
  return 0;
}

int remove(Accounts& accounts, const std::vector<std::string>& args) {
  if (args.size() != 1) return usage_error();
  if (auto ok = accounts.remove(args[0]); !ok) return refused(ok.error(), args[0]);
  std::printf("deleted %s\n", args[0].c_str());
  return 0;
}

// `key rotate|retire|list`: the key ring in <state_dir>/keys.
int key(const Core& core, const std::vector<std::string>& args) {
  const auto algorithm = key_algorithm(core.settings().token.algorithm);
  if (!algorithm) return failure("token_algorithm is HS256: there are no public-key signing keys to manage");
  const auto directory = key_ring_path(core.settings());
  if (args.size() == 1 && args[0] == "rotate") {
    auto kid = KeyRing::rotate(directory, *algorithm);
    if (!kid) return failure(kid.error().message);
    std::printf("%s\n", kid->c_str());
    return 0;
  }
  if ((args.size() == 1 || args.size() == 2) && args[0] == "retire") {
    auto retired = KeyRing::retire(directory, args.size() == 2 ? args[1] : std::string());
    if (!retired) return failure(retired.error().message);
    for (const auto& kid : *retired) std::printf("retired %s\n", kid.c_str());
    return 0;
  }
  if (args.size() == 1 && args[0] == "list") {
    auto ring = KeyRing::open(directory, *algorithm);
    if (!ring) return failure(ring.error().message);
    const auto keys = (*ring)->keys(KeyRing::Check::always, 0);
    for (const auto& [kid, pair] : keys->by_kid) std::printf("%s%s\n", kid.c_str(), kid == keys->current ? " *" : "");
    return 0;
  }
  return usage_error();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error();
  const std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);

  const EnvLookup env = [](const char* name) { return std::getenv(name); };
  auto settings = load_program_settings(env, AUTHD_DEFAULT_CONFIG);
  if (!settings) return failure(settings.error().message);
  auto core = Core::open(std::move(settings->core));
  if (!core) return failure(core.error().message);
  Accounts& accounts = (*core)->accounts();

  if (command == "add") return add(accounts, args);
  if (command == "role") return set_role(accounts, args);
  if (command == "list") return list(accounts, args);
  if (command == "delete") return remove(accounts, args);
  if (command == "key") return key(**core, args);
  return usage_error();
}
