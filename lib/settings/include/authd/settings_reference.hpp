// The settings reference, written from the tables (settings.hpp): the one
// source of conf/authd.conf, the reference part of docs/configuration.md and
// the SETTINGS section of authd.conf(5). `authd --print-config=FORMAT` prints
// it; scripts/settings-docs.sh writes it into those files and a test fails
// when they differ from what the tables say.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/settings.hpp"

namespace authd::settings {

enum class ReferenceFormat {
  conf,      // a whole config file: every setting commented out with its default
  markdown,  // sections of docs/configuration.md
  man,       // the SETTINGS section of authd.conf(5), roff
};

// "conf", "markdown" or "man"; nullopt otherwise.
std::optional<ReferenceFormat> reference_format(std::string_view name) noexcept;

// The rows grouped by `group` (in the order each group first appears), each
// with its type, bounds, default, variable and doc.
std::string render_reference(const std::vector<Documented>& rows, ReferenceFormat format);

}  // namespace authd::settings
