// A request's FastCGI parameters: the encoded FCGI_PARAMS stream and views
// of its name-value pairs into it (decoding copies no name or value: a
// request carries some thirty, one of them a bearer token).
//
// A block is filled once (append_encoded, then decode) and then only read,
// shared by the request and whatever holds it (std::shared_ptr). Blocks are
// recycled per thread (acquire): one that nothing but the thread's pool
// holds any more is taken again with its buffers' capacity, so that a
// request's parameters cost no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fcgi/records.hpp"

namespace authd::fcgi {

class RequestParams {
 public:
  // An empty block of this thread's pool, or a new one when every pooled
  // block is still held elsewhere (a request at a worker, say).
  static std::shared_ptr<RequestParams> acquire();

  RequestParams() = default;
  // The views point into the block itself: it stays where it was made.
  RequestParams(const RequestParams&) = delete;
  RequestParams& operator=(const RequestParams&) = delete;

  // More of the encoded stream, before decode().
  void append_encoded(std::string_view bytes) { encoded_.append(bytes); }
  std::size_t encoded_size() const noexcept { return encoded_.size(); }

  // Decodes the stream appended so far, at most max_pairs + 1 pairs of it,
  // after a first FCGI_ROLE=`role`. False when a length runs past the end.
  bool decode(std::string_view role, std::size_t max_pairs);
  // The same for a whole stream at once (clear, append_encoded, decode).
  bool decode(std::string_view encoded, std::string_view role, std::size_t max_pairs);

  // The value of the first parameter called `name`; nullopt when none is.
  // Inline: a request looks up a dozen names, most of them not sent.
  std::optional<std::string_view> find(std::string_view name) const noexcept {
    if (!indexed_) {
      for (const auto& [key, value] : pairs_) {
        if (key == name) return value;
      }
      return std::nullopt;
    }
    // The table is never full: an empty slot ends every probe.
    for (std::size_t slot = slot_of(name); index_[slot] != 0; slot = (slot + 1) % kSlots) {
      const auto& [key, value] = pairs_[index_[slot] - 1];
      if (key == name) return value;
    }
    return std::nullopt;
  }

  std::size_t size() const noexcept { return pairs_.size(); }
  bool empty() const noexcept { return pairs_.empty(); }
  const ParamView& operator[](std::size_t i) const noexcept { return pairs_[i]; }
  auto begin() const noexcept { return pairs_.begin(); }
  auto end() const noexcept { return pairs_.end(); }
  // Empties the block; buffers of a usual request's size keep their capacity.
  void clear() noexcept;

 private:
  // The pairs' names in an open-addressing table (slot: pair index + 1; 0 is
  // empty), so that find() compares about one name instead of all thirty
  // (most lookups are of names a request does not carry, X-Forwarded-For and
  // the like). Beyond kIndexed pairs find() reads them all, as before.
  static constexpr std::size_t kSlots = 64;
  static constexpr std::size_t kIndexed = 48;  // the table at most 3/4 full
  // What a recycled block keeps of its buffers (nginx sends ~1 KiB, ~20 pairs).
  static constexpr std::size_t kKeptEncodedCapacity = 16384;
  static constexpr std::size_t kKeptPairsCapacity = 64;
  static std::size_t slot_of(std::string_view name) noexcept {
    if (name.empty()) return 0;
    const auto at = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(name[i])); };
    return (name.size() * 31 + at(name.size() / 2) * 7 + at(name.size() - 1)) % kSlots;
  }
  void build_index() noexcept;

  std::string encoded_;
  std::vector<ParamView> pairs_;
  std::array<std::uint8_t, kSlots> index_{};
  bool indexed_ = false;
};

}  // namespace authd::fcgi
