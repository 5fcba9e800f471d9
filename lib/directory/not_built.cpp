// A build without libldap (AUTHD_WITH_LDAP=OFF, make dist): directory_urls
// stops the start (finish_directory_settings), so these are never reached.
#include "authd/directory.hpp"

namespace authd {
namespace {
std::unexpected<Error> not_built() {
  return fail(Errc::not_configured, "this authd was built without directory users (AUTHD_WITH_LDAP=OFF)");
}
}  // namespace

Result<std::optional<DirectoryEntry>> DirectoryClient::find(std::string_view) const { return not_built(); }

Result<std::optional<DirectoryEntry>> DirectoryClient::authenticate(std::string_view, std::string_view, const BeforeBind&) const {
  return not_built();
}

Result<DirectoryEntry> DirectoryClient::change_password(std::string_view, std::string_view, std::string_view,
                                                        std::string_view) const {
  return not_built();
}

Result<std::vector<Result<std::optional<DirectoryEntry>>>> DirectoryClient::find_each(
    const std::vector<std::string>&) const {
  return not_built();
}

bool directory_built() noexcept { return false; }

}  // namespace authd
