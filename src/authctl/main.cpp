// authctl: operator commands on the same store as authd, safe while the
// server runs (the store serialises writers across processes). It builds the
// same Core as authd and runs the same account operations.
//
// The command line follows getopt_long(3): options anywhere, `--` ends them,
// `authctl COMMAND --help` describes one command and `authctl GROUP --help`
// (key, client, invitation, mfa) lists its subcommands, exit status 0 (done),
// 1 (the operation failed), 2 (usage). authctl(8) and the bash completion
// (conf/bash-completion/authctl) list the same commands as the table below.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "commands.hpp"

#ifndef AUTHD_VERSION
#define AUTHD_VERSION "unknown"
#endif

namespace authctl {
namespace {

struct Command {
  const char* name;      // one word, or two for the groups ("key rotate")
  const char* operands;  // for the usage line
  const char* summary;
  std::size_t min_operands;
  std::size_t max_operands;
  std::vector<OptionSpec> options;  // besides the global ones
  int (*run)(Context&, const Invocation&);
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"add", "USER ROLE [--fullname NAME] [--email ADDRESS]",
       "create a user; the password is read from stdin (no echo on a terminal)", 2, 2,
       {{"fullname", true}, {"email", true}}, add_user},
      {"role", "USER ROLE [--force]",
       "change a user's role (admin, editor, writer, user); the last admin keeps the role unless --force", 2, 2,
       {{"force", false}}, set_role},
      {"list", "", "list users: username, role, _id, __v, source (--json: an array of objects)", 0, 0, {}, list_users},
      {"show", "USER", "one user's username, role, _id, __v, fullname and email", 1, 1, {}, show_user},
      {"delete", "USER [--force]",
       "delete a user (their tokens stop working at once); the last admin stays unless --force", 1, 1,
       {{"force", false}}, delete_user},
      {"signout", "USER", "end every token and refresh token of the user", 1, 1, {}, sign_out_user},
      {"backup", "FILE", "consistent copy of the store while authd serves (LMDB compacting copy)", 1, 1, {}, backup},
      {"restore", "FILE [--force]", "put a backup back (authd stopped); --force replaces a non-empty store", 1, 1,
       {{"force", false}}, restore},
      {"export", "[FILE]", "users (with hashes, roles, links) and records as JSON lines (default: stdout)", 0, 1, {},
       export_all},
      {"import", "[--skip-bad] FILE|-",
       "read an export, bulk {username,password(hash),role} lines or a mongoexport of the Express app's users\n"
       "(bcrypt); all or nothing unless --skip-bad (bad lines are listed with their numbers)",
       1, 1, {{"skip-bad", false}}, import_all},
      {"key rotate", "[--id-token]",
       "a new token signing key (token_algorithm EdDSA/ES256); new tokens use it at once;\n"
       "--id-token: a new ID-token key (oidc_provider), new ID tokens use it at once",
       0, 0, {{"id-token", false}}, rotate_key},
      {"key retire", "[KID] [--id-token]", "delete KID, or every key but the current one (--id-token: of the ID-token keys)",
       0, 1, {{"id-token", false}}, retire_keys},
      {"key list", "[--id-token]",
       "kid of every key, the current one marked with * (--json: objects; --id-token: the ID-token keys)", 0, 0,
       {{"id-token", false}}, list_keys},
      {"client add", "NAME [--redirect-uri URI...] [--public] [--first-party] [--require-par] [--post-logout-uri URI...]\n"
                     "           [--scope SCOPE...] [--backchannel-logout-uri URI [--backchannel-logout-session-required]]\n"
                     "           [--grant authorization_code|client_credentials|device_code...] [--role ROLE] [--jwks FILE | --jwks-uri URL]",
       "register an application signing in through authd (OpenID Connect); prints its client_id and,\n"
       "unless --public or --jwks/--jwks-uri (private_key_jwt), its secret (shown once, stored hashed);\n"
       "redirect URIs match exactly; --grant client_credentials --role ROLE: a service client whose own\n"
       "tokens act as ROLE (no redirect URI needed); --require-par: /authorize only with a request\n"
       "pushed to /par (RFC 9126)",
       1, 1,
       {{"redirect-uri", true, 0, true}, {"post-logout-uri", true, 0, true}, {"scope", true, 0, true},
        {"public", false}, {"first-party", false}, {"require-par", false}, {"backchannel-logout-uri", true},
        {"backchannel-logout-session-required", false}, {"grant", true, 0, true}, {"role", true}, {"jwks", true},
        {"jwks-uri", true}},
       add_client},
      {"client update", "CLIENT_ID --backchannel-logout-uri URI|\"\" [--backchannel-logout-session-required]",
       "set (or, with \"\", remove) the client's back-channel logout URI: where authd POSTs a logout token\n"
       "when a user who signed in to it signs out",
       1, 1, {{"backchannel-logout-uri", true}, {"backchannel-logout-session-required", false}}, update_client},
      {"client list", "", "every registered client: client_id, type, name (--json: objects)", 0, 0, {}, list_clients},
      {"client show", "CLIENT_ID", "one client's settings (never its secret)", 1, 1, {}, show_client},
      {"client remove", "CLIENT_ID", "remove a client; its tokens stop being issued", 1, 1, {}, remove_client},
      {"client rotate-secret", "CLIENT_ID", "a new secret for a confidential client, shown once", 1, 1, {},
       rotate_client_secret},
      {"invite", "EMAIL ROLE [--ttl SECONDS] [--url SITE] [--no-mail]",
       "invite EMAIL to choose a username and password for an account with ROLE; prints the single-use\n"
       "link (<public_url or --url>/invite#token=...) and mails it when smtp_url is set, unless --no-mail;\n"
       "--ttl: its lifetime (default invitation_ttl)",
       2, 2, {{"ttl", true}, {"url", true}, {"no-mail", false}}, invite},
      {"invitation list", "", "pending invitations: id, role, expiry, email (--json: objects)", 0, 0, {},
       list_invitations},
      {"invitation revoke", "ID", "revoke an invitation: its link stops working", 1, 1, {}, revoke_invitation},
      {"mfa reset", "USER", "remove every second factor of USER (TOTP, recovery codes, passkeys); audited", 1, 1, {},
       reset_mfa},
      {"directory test", "USERNAME",
       "look USERNAME up in the directory as a sign-in would (no password): which server answered, the DN, "
       "the groups and the role it would get",
       1, 1, {}, test_directory},
  };
  return table;
}

