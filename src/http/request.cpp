#include "http/request.hpp"

namespace authd::http {

std::string route_path(std::string_view script_name, std::string_view path_info) {
  std::string path(script_name);
  path += path_info;
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace authd::http
