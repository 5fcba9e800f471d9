#include "fcgi/request_params.hpp"

#include <atomic>

namespace authd::fcgi {

std::shared_ptr<RequestParams> RequestParams::acquire() {
  // Enough for the requests of one event loop that are still held (at a
  // hashing worker, or being answered) while it parses the next one.
  constexpr std::size_t kPooled = 8;
  thread_local std::array<std::shared_ptr<RequestParams>, kPooled> pool;
  for (auto& block : pool) {
    if (!block) {
      block = std::make_shared<RequestParams>();
      return block;
    }
    // Only the pool holds it, so nobody can take a new hold on it. Its last
    // other holder (maybe another thread) let go with a release decrement:
    // the fence orders that holder's reads of the block before our writes.
    if (block.use_count() == 1) {
      std::atomic_thread_fence(std::memory_order_acquire);
      block->clear();
      return block;
    }
  }
  return std::make_shared<RequestParams>();
}

bool RequestParams::decode(std::string_view role, std::size_t max_pairs) {
  pairs_.clear();
  pairs_.reserve(40);  // nginx's fastcgi_params and a browser's headers: about 30
  pairs_.emplace_back("FCGI_ROLE", role);
  const bool whole = for_each_pair(encoded_, max_pairs, [this](std::string_view name, std::string_view value) {
    pairs_.emplace_back(name, value);
  });
  build_index();
  return whole;
}

bool RequestParams::decode(std::string_view encoded, std::string_view role, std::size_t max_pairs) {
  clear();
  append_encoded(encoded);
  return decode(role, max_pairs);
}

void RequestParams::build_index() noexcept {
  index_.fill(0);
  indexed_ = pairs_.size() <= kIndexed;
  if (!indexed_) return;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    // Linear probing: of two pairs with one name, the first sent is met first.
    std::size_t slot = slot_of(pairs_[i].first);
    while (index_[slot] != 0) slot = (slot + 1) % kSlots;
    index_[slot] = static_cast<std::uint8_t>(i + 1);
  }
}

void RequestParams::clear() noexcept {
  pairs_.clear();
  encoded_.clear();
  // A request with huge headers does not leave its buffers to every later one.
  if (encoded_.capacity() > kKeptEncodedCapacity) std::string().swap(encoded_);
  if (pairs_.capacity() > kKeptPairsCapacity) std::vector<ParamView>().swap(pairs_);
  index_.fill(0);
  indexed_ = false;
}

}  // namespace authd::fcgi
