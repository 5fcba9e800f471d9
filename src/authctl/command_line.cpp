#include "command_line.hpp"

#include <getopt.h>

#include <string_view>

namespace authctl {

std::string Invocation::value(const std::string& name) const {
  auto found = options.find(name);
  return found == options.end() || found->second.empty() ? std::string() : found->second.back();
}

const std::vector<std::string>& Invocation::values(const std::string& name) const {
  static const std::vector<std::string> none;
  auto found = options.find(name);
  return found == options.end() ? none : found->second;
}

std::expected<Invocation, std::string> parse_command_line(int argc, char** argv, int first,
                                                          std::span<const OptionSpec> options) {
  // getopt_long wants argv[0] before the arguments: hand it argv[first - 1..],
  // with `--list V1 V2` spelled out as `--list V1 --list V2`.
  std::vector<std::string> spelled;  // the repeated option names, kept alive here
  spelled.reserve(static_cast<std::size_t>(argc));
  std::vector<char*> arguments{argv[first - 1]};
  const OptionSpec* list = nullptr;
  for (int i = first; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") {
      arguments.insert(arguments.end(), argv + i, argv + argc);
      break;
    }
    if (word.starts_with("-")) {
      list = nullptr;
      for (const auto& spec : options) {
        if (spec.takes_list && word == std::string("--") + spec.name) list = &spec;
      }
      arguments.push_back(argv[i]);
      if (list && i + 1 < argc) arguments.push_back(argv[++i]);
      continue;
    }
    if (list) arguments.push_back(spelled.emplace_back(std::string("--") + list->name).data());
    arguments.push_back(argv[i]);
  }
  arguments.push_back(nullptr);
  std::vector<option> table;
  std::string short_options = ":";  // leading ':' : a missing value is reported as ':'
  for (std::size_t i = 0; i < options.size(); ++i) {
    table.push_back(option{options[i].name, options[i].takes_value ? required_argument : no_argument, nullptr,
                           static_cast<int>(256 + i)});
    if (options[i].short_name) {
      short_options += options[i].short_name;
      if (options[i].takes_value) short_options += ':';
    }
  }
  table.push_back(option{nullptr, 0, nullptr, 0});

  Invocation invocation;
  ::optind = 0;  // glibc: 0 re-initialises the scanner (a second parse in the same process)
  ::opterr = 0;
  const int count = static_cast<int>(arguments.size()) - 1;
  for (;;) {
    int index = -1;
    const int found = ::getopt_long(count, arguments.data(), short_options.c_str(), table.data(), &index);
    if (found == -1) break;
    const char* shown = ::optind > 0 && ::optind <= count ? arguments[static_cast<std::size_t>(::optind) - 1] : "";
    if (found == '?') return std::unexpected(std::string("unknown option '") + shown + "'");
    if (found == ':') return std::unexpected(std::string("option '") + shown + "' needs a value");
    std::size_t which = options.size();
    if (found >= 256) {
      which = static_cast<std::size_t>(found - 256);
    } else {
      for (std::size_t i = 0; i < options.size(); ++i) {
        if (options[i].short_name == found) which = i;
      }
    }
    if (which == options.size()) return std::unexpected(std::string("unknown option '") + shown + "'");
    auto& values = invocation.options[options[which].name];
    if (options[which].takes_value) values.emplace_back(::optarg);
  }
  for (int i = ::optind; i < count; ++i) invocation.operands.emplace_back(arguments[static_cast<std::size_t>(i)]);
  return invocation;
}

}  // namespace authctl