// Accepted by every command.
const std::vector<OptionSpec> kGlobalOptions = {{"help", false, 'h'}, {"json", false}, {"version", false, 'V'}};

void print_command(const Command& command, std::FILE* out) {
  std::fprintf(out, "  %s%s%s\n", command.name, *command.operands ? " " : "", command.operands);
  std::string summary = command.summary;
  std::size_t start = 0;
  while (start <= summary.size()) {
    const auto end = summary.find('\n', start);
    std::fprintf(out, "      %s\n", summary.substr(start, end - start).c_str());
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

void print_usage(std::FILE* out) {
  std::fputs("usage: authctl [--json] COMMAND [OPTIONS] [OPERANDS]\n"
             "       authctl --help | --version | COMMAND --help\n\ncommands:\n",
             out);
  for (const auto& command : commands()) print_command(command, out);
  std::fputs("\nOptions may come anywhere; `--` ends them. --json: machine-readable output (list, show, add,\n"
             "role, key list, client ...). Exit status: 0 done, 1 the operation failed, 2 usage error.\n"
             "Reads the same settings as authd: its configuration file or $AUTHD_CONFIG, then AUTHD_<NAME>.\n",
             out);
}

int usage_error(const std::string& message) {
  if (!message.empty()) std::fprintf(stderr, "authctl: %s\n", message.c_str());
  std::fputs("Try 'authctl --help'.\n", stderr);
  return kUsage;
}

// The command named by argv[1] (and argv[2] for the two-word ones); sets
// `consumed` to how many words it took.
const Command* find_command(int argc, char** argv, int& consumed) {
  for (const auto& command : commands()) {
    const std::string_view name = command.name;
    const auto space = name.find(' ');
    if (space == std::string_view::npos) {
      if (argc > 1 && name == argv[1]) return consumed = 1, &command;
    } else if (argc > 2 && name.substr(0, space) == argv[1] && name.substr(space + 1) == argv[2]) {
      return consumed = 2, &command;
    }
  }
  return nullptr;
}

// `authctl GROUP --help`: the group's subcommands.
void print_group(std::string_view group, std::FILE* out) {
  std::fprintf(out, "usage: authctl %.*s SUBCOMMAND [OPTIONS] [OPERANDS]\n\nsubcommands:\n",
               static_cast<int>(group.size()), group.data());
  for (const auto& command : commands()) {
    const std::string_view name = command.name;
    if (name.starts_with(group) && name.size() > group.size() && name[group.size()] == ' ') print_command(command, out);
  }
}

// -h or --help among the words (before a `--`).
bool asks_help(int argc, char** argv, int from) {
  for (int i = from; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "-h" || word == "--help") return true;
  }
  return false;
}

bool is_group(std::string_view word) {
  for (const auto& command : commands()) {
    const std::string_view name = command.name;
    const auto space = name.find(' ');
    if (space != std::string_view::npos && name.substr(0, space) == word) return true;
  }
  return false;
}

}  // namespace

