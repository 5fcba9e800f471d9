#include "program/log.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

namespace authd::log {
namespace {

std::atomic<int> current{static_cast<int>(Level::info)};

constexpr std::string_view label(Level level) {
  switch (level) {
    case Level::error: return "error";
    case Level::warn: return "warn";
    case Level::info: return "info";
    case Level::debug: return "debug";
  }
  return "info";
}

}  // namespace

void set_level(std::string_view name) {
  for (auto level : {Level::error, Level::warn, Level::info, Level::debug}) {
    if (label(level) == name) current = static_cast<int>(level);
  }
}

bool enabled(Level level) { return static_cast<int>(level) <= current.load(std::memory_order_relaxed); }

void write(Level level, std::string_view message) {
  if (!enabled(level)) return;
  std::string line = "authd[" + std::to_string(::getpid()) + "]: " + std::string(label(level)) + ": ";
  // One record, one line, nothing a terminal or log viewer interprets: control
  // characters (CR/LF forging records, ESC sequences) and '\\' itself escaped.
  constexpr char kHex[] = "0123456789abcdef";
  for (char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '\\') {
      line += "\\x";
      line.push_back(kHex[byte >> 4]);
      line.push_back(kHex[byte & 15]);
    } else {
      line.push_back(c);
    }
  }
  line.push_back('\n');
  // A single write(2) keeps lines from different threads whole.
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace authd::log
