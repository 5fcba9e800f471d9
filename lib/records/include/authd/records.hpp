// The demo resource of the guard: JSON objects keyed by _id, each carrying
// `_id`, `__v` and `owner`, which the service sets and a client cannot.
#pragma once

#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/json.hpp"
#include "authd/store.hpp"

namespace authd {

class Records {
 public:
  explicit Records(Store& store) : store_(store) {}

  // `fields` must be a JSON object. Errors: invalid_input, storage_full.
  Result<Json> create(std::string_view owner, const Json& fields);
  // As stored JSON text (no parse, no re-encode). Error: not_found.
  Result<std::string> find_text(std::string_view id) const;
  // Every record as a JSON array text.
  Result<std::string> list_text() const;
  // Replaces the client fields, keeps _id/owner, bumps __v. Errors:
  // invalid_input, not_found.
  Result<Json> replace(std::string_view id, const Json& fields);
  Result<void> remove(std::string_view id);  // not_found, storage_full

 private:
  Store& store_;
};

}  // namespace authd
