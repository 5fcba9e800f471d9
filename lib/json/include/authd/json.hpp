// A small owning wrapper over jansson. Only lib/json/ includes <jansson.h>.
//
// Ownership is explicit: a Json owns exactly one reference. Accessors that
// return Json return a *new* reference (the wrapper increfs), so a child
// outlives its parent safely. set()/append() take their argument by value and
// hand that reference to the container.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/error.hpp"

struct json_t;

namespace authd {

class Json {
 public:
  Json() noexcept = default;  // null handle (is_null() is true)
  ~Json();
  Json(const Json& other) noexcept;             // shares the reference (incref)
  Json& operator=(const Json& other) noexcept;
  Json(Json&& other) noexcept;
  Json& operator=(Json&& other) noexcept;

  // Parses one JSON text. Rejects duplicate object members, nesting deeper
  // than max_depth and trailing garbage. Error: bad_request with a message
  // giving line/column ("invalid JSON at line 1, column 5: ...").
  static Result<Json> parse(std::string_view text, std::size_t max_depth = 32);

  static Json object();
  static Json array();
  static Json string(std::string_view value);
  static Json integer(std::int64_t value);
  static Json boolean(bool value);
  static Json null();

  bool is_null() const noexcept;   // also true for an empty handle
  bool is_object() const noexcept;
  bool is_array() const noexcept;
  bool is_string() const noexcept;
  bool is_true() const noexcept;   // the JSON literal true
  bool is_integer() const noexcept;

  // Object access. get() returns an empty Json when absent or not an object.
  bool has(std::string_view key) const noexcept;
  Json get(std::string_view key) const;
  std::optional<std::string_view> get_string(std::string_view key) const noexcept;
  std::optional<std::int64_t> get_integer(std::string_view key) const noexcept;
  std::vector<std::string> keys() const;  // in document order
  Json& set(std::string_view key, Json value);  // no-op unless this is an object
  Json& erase(std::string_view key);

  // Array access.
  std::size_t size() const noexcept;  // array length or object member count
  Json at(std::size_t index) const;
  Json& append(Json value);           // no-op unless this is an array

  // Scalar access (nullopt on type mismatch). The view lives as long as this Json.
  std::optional<std::string_view> as_string() const noexcept;
  std::optional<std::int64_t> as_integer() const noexcept;

  Json deep_copy() const;
  std::string dump() const;  // compact, members in insertion order, UTF-8 kept as is

 private:
  explicit Json(json_t* owned) noexcept : handle_(owned) {}
  json_t* handle_ = nullptr;
};

}  // namespace authd
