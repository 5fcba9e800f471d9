#include "user_row.hpp"

#include "authd/roles.hpp"

namespace authd::pg {

std::string encode_text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::optional<std::vector<std::string>> decode_text_array(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::vector<std::string> items;
  if (text.empty()) return items;
  std::size_t i = 0;
  for (;;) {
    std::string item;
    if (i < text.size() && text[i] == '"') {  // quoted: backslash escapes
      ++i;
      for (;; ++i) {
        if (i >= text.size()) return std::nullopt;
        if (text[i] == '\\') {
          if (++i >= text.size()) return std::nullopt;
          item += text[i];
        } else if (text[i] == '"') {
          ++i;
          break;
        } else {
          item += text[i];
        }
      }
    } else {  // unquoted: up to the next comma (NULL is never stored)
      const auto end = text.find(',', i);
      item = std::string(text.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
      if (item == "NULL" || item.empty()) return std::nullopt;
      i = end == std::string_view::npos ? text.size() : end;
    }
    items.push_back(std::move(item));
    if (i == text.size()) return items;
    if (text[i] != ',') return std::nullopt;
    ++i;
  }
}

std::optional<User> decode_user(const PGresult* result, int row) {
  User user;
  user.username = field(result, row, 0);
  user.id = field(result, row, 1);
  user.password_hash = field(result, row, 2);
  user.fullname = field(result, row, 3);
  user.email = field(result, row, 4);
  const auto role = parse_role(field(result, row, 5));
  if (!role) return std::nullopt;
  user.role = *role;
  user.version = field_int(result, row, 6);
  user.created_at = field_int(result, row, 7);
  user.updated_at = field_int(result, row, 8);
  auto links = decode_text_array(field(result, row, 9));
  if (!links) return std::nullopt;
  user.links = std::move(*links);
  user.token_generation = field_int(result, row, 10);
  user.last_revocation = field_int(result, row, 11);
  user.email_verified = field(result, row, 12) == "t";
  return user;
}

std::vector<Param> user_params(const User& user, std::string& links_literal) {
  links_literal = encode_text_array(user.links);
  return {Param::text(user.username), Param::text(user.id),          Param::text(user.password_hash),
          Param::text(user.fullname), Param::text(user.email),       Param::text(to_string(user.role)),
          Param::int8(user.version),  Param::int8(user.created_at), Param::int8(user.updated_at),
          Param::text(links_literal), Param::int8(user.token_generation), Param::int8(user.last_revocation),
          Param::int8(user.email_verified ? 1 : 0)};
}

}  // namespace authd::pg
