#include "authd/username_index.hpp"

#include <vector>

namespace authd::username_index {
namespace {

constexpr std::string_view kNamespace = "username";
// Not a possible username ('#' is not allowed): marks a store whose index is built.
constexpr std::string_view kBuiltMarker = "#built";
constexpr std::size_t kBuildPage = 1000;

}  // namespace

std::string canonical(std::string_view username) {
  std::string out(username);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

Result<void> insert_user(StoreTxn& txn, const User& user) {
  const auto key = canonical(user.username);
  auto holder = txn.get_entry(kNamespace, key);
  if (!holder) return std::unexpected(holder.error());
  if (*holder && **holder != user.username) return fail(Errc::conflict, "username already exists");
  if (auto inserted = txn.insert_user(user); !inserted) return inserted;
  return txn.put_entry(kNamespace, key, user.username, 0);
}

Result<void> delete_user(StoreTxn& txn, std::string_view username) {
  if (auto deleted = txn.delete_user(username); !deleted) return deleted;
  const auto key = canonical(username);
  auto holder = txn.get_entry(kNamespace, key);
  if (!holder) return std::unexpected(holder.error());
  if (*holder && **holder == username) return txn.delete_entry(kNamespace, key);
  return {};
}

Result<User> find_user(StoreTxn& txn, std::string_view name) {
  auto exact = txn.find_user(name);
  if (exact || exact.error().code != Errc::not_found) return exact;
  auto holder = txn.get_entry(kNamespace, canonical(name));
  if (!holder) return std::unexpected(holder.error());
  if (!*holder || **holder == name) return exact;
  return txn.find_user(**holder);
}

Result<User> find_user(Store& store, std::string_view name) {
  auto exact = store.find_user(name);
  if (exact || exact.error().code != Errc::not_found) return exact;
  Result<User> found = exact;
  auto read = store.read([&](StoreTxn& txn) -> Result<void> {
    found = find_user(txn, name);
    return {};
  });
  if (!read) return std::unexpected(read.error());
  return found;
}

Result<void> build_if_missing(Store& store) {
  bool built = false;
  auto checked = store.read([&](StoreTxn& txn) -> Result<void> {
    auto marker = txn.get_entry(kNamespace, kBuiltMarker);
    if (!marker) return std::unexpected(marker.error());
    built = marker->has_value();
    return {};
  });
  if (!checked) return checked;
  if (built) return {};
  // A page of users per write transaction, each page after the last name of
  // the one before (a page costs itself, whatever the store's size).
  std::string after;
  for (;;) {
    bool last = false;
    std::string page_end;  // `after` moves on only once the page committed: a retried write sees the same page
    auto page = store.write([&](StoreTxn& txn) -> Result<void> {
      auto names = txn.list_usernames(after, kBuildPage);
      if (!names) return std::unexpected(names.error());
      for (const auto& name : *names) {
        // Two stored names with one canonical form (possible before the
        // index): the first in username order keeps it; both still sign in
        // by their exact names.
        const auto key = canonical(name);
        auto holder = txn.get_entry(kNamespace, key);
        if (!holder) return std::unexpected(holder.error());
        if (!*holder) {
          if (auto put = txn.put_entry(kNamespace, key, name, 0); !put) return put;
        }
      }
      last = names->size() < kBuildPage;
      if (last) return txn.put_entry(kNamespace, kBuiltMarker, "1", 0);
      page_end = names->back();  // a full page: not empty
      return {};
    });
    if (!page) return page;
    if (last) return {};
    after = std::move(page_end);
  }
}

}  // namespace authd::username_index