authd::Result<authd::Core*> Context::core() {
  const auto& store = settings_.core.store;
  std::error_code ec;
  if (!core_ && !allow_new_store_ && store.backend == "lmdb" && !std::filesystem::is_directory(store.lmdb.directory, ec)) {
    return authd::fail(authd::Errc::not_found,
                       "no store at " + std::filesystem::absolute(store.lmdb.directory, ec).lexically_normal().string() +
                           ": the state directory does not exist (state_dir = " + store.lmdb.directory.string() +
                           ", relative to the current directory; set state_dir in the configuration file or "
                           "AUTHD_STATE_DIR to the directory authd uses)");
  }
  if (!core_) {
    auto opened = authd::Core::open(settings_.core);
    if (!opened) return std::unexpected(opened.error());
    core_ = std::move(*opened);
  }
  return core_.get();
}

int failure(const std::string& message) {
  std::fprintf(stderr, "authctl: %s\n", message.c_str());
  return kFailure;
}

int refused(const authd::Error& error, const std::string& username) {
  if (error.code == authd::Errc::conflict) return failure("user '" + username + "' already exists");
  if (error.code == authd::Errc::not_found) return failure("no such user '" + username + "'");
  return failure(error.message);
}

authd::Actor operator_actor() {
  const passwd* entry = ::getpwuid(::getuid());
  return authd::Actor{std::string("authctl:") + (entry ? entry->pw_name : std::to_string(::getuid())), "local", ""};
}

void print_json(const authd::Json& value) { std::printf("%s\n", value.dump().c_str()); }

}  // namespace authctl

int main(int argc, char** argv) {
  using namespace authctl;
  // Global options before the command: --help, --version, --json.
  bool json = false;
  int first = 1;
  for (; first < argc && argv[first][0] == '-' && argv[first][1] != '\0'; ++first) {
    const std::string_view option = argv[first];
    if (option == "-h" || option == "--help") return print_usage(stdout), kOk;
    if (option == "-V" || option == "--version") return std::printf("authctl %s\n", AUTHD_VERSION), kOk;
    if (option == "--json") {
      json = true;
      continue;
    }
    if (option == "--") {
      ++first;
      break;
    }
    return usage_error("unknown option '" + std::string(option) + "'");
  }
  if (first >= argc) return usage_error("a command is needed");
  if (std::strcmp(argv[first], "help") == 0) return print_usage(stdout), kOk;

  int consumed = 0;
  const Command* command = find_command(argc - first + 1, argv + first - 1, consumed);
  if (!command) {
    if (is_group(argv[first])) {
      const bool subcommand_given = first + 1 < argc && argv[first + 1][0] != '-';
      if (!subcommand_given && asks_help(argc, argv, first + 1)) return print_group(argv[first], stdout), kOk;
      if (subcommand_given) {
        std::fprintf(stderr, "authctl: unknown subcommand '%s %s'\n", argv[first], argv[first + 1]);
      } else {
        std::fprintf(stderr, "authctl: '%s' needs a subcommand\n", argv[first]);
      }
      print_group(argv[first], stderr);
      return kUsage;
    }
    return usage_error(std::string("unknown command '") + argv[first] + "'");
  }
  std::vector<OptionSpec> options = kGlobalOptions;
  options.insert(options.end(), command->options.begin(), command->options.end());
  auto invocation = parse_command_line(argc, argv, first + consumed, options);
  if (!invocation) return usage_error(invocation.error());
  if (invocation->has("help")) {
    std::printf("usage: authctl %s%s%s\n", command->name, *command->operands ? " " : "", command->operands);
    print_command(*command, stdout);
    return kOk;
  }
  if (invocation->has("version")) return std::printf("authctl %s\n", AUTHD_VERSION), kOk;
  const auto operands = invocation->operands.size();
  if (operands < command->min_operands || operands > command->max_operands) {
    return usage_error(std::string("usage: authctl ") + command->name + (*command->operands ? " " : "") +
                       command->operands);
  }

  const authd::EnvLookup env = [](const char* name) { return std::getenv(name); };
  auto settings = authd::load_program_settings(env, AUTHD_DEFAULT_CONFIG, authd::settings::environment_variable_names());
  if (!settings) return failure(settings.error().message);
  Context context(std::move(*settings), json || invocation->has("json"));
  if (std::string_view(command->name) == "import") context.allow_new_store();
  return command->run(context, *invocation);
}
