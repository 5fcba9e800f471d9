#include "authd/clock.hpp"

#include <chrono>

namespace authd {

std::int64_t unix_now() noexcept {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace authd
