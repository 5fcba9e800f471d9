// The only file that talks to jansson. Reference rules (jansson docs):
// json_object_get/json_array_get return *borrowed* references, so accessors
// incref before wrapping; json_object_set_new/json_array_append_new *steal*
// the value's reference, so set()/append() release ownership to them.
#include "authd/json.hpp"

#include <jansson.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <memory>
#include <utility>

namespace authd {
namespace {

// Nesting depth of a JSON text, counted outside string literals, so that a
// deeply nested body is refused before jansson recurses into it.
std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[': case '{':
        if (++depth > deepest) deepest = depth;
        break;
      case ']': case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

json_t* borrowed(json_t* value) { return value ? json_incref(value) : nullptr; }

}  // namespace

Json::~Json() { json_decref(handle_); }

Json::Json(const Json& other) noexcept : handle_(borrowed(other.handle_)) {}

Json& Json::operator=(const Json& other) noexcept {
  if (this != &other) {
    json_t* copy = borrowed(other.handle_);
    json_decref(handle_);
    handle_ = copy;
  }
  return *this;
}

Json::Json(Json&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Json& Json::operator=(Json&& other) noexcept {
  if (this != &other) {
    json_decref(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

namespace {

// jansson's message without its " near '<input text>'" tail: the input may be
// a password, and this message reaches logs and clients.
std::string parser_reason(std::string_view text) {
  return std::string(text.substr(0, std::min(text.find(" near "), text.size())));
}

}  // namespace

Result<Json> Json::parse(std::string_view text, std::size_t max_depth) {
  if (nesting_depth(text) > max_depth) {
    return fail(Errc::invalid_input, "JSON nested deeper than " + std::to_string(max_depth) + " levels");
  }
  json_error_t error;
  json_t* value = json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &error);
  if (!value) {
    return fail(Errc::invalid_input, "invalid JSON at line " + std::to_string(error.line) + ", column " +
                                       std::to_string(error.column) + ": " + parser_reason(error.text));
  }
  return Json(value);
}

Json Json::object() { return Json(json_object()); }
Json Json::array() { return Json(json_array()); }
Json Json::string(std::string_view value) { return Json(json_stringn(value.data(), value.size())); }
Json Json::integer(std::int64_t value) { return Json(json_integer(static_cast<json_int_t>(value))); }
Json Json::boolean(bool value) { return Json(json_boolean(value)); }
Json Json::null() { return Json(json_null()); }

bool Json::is_null() const noexcept { return handle_ == nullptr || json_is_null(handle_); }
bool Json::is_object() const noexcept { return handle_ && json_is_object(handle_); }
bool Json::is_array() const noexcept { return handle_ && json_is_array(handle_); }
bool Json::is_string() const noexcept { return handle_ && json_is_string(handle_); }
bool Json::is_integer() const noexcept { return handle_ && json_is_integer(handle_); }
bool Json::is_true() const noexcept { return handle_ && json_is_true(handle_); }

bool Json::has(std::string_view key) const noexcept {
  return is_object() && json_object_getn(handle_, key.data(), key.size()) != nullptr;
}

Json Json::get(std::string_view key) const {
  if (!is_object()) return Json();
  return Json(borrowed(json_object_getn(handle_, key.data(), key.size())));
}

std::optional<std::string_view> Json::get_string(std::string_view key) const noexcept {
  if (!is_object()) return std::nullopt;
  json_t* value = json_object_getn(handle_, key.data(), key.size());
  if (!value || !json_is_string(value)) return std::nullopt;
  return std::string_view(json_string_value(value), json_string_length(value));
}

std::optional<std::int64_t> Json::get_integer(std::string_view key) const noexcept {
  if (!is_object()) return std::nullopt;
  json_t* value = json_object_getn(handle_, key.data(), key.size());
  if (!value || !json_is_integer(value)) return std::nullopt;
  return static_cast<std::int64_t>(json_integer_value(value));
}

std::vector<std::string> Json::keys() const {
  std::vector<std::string> result;
  if (!is_object()) return result;
  const char* key;
  std::size_t key_len;
  json_t* value;
  json_object_keylen_foreach(handle_, key, key_len, value) {
    (void)value;
    result.emplace_back(key, key_len);
  }
  return result;
}

Json& Json::set(std::string_view key, Json value) {
  if (is_object() && value.handle_) {
    json_object_setn_new(handle_, key.data(), key.size(), std::exchange(value.handle_, nullptr));
  }
  return *this;
}

Json& Json::erase(std::string_view key) {
  if (is_object()) json_object_deln(handle_, key.data(), key.size());
  return *this;
}

std::size_t Json::size() const noexcept {
  if (is_array()) return json_array_size(handle_);
  if (is_object()) return json_object_size(handle_);
  return 0;
}

Json Json::at(std::size_t index) const {
  if (!is_array()) return Json();
  return Json(borrowed(json_array_get(handle_, index)));
}

Json& Json::append(Json value) {
  if (is_array() && value.handle_) json_array_append_new(handle_, std::exchange(value.handle_, nullptr));
  return *this;
}

std::optional<std::string_view> Json::as_string() const noexcept {
  if (!is_string()) return std::nullopt;
  return std::string_view(json_string_value(handle_), json_string_length(handle_));
}

std::optional<std::int64_t> Json::as_integer() const noexcept {
  if (!is_integer()) return std::nullopt;
  return static_cast<std::int64_t>(json_integer_value(handle_));
}

Json Json::deep_copy() const { return handle_ ? Json(json_deep_copy(handle_)) : Json(); }

std::string Json::dump() const {
  if (!handle_) return "null";
  std::unique_ptr<char, decltype(&std::free)> text(
      json_dumps(handle_, JSON_COMPACT | JSON_ENCODE_ANY), &std::free);
  return text ? std::string(text.get()) : std::string("null");
}

}  // namespace authd
