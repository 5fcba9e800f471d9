#include "app.hpp"

#include "authd/clock.hpp"
#include "log.hpp"

namespace authd {

namespace {

// Every table of the program, bound to `settings`, in `loader`.
struct ProgramTables {
  ProgramTables(ProgramSettings& settings, settings::Loader& loader) : core(settings.core, loader) {
    loader.add(server_settings(settings.server));
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

Result<ProgramSettings> load_program_settings(const EnvLookup& env, const std::filesystem::path& compiled_default) {
  ProgramSettings settings;
  settings::Loader loader;
  ProgramTables tables(settings, loader);
  const auto source = settings::config_source(env, compiled_default);
  if (auto ok = loader.load(source.file, source.optional, env); !ok) return std::unexpected(ok.error());
  settings.effective = loader.print();
  return settings;
}

Result<std::unique_ptr<App>> App::create(ProgramSettings settings) {
  auto core = Core::open(std::move(settings.core));
  if (!core) return std::unexpected(core.error());
  if (auto purged = (*core)->throttle().purge(unix_now()); !purged) {
    log::warn("cannot purge expired entries: " + purged.error().message);
  }
  auto app = std::make_unique<App>();
  app->core = std::move(*core);
  app->server = std::move(settings.server);
  return app;
}

}  // namespace authd
