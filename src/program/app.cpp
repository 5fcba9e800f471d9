#include "program/app.hpp"

#include "authd/clock.hpp"
#include "program/log.hpp"
#include "program/program_config.hpp"

namespace authd {

namespace {

// Every table of the program, bound to `settings`, in `loader`.
struct ProgramTables {
  ProgramTables(ProgramSettings& settings, settings::Loader& loader) : core(settings.core, loader) {
    loader.add(server_settings(settings.server));
    loader.add(portal_settings(settings.server.portal));
    loader.add_check([&portal = settings.server.portal] { return validate_portal_settings(portal); });
  }
  CoreSettingsTables core;
};

}  // namespace

std::vector<std::string> program_setting_names() {
  ProgramSettings settings;
  settings::Loader loader;
  ProgramTables tables(settings, loader);
  return loader.names();
}

std::vector<std::pair<std::string, std::string>> program_setting_defaults() {
  ProgramSettings settings;
  settings::Loader loader;
  ProgramTables tables(settings, loader);
  return loader.defaults();
}

std::string program_settings_reference(settings::ReferenceFormat format) {
  ProgramSettings settings;
  settings::Loader loader;
  ProgramTables tables(settings, loader);
  return settings::render_reference(loader.documented(), format);
}

Result<ProgramSettings> load_program_settings(const EnvLookup& env, const std::filesystem::path& compiled_default,
                                              std::optional<std::vector<std::string>> present) {
  ProgramSettings settings;
  settings::Loader loader;
  ProgramTables tables(settings, loader);
  if (present) loader.refuse_unknown_variables(std::move(*present));
  const auto source = program_config_source(env, compiled_default);
  if (auto ok = loader.load(source.file, source.optional, env); !ok) return std::unexpected(ok.error());
  settings.effective = loader.print();
  return settings;
}

Result<std::unique_ptr<App>> App::create(ProgramSettings settings, const App* running, Events& events) {
  auto core =
      running ? Core::open(std::move(settings.core), *running->core) : Core::open(std::move(settings.core), events);
  if (!core) return std::unexpected(core.error());
  if (auto purged = (*core)->throttle().purge(unix_now()); !purged) {
    log::warn("cannot purge expired entries: " + purged.error().message);
  }
  if (auto loaded = (*core)->load_mail_templates(); !loaded) return std::unexpected(loaded.error());
  auto app = std::make_unique<App>();
  app->core = std::move(*core);
  app->server = std::move(settings.server);
  return app;
}

}  // namespace authd
