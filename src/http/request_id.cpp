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
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t value = mix(seed + counter.fetch_add(1, std::memory_order_relaxed));
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string id(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) id[static_cast<std::size_t>(i)] = kDigits[value & 0xf];
  return id;
}

}  // namespace authd::http
