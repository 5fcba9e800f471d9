#include "authd/records.hpp"

#include <array>

namespace authd {
namespace {

constexpr std::array<std::string_view, 3> kServiceFields{"_id", "__v", "owner"};

bool is_service_field(std::string_view key) {
  for (auto field : kServiceFields) {
    if (field == key) return true;
  }
  return false;
}

// Service fields first, then the client's fields (which cannot override them).
Json compose(std::string_view id, std::int64_t version, std::string_view owner, const Json& fields) {
  Json record = Json::object();
  record.set("_id", Json::string(id)).set("__v", Json::integer(version)).set("owner", Json::string(owner));
  for (const auto& key : fields.keys()) {
    if (!is_service_field(key)) record.set(key, fields.get(key).deep_copy());
  }
  return record;
}

Result<Json> parse_record(std::string_view bytes) {
  auto record = Json::parse(bytes, 64);
  if (!record || !record->is_object()) return fail(Errc::internal, "corrupt record");
  return record;
}

Result<void> require_object(const Json& fields) {
  if (!fields.is_object()) return fail(Errc::invalid_input, "a record must be a JSON object");
  return {};
}

}  // namespace

Result<Json> Records::create(std::string_view owner, const Json& fields) {
  if (auto ok = require_object(fields); !ok) return std::unexpected(ok.error());
  const std::string id = new_object_id();
  Json record = compose(id, 0, owner, fields);
  auto done = store_.write([&](StoreTxn& txn) { return txn.insert_record(id, record.dump()); });
  if (!done) return std::unexpected(done.error());
  return record;
}

Result<std::string> Records::find_text(std::string_view id) const {
  return store_.find_record(id);
}

Result<std::string> Records::list_text() const {
  return store_.list_records();
}

Result<Json> Records::replace(std::string_view id, const Json& fields) {
  if (auto ok = require_object(fields); !ok) return std::unexpected(ok.error());
  Json record;
  auto done = store_.write([&](StoreTxn& txn) -> Result<void> {
    auto text = txn.find_record(id);
    if (!text) return std::unexpected(text.error());
    auto current = parse_record(*text);
    if (!current) return std::unexpected(current.error());
    record = compose(id, current->get_integer("__v").value_or(0) + 1, current->get_string("owner").value_or(""),
                     fields);
    return txn.replace_record(id, record.dump());
  });
  if (!done) return std::unexpected(done.error());
  return record;
}

Result<void> Records::remove(std::string_view id) {
  return store_.write([&](StoreTxn& txn) { return txn.delete_record(id); });
}

}  // namespace authd
