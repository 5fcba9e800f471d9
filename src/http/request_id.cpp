#include "http/request_id.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "authd/crypto.hpp"

namespace authd::http {
namespace {

// SplitMix64's finaliser: a bijection, so distinct counter values give
// distinct ids; it also spreads them so consecutive ids do not look alike.
std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t random_seed() {
  unsigned char bytes[sizeof(std::uint64_t)] = {};
  (void)crypto::random_bytes(bytes);  // on failure the ids are still unique within the process
  std::uint64_t seed = 0;
  std::memcpy(&seed, bytes, sizeof seed);
  return seed;
}

}  // namespace

std::string new_request_id() {
  static const std::uint64_t seed = random_seed();
  // Each thread counts in a range of its own (2^40 values from its number
  // shifted up), so the event loops share no counter's cache line per
  // request; the counter values, and so the ids, stay distinct.
  static std::atomic<std::uint64_t> threads{0};
  thread_local std::uint64_t next = threads.fetch_add(1, std::memory_order_relaxed) << 40;
  std::uint64_t value = mix(seed + next++);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) id[static_cast<std::size_t>(i)] = kDigits[value & 0xf];
  return id;
}

}  // namespace authd::http
