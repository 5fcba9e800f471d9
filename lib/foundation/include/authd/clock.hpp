#pragma once

#include <cstdint>

namespace authd {

// Seconds since the Unix epoch (wall clock; what JWT `iat`/`exp` use).
std::int64_t unix_now() noexcept;

}  // namespace authd
