#include <array>

#include "store/lmdb_txn.hpp"

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

Result<Json> find_in(const Txn& txn, MDB_dbi dbi, std::string_view id) {
  auto bytes = txn.get(dbi, id);
  if (!bytes) {
    if (bytes.error().code == Errc::not_found) return fail(Errc::not_found, "no such record");
    return std::unexpected(bytes.error());
  }
  return parse_record(*bytes);
}

}  // namespace

Result<Json> RecordStore::create(std::string_view owner, const Json& fields) {
  if (!fields.is_object()) return fail(Errc::invalid_input, "a record must be a JSON object");
  Json record = compose(new_object_id(), 0, owner, fields);
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  const auto id = std::string(record.get_string("_id").value_or(""));
  if (auto ok = txn->put(db_.impl().records, id, record.dump(), MDB_NOOVERWRITE); !ok) {
    return std::unexpected(ok.error());
  }
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return record;
}

Result<Json> RecordStore::find(std::string_view id) const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  return find_in(*txn, db_.impl().records, id);
}

Result<std::vector<Json>> RecordStore::list() const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  std::vector<Json> records;
  bool corrupt = false;
  auto scanned = txn->for_each(db_.impl().records, [&](std::string_view, std::string_view value) {
    if (auto record = parse_record(value)) records.push_back(std::move(*record));
    else corrupt = true;
  });
  if (!scanned) return std::unexpected(scanned.error());
  if (corrupt) return fail(Errc::internal, "corrupt record");
  return records;
}

Result<std::string> RecordStore::find_text(std::string_view id) const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  auto bytes = txn->get(db_.impl().records, id);
  if (!bytes) {
    if (bytes.error().code == Errc::not_found) return fail(Errc::not_found, "no such record");
    return std::unexpected(bytes.error());
  }
  return std::string(*bytes);  // stored by create/replace as a compact JSON object
}

Result<std::string> RecordStore::list_text() const {
  auto txn = Txn::begin(db_.impl().env, false);
  if (!txn) return std::unexpected(txn.error());
  std::string text = "[";
  auto scanned = txn->for_each(db_.impl().records, [&](std::string_view, std::string_view value) {
    if (text.size() > 1) text += ',';
    text += value;
  });
  if (!scanned) return std::unexpected(scanned.error());
  text += ']';
  return text;
}

Result<Json> RecordStore::replace(std::string_view id, const Json& fields) {
  if (!fields.is_object()) return fail(Errc::invalid_input, "a record must be a JSON object");
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  auto current = find_in(*txn, db_.impl().records, id);
  if (!current) return std::unexpected(current.error());
  Json record = compose(id, current->get_integer("__v").value_or(0) + 1,
                        current->get_string("owner").value_or(""), fields);
  if (auto ok = txn->put(db_.impl().records, id, record.dump()); !ok) return std::unexpected(ok.error());
  if (auto ok = txn->commit(); !ok) return std::unexpected(ok.error());
  return record;
}

Result<void> RecordStore::remove(std::string_view id) {
  auto txn = Txn::begin(db_.impl().env, true);
  if (!txn) return std::unexpected(txn.error());
  if (auto ok = txn->del(db_.impl().records, id); !ok) {
    if (ok.error().code == Errc::not_found) return fail(Errc::not_found, "no such record");
    return ok;
  }
  return txn->commit();
}

}  // namespace authd
