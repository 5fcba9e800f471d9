// The key ring in a directory shared by the processes of one machine:
// <dir>/<kid>.pem (PKCS#8, 0600), <dir>/current (the kid that signs), the
// directory 0700. Readers notice a change by the directory's mtime. Writers
// take an flock on <dir>/.lock so that "make the first key unless there is
// one" is atomic between processes starting together.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>
#include <utility>

#include "authd/key_storage.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kCurrent = "current";
constexpr std::string_view kSuffix = ".pem";
constexpr std::string_view kLock = ".lock";

std::int64_t mtime_ns(const fs::path& directory) {
  struct stat info{};
  if (::stat(directory.c_str(), &info) != 0) return -1;
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
}

// The directory's mtime as a stamp; "" while it changed less than 2 s ago:
// a change within the file system's timestamp granularity keeps the same
// mtime, so such a directory is read again each time.
std::string mtime_stamp(const fs::path& directory) {
  const auto mtime = mtime_ns(directory);
  const auto now_ns = static_cast<std::int64_t>(::time(nullptr)) * 1'000'000'000;
  if (mtime < 0 || now_ns - mtime <= 2'000'000'000) return {};
  return std::to_string(mtime);
}

std::optional<std::string> read_small(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() > 65536) break;
  }
  ::close(fd);
  return out;
}

// Writes `data` to `file` through a 0600 temporary file and rename().
Result<void> write_private(const fs::path& file, std::string_view data) {
  const auto temp = file.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail(Errc::io, "cannot create " + temp + ": " + std::strerror(errno));
  bool ok = true;
  while (ok && !data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) data.remove_prefix(static_cast<std::size_t>(n));
  }
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(temp.c_str(), file.c_str()) != 0) {
    ::unlink(temp.c_str());
    return fail(Errc::io, "cannot write " + file.string());
  }
  return {};
}

Result<void> ensure_directory(const fs::path& directory) {
  std::error_code ec;
  if (fs::create_directories(directory, ec)) {
    fs::permissions(directory, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  if (ec) return fail(Errc::io, "cannot create " + directory.string() + ": " + ec.message());
  return {};
}

std::string current_kid(const fs::path& directory) {
  auto text = read_small(directory / kCurrent);
  if (!text) return {};
  while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  return is_valid_kid(*text) ? *text : std::string();
}

// An exclusive flock on <dir>/.lock for the writer's lifetime.
class DirectoryLock {
 public:
  static Result<DirectoryLock> take(const fs::path& directory) {
    if (auto ok = ensure_directory(directory); !ok) return std::unexpected(ok.error());
    const auto file = directory / kLock;
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return fail(Errc::io, "cannot open " + file.string() + ": " + std::strerror(errno));
    int locked;
    do locked = ::flock(fd, LOCK_EX);
    while (locked != 0 && errno == EINTR);
    if (locked != 0) {
      ::close(fd);
      return fail(Errc::io, "cannot lock " + file.string() + ": " + std::strerror(errno));
    }
    return DirectoryLock(fd);
  }
  DirectoryLock(DirectoryLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

class DirectoryKeyStorage final : public KeyStorage {
 public:
  explicit DirectoryKeyStorage(fs::path directory) : directory_(std::move(directory)) {}

  std::string where() const override { return directory_.string(); }

  Result<std::string> stamp() override { return mtime_stamp(directory_); }

  Result<Snapshot> load() override {
    Snapshot snapshot;
    snapshot.stamp = mtime_stamp(directory_);  // before reading: a later change is seen next time
    std::error_code ec;
    if (!fs::exists(directory_, ec)) return snapshot;  // no key yet
    for (const auto& item : fs::directory_iterator(directory_, ec)) {
      const auto name = item.path().filename().string();
      if (!name.ends_with(kSuffix)) continue;
      auto kid = name.substr(0, name.size() - kSuffix.size());
      if (!is_valid_kid(kid)) continue;
      auto pem = read_small(item.path());
      if (!pem) continue;  // retired meanwhile
      snapshot.pems.emplace_back(std::move(kid), std::move(*pem));
    }
    if (ec) return fail(Errc::io, "cannot read " + directory_.string() + ": " + ec.message());
    snapshot.current = current_kid(directory_);
    return snapshot;
  }

  Result<void> add_current(std::string_view kid, std::string_view pem) override {
    auto lock = DirectoryLock::take(directory_);
    if (!lock) return std::unexpected(lock.error());
    return write_key(kid, pem);
  }

  Result<bool> add_current_unless_usable(std::string_view kid, std::string_view pem, const Usable& usable) override {
    auto lock = DirectoryLock::take(directory_);
    if (!lock) return std::unexpected(lock.error());
    const auto current = current_kid(directory_);
    if (!current.empty()) {
      auto existing = read_small(directory_ / (current + std::string(kSuffix)));
      const bool keep = existing && usable(*existing);
      if (existing) std::fill(existing->begin(), existing->end(), '\0');
      if (keep) return false;
    }
    if (auto written = write_key(kid, pem); !written) return std::unexpected(written.error());
    return true;
  }

  Result<std::vector<std::string>> retire(std::string_view kid) override {
    auto lock = DirectoryLock::take(directory_);
    if (!lock) return std::unexpected(lock.error());
    const auto current = current_kid(directory_);
    if (!kid.empty() && kid == current) {
      return fail(Errc::invalid_input, "the current key cannot be retired; rotate first");
    }
    std::vector<std::string> retired;
    std::error_code ec;
    for (const auto& item : fs::directory_iterator(directory_, ec)) {
      const auto name = item.path().filename().string();
      if (!name.ends_with(kSuffix)) continue;
      const auto this_kid = name.substr(0, name.size() - kSuffix.size());
      if (this_kid == current || (!kid.empty() && this_kid != kid)) continue;
      if (::unlink(item.path().c_str()) == 0) retired.push_back(this_kid);
    }
    if (ec) return fail(Errc::io, "cannot read " + directory_.string() + ": " + ec.message());
    if (!kid.empty() && retired.empty()) return fail(Errc::invalid_input, "no key " + std::string(kid));
    return retired;
  }

 private:
  // The key file exists before `current` names it: readers never miss it.
  Result<void> write_key(std::string_view kid, std::string_view pem) {
    if (!is_valid_kid(kid)) return fail(Errc::invalid_input, "not a key id: " + std::string(kid));
    if (auto ok = write_private(directory_ / (std::string(kid) + std::string(kSuffix)), pem); !ok) return ok;
    return write_private(directory_ / kCurrent, std::string(kid) + "\n");
  }

  fs::path directory_;
};

}  // namespace

std::shared_ptr<KeyStorage> directory_key_storage(std::filesystem::path directory) {
  return std::make_shared<DirectoryKeyStorage>(std::move(directory));
}

}  // namespace authd
