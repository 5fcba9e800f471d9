// The commands of authctl, each a function over the Context (settings, the
// Core opened on first use) and its parsed Invocation. The table that names
// them, their operands and options is in main.cpp.
#pragma once

#include <memory>
#include <string>

#include "program/app.hpp"
#include "authd/core.hpp"
#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/user_admin.hpp"
#include "command_line.hpp"

namespace authctl {

// Exit statuses (authctl(8)): 0 done, 1 the operation failed, 2 usage error.
inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;
inline constexpr int kUsage = 2;

class Context {
 public:
  explicit Context(authd::ProgramSettings settings, bool json) : settings_(std::move(settings)), json_(json) {}

  const authd::ProgramSettings& settings() const { return settings_; }
  bool json() const { return json_; }
  // The Core on the configured store, opened on the first call. Error: why
  // the store or the keys could not be opened; with store = lmdb, that the
  // state directory does not exist (authctl run elsewhere than authd would
  // otherwise make a new empty store), unless allow_new_store().
  authd::Result<authd::Core*> core();
  // For the commands that fill a store from a file (import): a missing state
  // directory is created, as authd does at its first start.
  void allow_new_store() noexcept { allow_new_store_ = true; }

 private:
  authd::ProgramSettings settings_;
  bool json_;
  bool allow_new_store_ = false;
  std::unique_ptr<authd::Core> core_;
};

// Prints "authctl: MESSAGE" on stderr; returns kFailure.
int failure(const std::string& message);
// Errors of the shared account operations, in authctl's words.
int refused(const authd::Error& error, const std::string& username);
// Who runs authctl, for the audit log.
authd::Actor operator_actor();
// Prints JSON on stdout, one value and a newline.
void print_json(const authd::Json& value);

// users.cpp
int add_user(Context& context, const Invocation& invocation);
int set_role(Context& context, const Invocation& invocation);
int list_users(Context& context, const Invocation& invocation);
int show_user(Context& context, const Invocation& invocation);
int delete_user(Context& context, const Invocation& invocation);
int sign_out_user(Context& context, const Invocation& invocation);
int reset_mfa(Context& context, const Invocation& invocation);
// directory.cpp
int test_directory(Context& context, const Invocation& invocation);
// store_commands.cpp
int backup(Context& context, const Invocation& invocation);
int restore(Context& context, const Invocation& invocation);
int export_all(Context& context, const Invocation& invocation);
int import_all(Context& context, const Invocation& invocation);
// keys.cpp
int rotate_key(Context& context, const Invocation& invocation);
int retire_keys(Context& context, const Invocation& invocation);
int list_keys(Context& context, const Invocation& invocation);
// client_commands.cpp
int add_client(Context& context, const Invocation& invocation);
int list_clients(Context& context, const Invocation& invocation);
int show_client(Context& context, const Invocation& invocation);
int remove_client(Context& context, const Invocation& invocation);
int rotate_client_secret(Context& context, const Invocation& invocation);
int update_client(Context& context, const Invocation& invocation);

// invitations.cpp
int invite(Context& context, const Invocation& invocation);
int list_invitations(Context& context, const Invocation& invocation);
int revoke_invitation(Context& context, const Invocation& invocation);

}  // namespace authctl
