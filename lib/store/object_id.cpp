#include <atomic>
#include <array>
#include <cstdint>

#include "authd/clock.hpp"
#include "authd/crypto.hpp"
#include "authd/store.hpp"

namespace authd {
namespace {

struct ProcessUnique {
  std::array<unsigned char, 5> random{};
  std::atomic<std::uint32_t> counter{0};
  ProcessUnique() {
    std::array<unsigned char, 8> seed{};
    (void)crypto::random_bytes(seed);
    for (std::size_t i = 0; i < random.size(); ++i) random[i] = seed[i];
    counter = static_cast<std::uint32_t>(seed[5] | (seed[6] << 8) | (seed[7] << 16));
  }
};

}  // namespace

std::string new_object_id() {
  static ProcessUnique unique;
  const auto seconds = static_cast<std::uint32_t>(unix_now());
  const std::uint32_t count = unique.counter.fetch_add(1, std::memory_order_relaxed);
  std::array<unsigned char, 12> id{};
  for (int i = 0; i < 4; ++i) id[static_cast<std::size_t>(i)] = static_cast<unsigned char>(seconds >> (24 - 8 * i));
  for (std::size_t i = 0; i < 5; ++i) id[4 + i] = unique.random[i];
  for (int i = 0; i < 3; ++i) id[static_cast<std::size_t>(9 + i)] = static_cast<unsigned char>(count >> (16 - 8 * i));
  return crypto::to_hex(id);
}

}  // namespace authd
