// The standard headers that most of authd's sources use, precompiled once per
// target (cmake/PrecompiledHeaders.cmake). A system header, as CMake's own
// wrapper marks it too; once precompiled that no longer covers libstdc++'s
// code inlined into ours, whose GCC 12 false positives the CMake function
// turns off instead.
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
