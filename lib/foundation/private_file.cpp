#include "authd/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace authd {
namespace {

std::string errno_text() { return std::strerror(errno); }

void sync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: the file itself is already on disk
  ::close(fd);
}

}  // namespace

Result<PrivateFile> PrivateFile::create(const std::filesystem::path& target, mode_t mode) {
  const auto name = target.filename().string();
  if (name.empty() || name == "." || name == "..") return fail(Errc::invalid_input, "'" + target.string() + "' names no file");
  const auto directory = target.parent_path();
  std::string pattern = (directory.empty() ? std::string() : directory.string() + "/") + "." + name + ".XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkostemp opens with O_CREAT|O_EXCL and mode 0600: a planted name is never followed.
  const int fd = ::mkostemp(buffer.data(), O_CLOEXEC);
  if (fd < 0) return fail(Errc::io, "cannot create a file beside " + target.string() + ": " + errno_text());
  std::string temp(buffer.data());
  if (::fchmod(fd, mode) != 0) {
    const auto error = fail(Errc::io, "cannot set the mode of " + temp + ": " + errno_text());
    ::close(fd);
    ::unlink(temp.c_str());
    return error;
  }
  return PrivateFile(target, std::move(temp), fd);
}

PrivateFile::PrivateFile(PrivateFile&& other) noexcept
    : target_(std::move(other.target_)), temp_(std::exchange(other.temp_, {})), fd_(std::exchange(other.fd_, -1)) {}

PrivateFile::~PrivateFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Result<void> PrivateFile::write(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(errno == ENOSPC ? Errc::storage_full : Errc::io, "cannot write " + temp_ + ": " + errno_text());
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<void> PrivateFile::commit(Existing existing) {
  if (fd_ < 0 || temp_.empty()) return fail(Errc::io, "cannot write " + target_.string() + ": no file open");
  const bool synced = ::fsync(fd_) == 0;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) return fail(Errc::io, "cannot write " + target_.string() + ": " + errno_text());
  if (existing == Existing::refuse) {
    // link(2) never follows or replaces what is at the target: EEXIST for a link as for a file.
    if (::link(temp_.c_str(), target_.c_str()) != 0) {
      if (errno == EEXIST) return fail(Errc::conflict, target_.string() + " already exists");
      return fail(Errc::io, "cannot create " + target_.string() + ": " + errno_text());
    }
    ::unlink(temp_.c_str());
  } else if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    return fail(Errc::io, "cannot put " + target_.string() + " in place: " + errno_text());
  }
  temp_.clear();
  sync_directory(target_.parent_path());
  return {};
}

Result<void> write_private_file(const std::filesystem::path& target, std::string_view data, mode_t mode,
                                PrivateFile::Existing existing) {
  auto file = PrivateFile::create(target, mode);
  if (!file) return std::unexpected(file.error());
  if (auto ok = file->write(data); !ok) return ok;
  return file->commit(existing);
}

}  // namespace authd
