// The FastCGI program's composition root: every setting loaded and checked
// once, then the core built from its part. authd and authctl both start here.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "authd/core.hpp"
#include "authd/settings.hpp"
#include "authd/settings_reference.hpp"
#include "program/server_settings.hpp"

namespace authd {

struct ProgramSettings {
  CoreSettings core;
  ServerSettings server;
  std::string effective;  // every setting as `name = value` lines, secrets redacted
};

// Defaults, then the config file ($AUTHD_CONFIG, else `compiled_default` if
// it exists), then AUTHD_<NAME> variables. Error: config, naming the file and
// line (or the variable), the setting and the reason. With `present` (the
// environment's AUTHD_* names, settings::environment_variable_names()), an
// AUTHD_* variable that is no setting's is an error too (authd and authctl pass
// it; tests with a made-up environment may leave it out).
Result<ProgramSettings> load_program_settings(const EnvLookup& env, const std::filesystem::path& compiled_default,
                                              std::optional<std::vector<std::string>> present = std::nullopt);

// Every setting of the program (fixed names, then the patterns of dynamic
// ones such as oauth_<setting>), and the fixed ones' declared defaults.
std::vector<std::string> program_setting_names();
std::vector<std::pair<std::string, std::string>> program_setting_defaults();
// The reference of every setting (defaults and docs, no file read):
// `authd --print-config=conf|markdown|man`.
std::string program_settings_reference(settings::ReferenceFormat format);

// What a request handler needs: the core and the program's own settings.
struct App {
  std::unique_ptr<Core> core;
  ServerSettings server;

  // Opens the store, loads the signing key and the mail templates
  // (Core::load_mail_templates). Errors: io, config — the
  // caller prints the one-line reason and refuses to start. With `running`
  // (a reload), the new App is built whole while `running` still serves, over
  // its store when the settings name the same one, and tells `running`'s
  // events observer; else `events` (Core::open).
  static Result<std::unique_ptr<App>> create(ProgramSettings settings, const App* running = nullptr,
                                             Events& events = no_events());
};

}  // namespace authd
