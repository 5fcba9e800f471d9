// A gate every request passes and a reload closes (ReloadableApp): closing
// waits for the holds given out to be dropped, and while it is closed new
// entries wait at it.
//
// Entering is on every request's path, on every loop at once: it takes no
// lock and allocates nothing. Each thread counts its holds in a counter on a
// cache line of its own (one of kSlots, shared round-robin when there are more
// threads); closing raises `closed_` and waits for every counter to be zero.
// Both sides write their own flag first and then read the other's
// (sequentially consistent), so either the entry sees the gate closing and
// steps back, or the closer sees the entry's hold and waits for it.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "serving/lane.hpp"

namespace authd {

class ReloadGate {
 public:
  ReloadGate();
  ReloadGate(const ReloadGate&) = delete;
  ReloadGate& operator=(const ReloadGate&) = delete;

  // Passes the gate, waiting while it is closed; the hold keeps it from
  // closing until dropped (on any thread).
  Hold enter();
  // Closes the gate (after any other close has opened it again) and waits
  // for every hold to be dropped.
  void close();
  // Opens it again: the entries waiting at it pass.
  void open();

 private:
  static constexpr std::size_t kSlots = 16;
  struct alignas(64) Slot {
    std::atomic<long> holders{0};
    ReloadGate* gate = nullptr;
  };
  static void leave(void* slot);
  Slot& own_slot();
  long holders() const;

  std::array<Slot, kSlots> slots_;
  std::atomic<bool> closed_{false};
  std::mutex mutex_;  // the closer's wait for the holds, the entries' wait at a closed gate
  std::condition_variable changed_;
};

}  // namespace authd
