#include "serving/reload_gate.hpp"

namespace authd {

ReloadGate::ReloadGate() {
  for (auto& slot : slots_) slot.gate = this;
}

ReloadGate::Slot& ReloadGate::own_slot() {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t index = next.fetch_add(1, std::memory_order_relaxed) % kSlots;
  return slots_[index];
}

long ReloadGate::holders() const {
  long sum = 0;
  for (const auto& slot : slots_) sum += slot.holders.load();
  return sum;
}

void ReloadGate::leave(void* opaque) {
  auto& slot = *static_cast<Slot*>(opaque);
  ReloadGate& gate = *slot.gate;
  slot.holders.fetch_sub(1);
  if (gate.closed_.load()) {
    // Under the mutex: the closer checks the counters and waits with it held,
    // so this cannot fall between its check and its wait.
    std::lock_guard lock(gate.mutex_);
    gate.changed_.notify_all();
  }
}

Hold ReloadGate::enter() {
  Slot& slot = own_slot();
  for (;;) {
    slot.holders.fetch_add(1);
    if (!closed_.load()) return Hold(&ReloadGate::leave, &slot);
    leave(&slot);  // closing: step back and wait for it to open
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !closed_.load(); });
  }
}

void ReloadGate::close() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !closed_.load(); });
  closed_.store(true);
  changed_.wait(lock, [this] { return holders() == 0; });
}

void ReloadGate::open() {
  {
    std::lock_guard lock(mutex_);
    closed_.store(false);
  }
  changed_.notify_all();
}

}  // namespace authd
