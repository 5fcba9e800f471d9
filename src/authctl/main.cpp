// authctl: operator commands on the same store as authd, safe while the
// server runs (the store serialises writers across processes). It builds the
// same Core as authd and runs the same account operations.
#include <termios.h>
#include <unistd.h>

#include <pwd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"
#include "authd/accounts.hpp"
#include "authd/core.hpp"
#include "authd/crypto.hpp"
#include "authd/store_backends.hpp"
#include "authd/transfer.hpp"
#include "authd/user_admin.hpp"

namespace {

using namespace authd;

constexpr const char* kUsage =
    "usage: authctl COMMAND [ARGS]\n"
    "  add USER ROLE [--fullname NAME] [--email ADDRESS]\n"
    "                         create a user; the password is read from stdin\n"
    "  role USER ROLE [--force]\n"
    "                         change a user's role (admin, editor, writer, user); the last\n"
    "                         admin is kept unless --force\n"
    "  list                   list users: username, role, _id, __v\n"
    "  delete USER [--force]  delete a user (their tokens stop working at once); the last\n"
    "                         admin is kept unless --force\n"
    "  signout USER           end every token and refresh token of the user\n"
    "  backup FILE            consistent copy of the store while authd serves (LMDB compacting copy)\n"
    "  restore FILE [--force] put a backup back (authd stopped); --force replaces a non-empty store\n"
    "  export [FILE]          users (with hashes, roles, links) and records as JSON lines (stdout)\n"
    "  import FILE|- [--skip-bad]\n"
    "                         read an export, bulk {username,password(hash),role} lines or a\n"
    "                         mongoexport of the Express app's users (bcrypt); all or nothing\n"
    "                         unless --skip-bad (bad lines are listed with their numbers)\n"
    "  key rotate             a new token signing key (token_algorithm EdDSA/ES256); new\n"
    "                         tokens use it at once, older keys keep verifying\n"
    "  key retire [KID]       delete KID, or every key but the current one\n"
    "  key list               kid of every key, the current one marked with *\n"
    "  mfa reset USER         remove every second factor of USER (TOTP, recovery codes,\n"
    "                         passkeys), e.g. after a lost phone; audited\n"
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

// Who runs authctl, for the audit log.
Actor operator_actor() {
  const passwd* entry = ::getpwuid(::getuid());
  return Actor{std::string("authctl:") + (entry ? entry->pw_name : std::to_string(::getuid())), "local", ""};
}

// Errors of the shared account operations, in authctl's words.
// `change`: a role change or deletion, whose conflict is the last-admin rule.
int refused(const Error& error, const std::string& username, bool change = false) {
  if (error.code == Errc::conflict && change) return failure(error.message + " (or use --force)");
  if (error.code == Errc::conflict) return failure("user '" + username + "' already exists");
  if (error.code == Errc::not_found) return failure("no such user '" + username + "'");
  return failure(error.message);
}

int add(Accounts& accounts, UserAdmin& admin, const std::vector<std::string>& args) {
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
  auto created = admin.create(operator_actor(), username, password, *role, fullname, email);
  crypto::wipe(password.data(), password.size());
  if (!created) return refused(created.error(), username);
  std::printf("added %s (%s) %s\n", created->username.c_str(), std::string(to_string(created->role)).c_str(),
              created->id.c_str());
  return 0;
}

// Whether the arguments end with --force (taken off).
bool forced(std::vector<std::string>& args) {
  if (args.empty() || args.back() != "--force") return false;
  args.pop_back();
  return true;
}

int set_role(UserAdmin& admin, std::vector<std::string> args) {
  const bool force = forced(args);
  if (args.size() != 2) return usage_error();
  const auto role = role_argument(args[1]);
  if (!role) return 1;
  auto user = admin.set_role(operator_actor(), args[0], *role, force);
  if (!user) return refused(user.error(), args[0], true);
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

int remove(UserAdmin& admin, std::vector<std::string> args) {
  const bool force = forced(args);
  if (args.size() != 1) return usage_error();
  if (auto ok = admin.remove(operator_actor(), args[0], force); !ok) return refused(ok.error(), args[0], true);
  std::printf("deleted %s\n", args[0].c_str());
  return 0;
}

int sign_out(UserAdmin& admin, const std::vector<std::string>& args) {
  if (args.size() != 1) return usage_error();
  if (auto ok = admin.sign_out(operator_actor(), args[0]); !ok) return refused(ok.error(), args[0]);
  std::printf("signed out %s everywhere\n", args[0].c_str());
  return 0;
}

int backup(Store& store, const std::vector<std::string>& args) {
  if (args.size() != 1) return usage_error();
  if (auto ok = store.backup(args[0]); !ok) return failure(ok.error().message);
  std::printf("backed up to %s\n", args[0].c_str());
  return 0;
}

// Runs before any Core exists: the store must not be open while it is replaced.
int restore(const CoreSettings& core, const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && args[1] != "--force")) return usage_error();
  if (core.store.kind != StoreKind::lmdb) return failure("restore is for the LMDB store; see README for pg_restore");
  LmdbOptions options = core.store.lmdb;
  options.map_size_bytes = core.store.map_size_mb << 20;
  if (auto ok = restore_lmdb(options, args[0], args.size() == 2); !ok) return failure(ok.error().message);
  std::printf("restored %s into %s\n", args[0].c_str(), options.directory.c_str());
  return 0;
}

