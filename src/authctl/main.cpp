// authctl: operator commands on the same LMDB environment as authd, safe
// while the server runs (LMDB serialises writers across processes).
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app.hpp"
#include "authd/accounts.hpp"
#include "authd/config.hpp"
#include "authd/crypto.hpp"
#include "authd/password.hpp"
#include "authd/store.hpp"
#include "program_config.hpp"

namespace {

using namespace authd;

constexpr const char* kUsage =
    "usage: authctl COMMAND [ARGS]\n"
    "  add USER ROLE [--fullname NAME] [--email ADDRESS]\n"
    "                         create a user; the password is read from stdin\n"
    "  role USER ROLE         change a user's role (admin, editor, writer, user)\n"
    "  list                   list users: username, role, _id, __v\n"
    "  delete USER            delete a user (their tokens stop working at once)\n"
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

int add(const Config& config, UserStore& users, const std::vector<std::string>& args) {
  if (args.size() < 2) return usage_error();
  NewUser user;
  user.username = args[0];
  const auto role = role_argument(args[1]);
  if (!role) return 1;
  user.role = *role;
  for (std::size_t i = 2; i < args.size(); i += 2) {
    if (i + 1 >= args.size()) return usage_error();
    if (args[i] == "--fullname") user.fullname = args[i + 1];
    else if (args[i] == "--email") user.email = args[i + 1];
    else return usage_error();
  }
  if (auto ok = validate_username(user.username, config.credentials); !ok) return failure(ok.error().message);
  std::string password = read_password();
  if (auto ok = validate_password(password, config.credentials); !ok) return failure(ok.error().message);
  if (auto existing = users.find(user.username)) return failure("user '" + user.username + "' already exists");

  auto hash = PasswordHasher(config.argon2).hash(password);
  crypto::wipe(password.data(), password.size());
  if (!hash) return failure(hash.error().message);
  user.password_hash = std::move(*hash);
  auto created = users.create(user);
  if (!created) {
    if (created.error().code == Errc::conflict) return failure("user '" + user.username + "' already exists");
    return failure(created.error().message);
  }
  std::printf("added %s (%s) %s\n", created->username.c_str(), std::string(to_string(created->role)).c_str(),
              created->id.c_str());
  return 0;
}

int set_role(UserStore& users, const std::vector<std::string>& args) {
  if (args.size() != 2) return usage_error();
  const auto role = role_argument(args[1]);
  if (!role) return 1;
  auto user = users.set_role(args[0], *role);
  if (!user) {
    if (user.error().code == Errc::not_found) return failure("no such user '" + args[0] + "'");
    return failure(user.error().message);
  }
  std::printf("%s is now %s\n", user->username.c_str(), std::string(to_string(user->role)).c_str());
  return 0;
}

int list(UserStore& users, const std::vector<std::string>& args) {
  if (!args.empty()) return usage_error();
  auto all = users.list();
  if (!all) return failure(all.error().message);
  std::printf("%-32s %-7s %-24s %s\n", "USERNAME", "ROLE", "_ID", "__V");
  for (const auto& user : *all) {
    std::printf("%-32s %-7s %-24s %lld\n", user.username.c_str(), std::string(to_string(user.role)).c_str(),
                user.id.c_str(), static_cast<long long>(user.version));
  }
  return 0;
}

int remove(UserStore& users, const std::vector<std::string>& args) {
  if (args.size() != 1) return usage_error();
  if (auto ok = users.remove(args[0]); !ok) {
    if (ok.error().code == Errc::not_found) return failure("no such user '" + args[0] + "'");
    return failure(ok.error().message);
  }
  std::printf("deleted %s\n", args[0].c_str());
  return 0;
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
  const auto source = program_config_source(env, AUTHD_DEFAULT_CONFIG);
  auto config = load_config(source.file, env, source.optional);
  if (!config) return failure(config.error().message);
  auto database = open_database(*config);
  if (!database) return failure(database.error().message);
  UserStore users(**database);

  if (command == "add") return add(*config, users, args);
  if (command == "role") return set_role(users, args);
  if (command == "list") return list(users, args);
  if (command == "delete") return remove(users, args);
  return usage_error();
}
