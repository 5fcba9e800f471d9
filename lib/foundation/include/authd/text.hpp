// Small text routines used across the core and the FastCGI program, each
// written once: trimming, case-insensitive comparison, control characters,
// percent-decoding, form/query splitting and HTML escaping.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace authd::text {

// Without leading and trailing white space (isspace: config files, rules).
std::string_view trim(std::string_view text) noexcept;
// Without leading and trailing spaces and tabs only (HTTP's OWS, RFC 9110 §5.6.3).
std::string_view trim_ows(std::string_view text) noexcept;
// The white-space separated words of `text`.
std::vector<std::string_view> words(std::string_view text);

bool iequals(std::string_view a, std::string_view b) noexcept;  // ASCII case-insensitive
bool has_control(std::string_view text) noexcept;               // any byte < 0x20 or 0x7f
int hex_value(char c) noexcept;                                  // 0..15 for a hex digit, else -1

// Strict percent-decoding: every '%' must start two hex digits; %00 is
// refused. `plus_is_space` for application/x-www-form-urlencoded. nullopt on
// malformed input. (Written here because the lenient decoders of cgicc and
// libcurl accept malformed escapes and NUL, which a security check must not.)
std::optional<std::string> percent_decode(std::string_view encoded, bool plus_is_space = false);

// "a=1&b=x%20y" split and decoded ('+' is a space); pairs in order, empty
// pairs skipped, a malformed escape keeps the raw text. Names may repeat.
std::vector<std::pair<std::string, std::string>> split_form(std::string_view query);

// The raw (still encoded) value of the first `name` in a query string.
std::optional<std::string_view> query_value(std::string_view query, std::string_view name) noexcept;

// &, <, >, ", ' as character references (text and attribute values).
std::string html_escaped(std::string_view text);

}  // namespace authd::text
