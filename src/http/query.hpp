// Query strings and cookies of an incoming request, and the encoding of
// the query strings authd writes.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace authd::http {

// Decodes "a=1&b=x%20y" (application/x-www-form-urlencoded, '+' is a space).
// The first occurrence of a name wins.
std::map<std::string, std::string, std::less<>> parse_query(std::string_view query);

// RFC 3986 unreserved characters kept, every other byte %XX (upper case).
std::string percent_encoded(std::string_view text);

// The value of cookie `name` in a Cookie header ("" when absent).
std::string_view cookie_value(std::string_view cookie_header, std::string_view name);

}  // namespace authd::http
