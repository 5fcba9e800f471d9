// Which config file authd and authctl read. As settings::config_source
// (authd/settings.hpp), plus one rule for the relocatable release (make dist):
// a relative compiled-in default ("authd.conf") names a file beside the
// program file itself, whatever the working directory, and that file must
// exist. So the copy of authd in a document root finds the authd.conf beside
// it, and the copy of authctl in the state directory finds its own.
#pragma once

#include <filesystem>

#include "authd/settings.hpp"

namespace authd {

settings::ConfigSource program_config_source(const EnvLookup& env, const std::filesystem::path& compiled_default);

}  // namespace authd
