// authctl's command line, parsed with getopt_long(3) the POSIX/GNU way:
// options may come before, between or after the operands, `--` ends them,
// `--name=value` and `--name value` are the same. Each command declares its
// options; a global option (--help, --json, ...) is declared by the caller too.
#pragma once

#include <expected>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace authctl {

struct OptionSpec {
  const char* name;      // long name, without the dashes
  bool takes_value;      // --name VALUE
  char short_name = 0;   // -x, or 0 for none
  // --name VALUE... : every following word up to the next option is a value
  // (as `--name V1 --name V2`); for options documented as taking lists.
  bool takes_list = false;
};

struct Invocation {
  std::vector<std::string> operands;
  std::map<std::string, std::vector<std::string>> options;  // every value, in order

  bool has(const std::string& name) const { return options.contains(name); }
  // The last value given for NAME, or "" when it was not given.
  std::string value(const std::string& name) const;
  const std::vector<std::string>& values(const std::string& name) const;
};

// Parses argv[first..argc). Error: a usage message naming the unknown option
// or the option that lacks its value.
std::expected<Invocation, std::string> parse_command_line(int argc, char** argv, int first,
                                                          std::span<const OptionSpec> options);

}  // namespace authctl
