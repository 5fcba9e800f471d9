// User administration for the admin role (the guard in api/access_policy.cpp checks the
// role, by bearer token or the `auth` cookie):
//   GET    /admin/users?role=&q=&page=&per_page=  -> {"users":[{username,role,_id}],"total":N}
//   GET    /admin/users/{username}                -> the user (never its hash)
//   PUT    /admin/users/{username} {"role":"..."} -> the user with its new role
//   DELETE /admin/users/{username}                -> {"username":...,"deleted":true}
//   POST   /admin/users/{username}/signout        -> 204: every token and pending mailed link of the user ends
// Changes go through UserAdmin, as authctl's do, and are audited.
#include <charconv>

#include "authd/text.hpp"
#include "authd/user_admin.hpp"
#include "api/admin/routes.hpp"
#include "api/audit_request.hpp"
#include "api/json_body.hpp"
#include "http/query.hpp"

namespace authd::handlers {
namespace {

constexpr std::size_t kDefaultPerPage = 20;
constexpr std::size_t kMaxPerPage = 500;

Json summary(const User& user) {
  Json shown = Json::object();
  shown.set("username", Json::string(user.username))
      .set("role", Json::string(to_string(user.role)))
      .set("_id", Json::string(user.id))
      .set("source", Json::string(is_directory_user(user) ? "directory" : "local"));
  return shown;
}

Json detail(const User& user) {
  Json shown = summary(user);
  Json links = Json::array();
  for (const auto& link : user.links) links.append(Json::string(link));
  shown.set("__v", Json::integer(user.version))
      .set("fullname", Json::string(user.fullname))
      .set("email", Json::string(user.email))
      .set("email_verified", Json::boolean(user.email_verified))
      .set("has_password", Json::boolean(!user.password_hash.empty()))
      .set("links", std::move(links));
  return shown;
}

Result<std::size_t> positive(const std::map<std::string, std::string, std::less<>>& query, std::string_view name,
                             std::size_t fallback, std::size_t max) {
  const auto found = query.find(name);
  if (found == query.end() || found->second.empty()) return fallback;
  std::size_t value = 0;
  const auto& text = found->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > max) {
    return fail_field(std::string(name), std::string(name) + " must be a whole number from 1 to " + std::to_string(max));
  }
  return value;
}

// The {username} segment, percent-decoded (the admin page encodes '@' and '+').
Result<std::string> username_of(const RouteContext& context) {
  auto name = text::percent_decode(context.id);
  if (!name) return fail(Errc::not_found, "no such user");
  return std::move(*name);
}

Actor actor_of(const http::Request& request, const RouteContext& context) {
  return Actor{context.principal->user().username, request.remote_addr, request.request_id};
}

}  // namespace

HandlerResult admin_list_users(App& app, const http::Request& request, const RouteContext&) {
  const auto query = http::parse_query(request.query);
  UserQuery filter;
  if (const auto role = query.find("role"); role != query.end() && !role->second.empty()) {
    filter.role = parse_role(role->second);
    if (!filter.role) return fail_field("role", "role must be one of admin, editor, writer, user");
  }
  if (const auto q = query.find("q"); q != query.end()) filter.contains = q->second;
  auto page = positive(query, "page", 1, 1u << 30);
  if (!page) return std::unexpected(page.error());
  auto per_page = positive(query, "per_page", kDefaultPerPage, kMaxPerPage);
  if (!per_page) return std::unexpected(per_page.error());
  filter.offset = (*page - 1) * *per_page;
  filter.limit = *per_page;
  auto found = app.core->accounts().list(filter);
  if (!found) return std::unexpected(found.error());
  Json users = Json::array();
  for (const auto& user : found->users) users.append(summary(user));
  Json body = Json::object();
  body.set("users", std::move(users))
      .set("total", Json::integer(static_cast<std::int64_t>(found->total)))
      .set("page", Json::integer(static_cast<std::int64_t>(*page)))
      .set("per_page", Json::integer(static_cast<std::int64_t>(*per_page)));
  auto response = http::Response::json(200, body);
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult admin_get_user(App& app, const http::Request&, const RouteContext& context) {
  auto username = username_of(context);
  if (!username) return std::unexpected(username.error());
  auto user = app.core->accounts().find(*username);
  if (!user) return std::unexpected(user.error());
  auto response = http::Response::json(200, detail(*user));
  response.header("Cache-Control", "no-store");
  return response;
}

HandlerResult admin_set_role(App& app, const http::Request& request, const RouteContext& context) {
  auto username = username_of(context);
  if (!username) return std::unexpected(username.error());
  auto body = parse_json_body(app, request);
  if (!body) return std::unexpected(body.error());
  const auto name = body->is_object() ? body->get_string("role") : std::nullopt;
  if (!name) return fail_field("role", "role is required: one of admin, editor, writer, user");
  const auto role = parse_role(*name);
  if (!role) return fail_field("role", "role must be one of admin, editor, writer, user");
  UserAdmin& admin = app.core->user_admin();
  auto user = admin.set_role(actor_of(request, context), *username, *role);
  if (!user) return std::unexpected(user.error());
  return http::Response::json(200, detail(*user));
}

HandlerResult admin_delete_user(App& app, const http::Request& request, const RouteContext& context) {
  auto username = username_of(context);
  if (!username) return std::unexpected(username.error());
  UserAdmin& admin = app.core->user_admin();
  if (auto removed = admin.remove(actor_of(request, context), *username); !removed) {
    return std::unexpected(removed.error());
  }
  Json body = Json::object();
  body.set("username", Json::string(*username)).set("deleted", Json::boolean(true));
  return http::Response::json(200, body);
}

HandlerResult admin_sign_out_user(App& app, const http::Request& request, const RouteContext& context) {
  auto username = username_of(context);
  if (!username) return std::unexpected(username.error());
  UserAdmin& admin = app.core->user_admin();
  if (auto ended = admin.sign_out(actor_of(request, context), *username); !ended) {
    return std::unexpected(ended.error());
  }
  http::Response response;
  response.status = 204;
  response.header("Cache-Control", "no-store");
  return response;
}

}  // namespace authd::handlers
