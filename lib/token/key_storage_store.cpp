// The key ring in the Store's entries, shared by every node of one database
// (store = postgresql): namespace "<prefix>_keys" holds kid -> PKCS#8 PEM,
// namespace "<prefix>_key_ring" the entry "current" = "<generation> <kid>"
// (prefix "signing": the token keys; "id_token_signing": the ID-token keys).
// Every change (a key added, retired, made current) happens in one write
// transaction that also counts the generation up, so that the entry
// "current" alone is the stamp a reader compares: one small read.
#include <charconv>

#include "authd/key_storage.hpp"
#include "authd/store.hpp"

namespace authd {
namespace {

struct Names {
  std::string keys, ring;
};
constexpr std::string_view kCurrent = "current";

struct RingState {
  std::uint64_t generation = 0;
  std::string current;  // "" when none
};

RingState parse_state(const std::optional<std::string>& text) {
  RingState state;
  if (!text) return state;
  const auto space = text->find(' ');
  if (space == std::string::npos) return state;
  std::from_chars(text->data(), text->data() + space, state.generation);
  state.current = text->substr(space + 1);
  if (!is_valid_kid(state.current)) state.current.clear();
  return state;
}

Result<RingState> read_state(StoreTxn& txn, const Names& names) {
  auto text = txn.get_entry(names.ring, kCurrent);
  if (!text) return std::unexpected(text.error());
  return parse_state(*text);
}

Result<void> write_state(StoreTxn& txn, const Names& names, const RingState& before, std::string_view current) {
  const auto value = std::to_string(before.generation + 1) + " " + std::string(current);
  return txn.put_entry(names.ring, kCurrent, value, 0);
}

Result<void> put_current(StoreTxn& txn, const Names& names, const RingState& before, std::string_view kid,
                         std::string_view pem) {
  if (auto put = txn.put_entry(names.keys, kid, pem, 0); !put) return put;
  return write_state(txn, names, before, kid);
}

class StoreKeyStorage final : public KeyStorage {
 public:
  StoreKeyStorage(Store& store, std::string_view prefix)
      : store_(store), names_{std::string(prefix) + "_keys", std::string(prefix) + "_key_ring"} {}

  std::string where() const override { return "the " + std::string(store_.name()) + " store"; }

  Result<std::string> stamp() override {
    return read_value(store_, [this](StoreTxn& txn) -> Result<std::string> {
      auto text = txn.get_entry(names_.ring, kCurrent);
      if (!text) return std::unexpected(text.error());
      return text->value_or("none");
    });
  }

  Result<Snapshot> load() override {
    return read_value(store_, [this](StoreTxn& txn) -> Result<Snapshot> {
      Snapshot snapshot;
      auto text = txn.get_entry(names_.ring, kCurrent);
      if (!text) return std::unexpected(text.error());
      snapshot.stamp = text->value_or("none");
      snapshot.current = parse_state(*text).current;
      auto keys = txn.list_entries(names_.keys);
      if (!keys) return std::unexpected(keys.error());
      for (auto& [kid, pem] : *keys) {
        if (is_valid_kid(kid)) snapshot.pems.emplace_back(std::move(kid), std::move(pem));
      }
      return snapshot;
    });
  }

  Result<void> add_current(std::string_view kid, std::string_view pem) override {
    if (!is_valid_kid(kid)) return fail(Errc::invalid_input, "not a key id: " + std::string(kid));
    return store_.write([&](StoreTxn& txn) -> Result<void> {
      auto state = read_state(txn, names_);
      if (!state) return std::unexpected(state.error());
      return put_current(txn, names_, *state, kid, pem);
    });
  }

  Result<bool> add_current_unless_usable(std::string_view kid, std::string_view pem, const Usable& usable) override {
    if (!is_valid_kid(kid)) return fail(Errc::invalid_input, "not a key id: " + std::string(kid));
    bool added = false;
    // The check and the write in one transaction: a node that starts at the
    // same moment either commits first (and this one, run again after the
    // serialization failure, finds its key) or finds this one's.
    auto written = store_.write([&](StoreTxn& txn) -> Result<void> {
      added = false;
      auto state = read_state(txn, names_);
      if (!state) return std::unexpected(state.error());
      if (!state->current.empty()) {
        auto existing = txn.get_entry(names_.keys, state->current);
        if (!existing) return std::unexpected(existing.error());
        const bool keep = *existing && usable(**existing);
        if (*existing) std::fill((*existing)->begin(), (*existing)->end(), '\0');
        if (keep) return {};
      }
      if (auto put = put_current(txn, names_, *state, kid, pem); !put) return put;
      added = true;
      return {};
    });
    if (!written) return std::unexpected(written.error());
    return added;
  }

  Result<std::vector<std::string>> retire(std::string_view kid) override {
    std::vector<std::string> retired;
    auto written = store_.write([&](StoreTxn& txn) -> Result<void> {
      retired.clear();
      auto state = read_state(txn, names_);
      if (!state) return std::unexpected(state.error());
      if (!kid.empty() && kid == state->current) {
        return fail(Errc::invalid_input, "the current key cannot be retired; rotate first");
      }
      auto keys = txn.list_entries(names_.keys);
      if (!keys) return std::unexpected(keys.error());
      for (auto& [this_kid, pem] : *keys) {
        std::fill(pem.begin(), pem.end(), '\0');
        if (this_kid == state->current || (!kid.empty() && this_kid != kid)) continue;
        if (auto deleted = txn.delete_entry(names_.keys, this_kid); !deleted) return deleted;
        retired.push_back(this_kid);
      }
      if (!kid.empty() && retired.empty()) return fail(Errc::invalid_input, "no key " + std::string(kid));
      if (retired.empty()) return {};
      return write_state(txn, names_, *state, state->current);  // readers notice by the generation
    });
    if (!written) return std::unexpected(written.error());
    return retired;
  }

 private:
  Store& store_;
  Names names_;
};

}  // namespace

std::shared_ptr<KeyStorage> store_key_storage(Store& store, std::string_view prefix) {
  return std::make_shared<StoreKeyStorage>(store, prefix);
}

}  // namespace authd
