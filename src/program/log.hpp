// One-line log records on stderr (lighttpd/spawn-fcgi/systemd collect it).
// Never pass secrets: passwords, tokens and keys are not logged anywhere.
#pragma once

#include <string_view>

namespace authd::log {

enum class Level { error = 0, warn = 1, info = 2, debug = 3 };

void set_level(std::string_view name);
bool enabled(Level level);
void write(Level level, std::string_view message);

inline void error(std::string_view message) { write(Level::error, message); }
inline void warn(std::string_view message) { write(Level::warn, message); }
inline void info(std::string_view message) { write(Level::info, message); }
inline void debug(std::string_view message) { write(Level::debug, message); }

}  // namespace authd::log
