#include <cbor.h>

#include <memory>
#include <optional>

#include "cbor.hpp"

namespace authd::cbor {

Value::Value() = default;
Value::~Value() = default;
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(const Value&) = default;
Value& Value::operator=(Value&&) noexcept = default;

namespace {

constexpr int kMaxDepth = 16;

// Walks the item at `pos` without building it: where it ends, or nullopt
// when it is malformed, indefinite-length, nested too deeply, or declares more
// elements or bytes than the input holds. libcbor allocates a declared
// length before reading it (a 9-byte map header could ask for gigabytes), so
// nothing reaches cbor_load that has not passed this scan.
std::optional<std::size_t> scan(std::string_view in, std::size_t pos, int depth) {
  if (depth > kMaxDepth || pos >= in.size()) return std::nullopt;
  const auto initial = static_cast<unsigned char>(in[pos++]);
  const unsigned major = initial >> 5, info = initial & 0x1f;
  std::uint64_t argument = info;
  if (info >= 24 && info <= 27) {
    const std::size_t bytes = std::size_t{1} << (info - 24);
    if (in.size() - pos < bytes) return std::nullopt;
    argument = 0;
    for (std::size_t i = 0; i < bytes; ++i) argument = (argument << 8) | static_cast<unsigned char>(in[pos++]);
  } else if (info > 27) {
    return std::nullopt;  // reserved, or indefinite length (not accepted)
  }
  const std::uint64_t left = in.size() - pos;
  switch (major) {
    case 2:
    case 3:
      if (argument > left) return std::nullopt;
      return pos + static_cast<std::size_t>(argument);
    case 4:
    case 5: {
      const std::uint64_t items = major == 5 ? argument * 2 : argument;
      if (argument > left || items > left) return std::nullopt;  // each item takes a byte at least
      for (std::uint64_t i = 0; i < items; ++i) {
        const auto next = scan(in, pos, depth + 1);
        if (!next) return std::nullopt;
        pos = *next;
      }
      return pos;
    }
    case 6: return scan(in, pos, depth + 1);  // a tag, then its item
    default: return pos;                      // integers, simple values, floats
  }
}

struct ItemRelease {
  void operator()(cbor_item_t* item) const noexcept { cbor_decref(&item); }
};
using ItemPtr = std::unique_ptr<cbor_item_t, ItemRelease>;

Result<Value> convert(cbor_item_t* item, int depth) {
  if (depth > kMaxDepth) return fail(Errc::invalid_input, "CBOR nested too deeply");
  Value out;
  switch (cbor_typeof(item)) {
    case CBOR_TYPE_UINT: {
      const auto v = cbor_get_int(item);
      if (v > static_cast<std::uint64_t>(INT64_MAX)) return fail(Errc::invalid_input, "CBOR integer out of range");
      out = Value::of_int(static_cast<std::int64_t>(v));
      break;
    }
    case CBOR_TYPE_NEGINT: {
      const auto v = cbor_get_int(item);  // the value is -1 - v
      if (v > static_cast<std::uint64_t>(INT64_MAX)) return fail(Errc::invalid_input, "CBOR integer out of range");
      out = Value::of_int(-1 - static_cast<std::int64_t>(v));
      break;
    }
    case CBOR_TYPE_BYTESTRING:
    case CBOR_TYPE_STRING: {
      const bool bytes = cbor_isa_bytestring(item);
      if (bytes ? !cbor_bytestring_is_definite(item) : !cbor_string_is_definite(item)) {
        return fail(Errc::invalid_input, "indefinite CBOR strings are not accepted");
      }
      const auto* handle = bytes ? cbor_bytestring_handle(item) : cbor_string_handle(item);
      const auto length = bytes ? cbor_bytestring_length(item) : cbor_string_length(item);
      const std::string_view view(reinterpret_cast<const char*>(handle), length);
      out = bytes ? Value::of_bytes(view) : Value::of_text(view);
      break;
    }
    case CBOR_TYPE_ARRAY: {
      out.type = Value::Type::array;
      const auto size = cbor_array_size(item);
      cbor_item_t** items = cbor_array_handle(item);
      for (std::size_t i = 0; i < size; ++i) {
        auto child = convert(items[i], depth + 1);
        if (!child) return child;
        out.items.push_back(std::move(*child));
      }
      break;
    }
    case CBOR_TYPE_MAP: {
      out.type = Value::Type::map;
      const auto size = cbor_map_size(item);
      cbor_pair* pairs = cbor_map_handle(item);
      for (std::size_t i = 0; i < size; ++i) {
        auto key = convert(pairs[i].key, depth + 1);
        if (!key) return key;
        auto value = convert(pairs[i].value, depth + 1);
        if (!value) return value;
        out.entries.emplace_back(std::move(*key), std::move(*value));
      }
      break;
    }
    default:
      out.type = Value::Type::other;
      break;
  }
  return out;
}

// An integer in its shortest form (RFC 8949 §4.2.1), as authenticators write them.
cbor_item_t* build_integer(std::int64_t value) {
  const bool negative = value < 0;
  const auto magnitude = negative ? static_cast<std::uint64_t>(-1 - value) : static_cast<std::uint64_t>(value);
  cbor_item_t* item = nullptr;
  if (magnitude <= 0xff) {
    item = cbor_new_int8();
    if (item) cbor_set_uint8(item, static_cast<std::uint8_t>(magnitude));
  } else if (magnitude <= 0xffff) {
    item = cbor_new_int16();
    if (item) cbor_set_uint16(item, static_cast<std::uint16_t>(magnitude));
  } else if (magnitude <= 0xffffffff) {
    item = cbor_new_int32();
    if (item) cbor_set_uint32(item, static_cast<std::uint32_t>(magnitude));
  } else {
    item = cbor_new_int64();
    if (item) cbor_set_uint64(item, magnitude);
  }
  if (item && negative) cbor_mark_negint(item);
  if (item && !negative) cbor_mark_uint(item);
  return item;
}

cbor_item_t* build(const Value& value) {
  switch (value.type) {
    case Value::Type::integer:
      return build_integer(value.integer);
    case Value::Type::bytes:
      return cbor_build_bytestring(reinterpret_cast<const unsigned char*>(value.data.data()), value.data.size());
    case Value::Type::text:
      return cbor_build_stringn(value.data.data(), value.data.size());
    case Value::Type::array: {
      cbor_item_t* array = cbor_new_definite_array(value.items.size());
      for (const auto& child : value.items) {
        ItemPtr built(build(child));
        (void)cbor_array_push(array, built.get());
      }
      return array;
    }
    case Value::Type::map: {
      cbor_item_t* map = cbor_new_definite_map(value.entries.size());
      for (const auto& [k, v] : value.entries) {
        ItemPtr key(build(k)), val(build(v));
        (void)cbor_map_add(map, cbor_pair{key.get(), val.get()});
      }
      return map;
    }
    case Value::Type::other: break;
  }
  return cbor_new_null();
}

}  // namespace

const Value* Value::find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.type == Type::text && k.data == key) return &v;
  }
  return nullptr;
}

const Value* Value::find(std::int64_t key) const {
  for (const auto& [k, v] : entries) {
    if (k.type == Type::integer && k.integer == key) return &v;
  }
  return nullptr;
}

Result<Value> decode(std::string_view input, std::size_t* consumed) {
  const auto end = scan(input, 0, 0);
  if (!end) return fail(Errc::invalid_input, "malformed CBOR");
  cbor_load_result result{};
  ItemPtr item(cbor_load(reinterpret_cast<const unsigned char*>(input.data()), *end, &result));
  if (!item || result.error.code != CBOR_ERR_NONE) return fail(Errc::invalid_input, "malformed CBOR");
  if (consumed) *consumed = result.read;
  return convert(item.get(), 0);
}

std::string encode(const Value& value) {
  ItemPtr item(build(value));
  unsigned char* buffer = nullptr;
  std::size_t size = 0;
  const std::size_t length = cbor_serialize_alloc(item.get(), &buffer, &size);
  std::string out(reinterpret_cast<const char*>(buffer), length);
  std::free(buffer);
  return out;
}

}  // namespace authd::cbor
