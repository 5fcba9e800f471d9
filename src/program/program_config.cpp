#include "program/program_config.hpp"

#include <system_error>

namespace authd {

settings::ConfigSource program_config_source(const EnvLookup& env, const std::filesystem::path& compiled_default) {
  auto source = settings::config_source(env, compiled_default);
  if (!source.optional || compiled_default.empty() || !compiled_default.is_relative()) return source;  // AUTHD_CONFIG, or an absolute default
  std::error_code ec;
  const auto program = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) source.file = program.parent_path() / compiled_default;
  source.optional = false;
  return source;
}

}  // namespace authd
