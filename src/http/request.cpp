#include "http/request.hpp"

#include <charconv>

namespace authd::http {

RoutePath route_path(std::string_view script_name, std::string_view path_info, std::string_view program_name) {
  RoutePath route;
  const auto slash = script_name.rfind('/');
  const bool names_program = !path_info.empty() && slash != std::string_view::npos && !program_name.empty() &&
                             script_name.substr(slash + 1) == program_name;
  if (names_program) {
    route.base_path = std::string(script_name.substr(0, slash));
    route.path = std::string(path_info);
  } else {
    route.path = std::string(script_name);
    route.path += path_info;
  }
  if (route.path.empty() || route.path.front() != '/') route.path.insert(route.path.begin(), '/');
  if (route.path.size() > 1 && route.path.back() == '/') route.path.pop_back();
  return route;
}

Request request_from_params(ParamLookup param, std::string_view program_name) {
  const ParamLookup find = param;  // `param` moves into the request
  return request_from_params(find, std::move(param), program_name);
}

Result<std::size_t> content_length(const Request& request, std::size_t max_body) {
  const auto text = request.param("CONTENT_LENGTH");
  std::size_t length = 0;
  if (!text.empty()) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), length);
    if (ec != std::errc() || end != text.data() + text.size()) return fail(Errc::invalid_input, "invalid Content-Length");
  }
  if (length > max_body) return fail(Errc::too_large, "body of " + std::to_string(length) + " bytes");
  return length;
}

}  // namespace authd::http
