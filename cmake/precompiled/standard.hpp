// The standard headers that most of authd's sources use, precompiled once per
// target (cmake/PrecompiledHeaders.cmake). Marked as a system header: forced
// in first, GCC 12 would otherwise report its own -O2 false positives from
// inside them (e.g. -Warray-bounds on moving a std::string, GCC PR 105651) as
// errors in our code.
#pragma GCC system_header
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>
