#include "authd/key_ring.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "authd/crypto.hpp"

namespace authd {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kCurrent = "current";
constexpr std::string_view kSuffix = ".pem";

bool valid_kid(std::string_view kid) {
  if (kid.empty() || kid.size() > 64) return false;
  for (unsigned char c : kid) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-')) return false;
  }
  return true;
}

std::int64_t mtime_ns(const fs::path& directory) {
  struct stat info{};
  if (::stat(directory.c_str(), &info) != 0) return -1;
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
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
  return valid_kid(*text) ? *text : std::string();
}

Result<KeyRing::Keys> load(const fs::path& directory, crypto::KeyAlgorithm algorithm) {
  KeyRing::Keys keys;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(directory, ec)) {
    const auto name = item.path().filename().string();
    if (!name.ends_with(kSuffix)) continue;
    const auto kid = name.substr(0, name.size() - kSuffix.size());
    if (!valid_kid(kid)) continue;
    auto pem = read_small(item.path());
    if (!pem) continue;  // retired meanwhile
    auto key = crypto::KeyPair::from_pem(*pem);
    crypto::wipe(pem->data(), pem->size());
    if (!key || key->algorithm() != algorithm) continue;  // the algorithm is pinned per key
    keys.by_kid.emplace(kid, std::move(*key));
  }
  if (ec) return fail(Errc::io, "cannot read " + directory.string() + ": " + ec.message());
  keys.current = current_kid(directory);
  return keys;
}

}  // namespace

Result<std::string> KeyRing::rotate(const fs::path& directory, crypto::KeyAlgorithm algorithm) {
  if (auto ok = ensure_directory(directory); !ok) return std::unexpected(ok.error());
  auto key = crypto::KeyPair::generate(algorithm);
  if (!key) return std::unexpected(key.error());
  // Sortable by creation: seconds, then randomness.
  std::ostringstream kid;
  kid << std::hex << ::time(nullptr) << '-' << crypto::random_hex(4);
  std::string pem = key->private_pem();
  auto written = write_private(directory / (kid.str() + std::string(kSuffix)), pem);
  crypto::wipe(pem.data(), pem.size());
  if (!written) return std::unexpected(written.error());
  // The key file exists before `current` names it: readers never miss it.
  if (auto ok = write_private(directory / kCurrent, kid.str() + "\n"); !ok) return std::unexpected(ok.error());
  return kid.str();
}

Result<std::vector<std::string>> KeyRing::retire(const fs::path& directory, std::string_view kid) {
  const auto current = current_kid(directory);
  if (!kid.empty() && kid == current) return fail(Errc::invalid_input, "the current key cannot be retired; rotate first");
  std::vector<std::string> retired;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(directory, ec)) {
    const auto name = item.path().filename().string();
    if (!name.ends_with(kSuffix)) continue;
    const auto this_kid = name.substr(0, name.size() - kSuffix.size());
    if (this_kid == current || (!kid.empty() && this_kid != kid)) continue;
    if (::unlink(item.path().c_str()) == 0) retired.push_back(this_kid);
  }
  if (ec) return fail(Errc::io, "cannot read " + directory.string() + ": " + ec.message());
  if (!kid.empty() && retired.empty()) return fail(Errc::invalid_input, "no key " + std::string(kid));
  return retired;
}

Result<std::shared_ptr<KeyRing>> KeyRing::open(fs::path directory, crypto::KeyAlgorithm algorithm) {
  if (auto ok = ensure_directory(directory); !ok) return std::unexpected(ok.error());
  auto ring = std::shared_ptr<KeyRing>(new KeyRing(std::move(directory), algorithm));
  if (auto ok = ring->reload_if_changed(true); !ok) return std::unexpected(ok.error());
  if (!ring->keys_->by_kid.contains(ring->keys_->current)) {
    // First start (or `current` names a key of another algorithm): a new key.
    if (auto kid = rotate(ring->directory_, algorithm); !kid) return std::unexpected(kid.error());
    if (auto ok = ring->reload_if_changed(true); !ok) return std::unexpected(ok.error());
    if (!ring->keys_->by_kid.contains(ring->keys_->current)) {
      return fail(Errc::config, "no usable signing key in " + ring->directory_.string());
    }
  }
  return ring;
}

Result<void> KeyRing::reload_if_changed(bool force) {
  const auto mtime = mtime_ns(directory_);
  std::lock_guard lock(mutex_);
  // A change within the file system's timestamp granularity keeps the same
  // mtime: a directory changed less than 2 s ago is read again each time.
  const auto now_ns = static_cast<std::int64_t>(::time(nullptr)) * 1'000'000'000;
  if (!force && keys_ && mtime == loaded_mtime_ns_ && now_ns - mtime > 2'000'000'000) return {};
  auto loaded = load(directory_, algorithm_);
  if (!loaded) return std::unexpected(loaded.error());
  if (keys_ && loaded->current == keys_->current && loaded->by_kid.size() == keys_->by_kid.size()) {
    bool same = true;
    for (const auto& [kid, key] : loaded->by_kid) same = same && keys_->by_kid.contains(kid);
    if (same) {
      loaded_mtime_ns_ = mtime;
      return {};
    }
  }
  if (loaded->by_kid.contains(loaded->current) || !keys_) {
    loaded->version = keys_ ? keys_->version + 1 : 1;
    keys_ = std::make_shared<const Keys>(std::move(*loaded));
    version_.store(keys_->version, std::memory_order_release);
  }
  loaded_mtime_ns_ = mtime;
  return {};
}

std::int64_t KeyRing::version(std::int64_t now) {
  if (last_check_.load(std::memory_order_relaxed) != now) {
    last_check_.store(now, std::memory_order_relaxed);
    (void)reload_if_changed(false);
  }
  return version_.load(std::memory_order_acquire);
}

std::shared_ptr<const KeyRing::Keys> KeyRing::keys(Check check, std::int64_t now) {
  const bool due = check == Check::always || last_check_.load(std::memory_order_relaxed) != now;
  if (due) {
    last_check_.store(now, std::memory_order_relaxed);
    (void)reload_if_changed(false);  // on an I/O error the keys loaded before stay in use
  }
  std::lock_guard lock(mutex_);
  return keys_;
}

}  // namespace authd
