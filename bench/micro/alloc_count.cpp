// Counts heap allocations by interposing malloc/calloc/realloc in the
// benchmark executable (glibc: the real ones stay reachable as __libc_*).
// operator new, jansson, OpenSSL and LMDB all allocate through these, so
// "allocs" per iteration covers the whole call. The count is process-wide;
// the micro-benchmarks run single-threaded.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "support.hpp"

extern "C" {
void* __libc_malloc(std::size_t size) noexcept;
void* __libc_calloc(std::size_t count, std::size_t size) noexcept;
void* __libc_realloc(void* pointer, std::size_t size) noexcept;
}

namespace {
std::atomic<std::uint64_t> allocation_count{0};
}

extern "C" {
void* malloc(std::size_t size) noexcept {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) noexcept {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}
}

namespace authd::bench {
std::uint64_t allocations() noexcept { return allocation_count.load(std::memory_order_relaxed); }
}  // namespace authd::bench
