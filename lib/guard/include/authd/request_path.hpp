// The one canonical form of a request path, computed once before access
// rules match (the FastCGI authorizer and GET /auth/check).
//
// canonical_path(raw, decode):
//  - `raw` must start with '/'; with `decode`, each %XX is decoded exactly
//    once (a malformed escape is refused);
//  - ambiguous input is refused, never guessed: an encoded '/', '\', '%'
//    (double encoding), ';', '?' or '#'; a raw '\'; NUL or any other control
//    character; bytes that are not valid UTF-8;
//  - ";params" are cut from every segment (/admin;x=1/ is /admin/), as
//    servlet containers do before they serve the path;
//  - empty and "." segments are dropped (repeated slashes merge), ".."
//    removes the segment before it; a ".." above the root is refused;
//  - a trailing '/' (or a last "." / ".." segment) leaves a trailing '/'.
// The result is idempotent (canonical_path(result) == result, with or
// without `decode`), never longer than `raw`, and always under '/'
// (test/fuzz/fuzz_request_path.cpp checks all three).
#pragma once

#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd {

// Error invalid_input (message safe to show) for anything refused above.
Result<std::string> canonical_path(std::string_view raw, bool decode = true);

// The path of a request URI ("/a%20b?x#y" -> "/a b"): the query and fragment
// cut, then canonical_path with decoding.
Result<std::string> canonical_uri_path(std::string_view uri);

}  // namespace authd
