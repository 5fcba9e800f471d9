// A CBOR (RFC 8949) value tree, decoded and encoded by libcbor
// (lib/mfa/cbor_reader.cpp is the only file that includes it). Enough for
// WebAuthn: unsigned/negative integers, byte and text strings, arrays, maps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "authd/error.hpp"

namespace authd::cbor {

struct Value {
  enum class Type { integer, bytes, text, array, map, other };
  Type type = Type::other;
  std::int64_t integer = 0;   // integer (negative ones included, within int64)
  std::string data;           // bytes or text
  std::vector<Value> items;   // array
  std::vector<std::pair<Value, Value>> entries;  // map, in encoded order

  // Declared here, defaulted in cbor_reader.cpp: a recursive type whose
  // members hold pair<Value, Value> must not have them defined while Value is
  // incomplete (clang with libstdc++ refuses what g++ lets through).
  Value();
  ~Value();
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;

  static Value of_int(std::int64_t v) { Value x; x.type = Type::integer; x.integer = v; return x; }
  static Value of_bytes(std::string_view v) { Value x; x.type = Type::bytes; x.data = v; return x; }
  static Value of_text(std::string_view v) { Value x; x.type = Type::text; x.data = v; return x; }
  static Value of_map(std::vector<std::pair<Value, Value>> v) { Value x; x.type = Type::map; x.entries = std::move(v); return x; }

  // Map lookups by text or integer key; nullptr when absent or not a map.
  const Value* find(std::string_view key) const;
  const Value* find(std::int64_t key) const;
};

// Decodes the first CBOR item of `input`; `consumed` receives its length.
// Error: invalid_input on malformed CBOR (or nesting deeper than 16).
Result<Value> decode(std::string_view input, std::size_t* consumed = nullptr);

// Canonical-enough encoding of `value` (definite lengths); "other" values
// encode as null. authd only decodes: the unit tests and the fuzzer build
// their WebAuthn inputs with it.
std::string encode(const Value& value);

}  // namespace authd::cbor