int export_all(Store& store, const std::vector<std::string>& args) {
  if (args.size() > 1) return usage_error();
  std::ofstream file;
  if (!args.empty()) {
    file.open(args[0], std::ios::out | std::ios::trunc);
    if (!file) return failure("cannot write " + args[0]);
    std::filesystem::permissions(args[0], std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  std::ostream& out = args.empty() ? std::cout : file;
  auto done = export_store(store, [&](std::string_view line) { out << line << '\n'; });
  out.flush();
  if (!done) return failure(done.error().message);
  if (!out) return failure("write failed");
  return 0;
}

int import_all(Core& core, const std::vector<std::string>& args) {
  if (args.empty() || args.size() > 2 || (args.size() == 2 && args[1] != "--skip-bad")) return usage_error();
  std::string input;
  if (args[0] == "-") {
    input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream file(args[0], std::ios::binary);
    if (!file) return failure("cannot read " + args[0]);
    input.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  const bool skip_bad = args.size() == 2;
  auto report = import_lines(core.store(), input, core.accounts().policy(), skip_bad);
  if (!report) return failure(report.error().message);
  for (const auto& problem : report->problems) {
    std::fprintf(stderr, "authctl: %s%s\n", skip_bad ? "skipped " : "", problem.c_str());
  }
  if (report->bad_lines > report->problems.size()) {
    std::fprintf(stderr, "authctl: ... and %zu more bad lines\n", report->bad_lines - report->problems.size());
  }
  if (!report->committed) {
    return failure(std::to_string(report->bad_lines) + " bad line(s): nothing imported (fix them, or --skip-bad)");
  }
  const Actor actor = operator_actor();
  core.audit().record({.event = "users_imported", .client = actor.client, .outcome = "ok",
                       .reason = std::to_string(report->users) + " users, " + std::to_string(report->records) +
                                 " records, " + std::to_string(report->bad_lines) + " bad lines skipped",
                       .actor = actor.name});
  std::printf("imported %zu users and %zu records", report->users, report->records);
  if (report->bad_lines) std::printf("; skipped %zu bad lines", report->bad_lines);
  std::printf("\n");
  return 0;
}

// `key rotate|retire|list`: the key ring where the store keeps it
// (<state_dir>/keys with LMDB, the database with PostgreSQL).
int key(Core& core, const std::vector<std::string>& args) {
  const auto algorithm = key_algorithm(core.settings().token.algorithm);
  if (!algorithm) return failure("token_algorithm is HS256: there are no public-key signing keys to manage");
  const auto storage = key_storage(core.settings(), core.store());
  if (args.size() == 1 && args[0] == "rotate") {
    auto kid = KeyRing::rotate(*storage, *algorithm);
    if (!kid) return failure(kid.error().message);
    const Actor actor = operator_actor();
    core.audit().record({.event = "key_rotated", .client = actor.client, .outcome = "ok",
                         .reason = "new signing key " + *kid, .actor = actor.name});
    std::printf("%s\n", kid->c_str());
    return 0;
  }
  if ((args.size() == 1 || args.size() == 2) && args[0] == "retire") {
    auto retired = KeyRing::retire(*storage, args.size() == 2 ? args[1] : std::string());
    if (!retired) return failure(retired.error().message);
    const Actor actor = operator_actor();
    for (const auto& kid : *retired) {
      std::printf("retired %s\n", kid.c_str());
      core.audit().record({.event = "key_retired", .client = actor.client, .outcome = "ok",
                           .reason = "signing key " + kid, .actor = actor.name});
    }
    return 0;
  }
  if (args.size() == 1 && args[0] == "list") {
    auto ring = KeyRing::open(storage, *algorithm);
    if (!ring) return failure(ring.error().message);
    const auto keys = (*ring)->keys(KeyRing::Check::always, 0);
    if (keys->current.empty()) return failure("cannot read the signing keys in " + storage->where() + " now");
    for (const auto& [kid, pair] : keys->by_kid) std::printf("%s%s\n", kid.c_str(), kid == keys->current ? " *" : "");
    return 0;
  }
  return usage_error();
}

// `mfa reset USER`: the user signs in with the password alone again (and, in
// a role of mfa_required_roles, must enrol anew before using a token).
int mfa(Core& core, const std::vector<std::string>& args) {
  if (args.size() != 2 || args[0] != "reset") return usage_error();
  auto user = core.accounts().find(args[1]);
  if (!user) return refused(user.error(), args[1]);
  if (auto done = core.mfa().reset(user->id); !done) return failure(done.error().message);
  const Actor actor = operator_actor();
  core.audit().record({.event = "mfa_reset", .username = user->username, .client = actor.client, .outcome = "ok",
                       .reason = "every second factor removed", .actor = actor.name});
  std::printf("second factors of %s removed\n", user->username.c_str());
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
  auto settings = load_program_settings(env, AUTHD_DEFAULT_CONFIG);
  if (!settings) return failure(settings.error().message);
  if (command == "restore") return restore(settings->core, args);
  auto core = Core::open(std::move(settings->core));
  if (!core) return failure(core.error().message);
  Accounts& accounts = (*core)->accounts();
  UserAdmin admin(accounts, (*core)->revocation(), (*core)->refresh(), (*core)->audit());

  if (command == "add") return add(accounts, admin, args);
  if (command == "role") return set_role(admin, args);
  if (command == "list") return list(accounts, args);
  if (command == "delete") return remove(admin, args);
  if (command == "signout") return sign_out(admin, args);
  if (command == "backup") return backup((*core)->store(), args);
  if (command == "export") return export_all((*core)->store(), args);
  if (command == "import") return import_all(**core, args);
  if (command == "key") return key(**core, args);
  if (command == "mfa") return mfa(**core, args);
  return usage_error();
}
