#include "authd/signing_key.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "authd/crypto.hpp"
#include "authd/private_file.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxKeyFileBytes = 4096;

std::string errno_text() { return std::strerror(errno); }

// A file descriptor closed on every path.
class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_;
};

Result<SigningKey> read_key(const std::filesystem::path& file) {
  Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return fail(Errc::io, "cannot read signing key " + file.string() + ": " + errno_text());
  struct stat info{};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return fail(Errc::io, "signing key " + file.string() + " is not a regular file");
  }
  // A key others may read is a key others may have: refuse to start rather
  // than sign with it (chmod 600 it, or make a new one if it leaked).
  if ((info.st_mode & 077) != 0) {
    return fail(Errc::config, "signing key " + file.string() + " is readable or writable by group or others (mode " +
                                  std::to_string((info.st_mode >> 6) & 7) + std::to_string((info.st_mode >> 3) & 7) +
                                  std::to_string(info.st_mode & 7) + "); chmod 600 it");
  }
  if (info.st_size < static_cast<off_t>(kMinSigningKeyBytes) || info.st_size > static_cast<off_t>(kMaxKeyFileBytes)) {
    return fail(Errc::config, "signing key " + file.string() + " has " + std::to_string(info.st_size) +
                                  " bytes; it must hold at least " + std::to_string(kMinSigningKeyBytes));
  }
  std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(Errc::io, "cannot read signing key " + file.string());
    done += static_cast<std::size_t>(n);
  }
  return SigningKey(std::move(bytes));
}

// Writes a new random key to a PrivateFile (authd/private_file.hpp: a 0600
// temporary file, created exclusively) and link()s it into place: that fails
// if another process won the race, and then everybody reads the winner's
// key. No reader ever sees a half-written file; no link is followed.
Result<void> create_key(const std::filesystem::path& file) {
  std::string key(kMinSigningKeyBytes, '\0');
  if (auto ok = crypto::random_bytes({reinterpret_cast<unsigned char*>(key.data()), key.size()}); !ok) {
    return std::unexpected(ok.error());
  }
  auto written = write_private_file(file, key, 0600, PrivateFile::Existing::refuse);
  crypto::wipe(key.data(), key.size());
  if (!written && written.error().code == Errc::conflict) return {};  // another process's key: read it
  if (!written) return fail(Errc::io, "cannot create signing key " + file.string() + ": " + written.error().message);
  return written;
}

}  // namespace

SigningKey::~SigningKey() { crypto::wipe(bytes_.data(), bytes_.size()); }

Result<SigningKey> load_or_create_signing_key(const std::filesystem::path& file) {
  const auto parent = file.parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    if (std::filesystem::create_directories(parent, ec)) {
      std::filesystem::permissions(parent, std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::replace, ec);
    }
    if (ec) return fail(Errc::io, "cannot create directory " + parent.string() + ": " + ec.message());
  }
  struct stat info{};
  if (::lstat(file.c_str(), &info) != 0) {
    if (errno != ENOENT) return fail(Errc::io, "cannot stat signing key " + file.string() + ": " + errno_text());
    if (auto created = create_key(file); !created) return std::unexpected(created.error());
  }
  return read_key(file);
}

Result<SigningKey> signing_key_from_hex(std::string_view hex) {
  auto bytes = crypto::from_hex(hex);
  if (!bytes) return fail(Errc::config, "signing_key must be hexadecimal");
  if (bytes->size() < kMinSigningKeyBytes) {
    return fail(Errc::config, "signing_key must hold at least " + std::to_string(kMinSigningKeyBytes) +
                                  " bytes (" + std::to_string(2 * kMinSigningKeyBytes) + " hex digits)");
  }
  return SigningKey(std::move(*bytes));
}

std::vector<settings::Setting> key_settings(KeySettings& s) {
  return settings::grouped("Tokens", {
      settings::path("signing_key_file", s.file,
                     "The HMAC-SHA256 key file. The key signs session and client access tokens with "
                     "token_algorithm = HS256; whatever the algorithm, keys derived from it, one per kind, sign "
                     "authd's other tokens (OAuth state, WebAuthn challenges, the device cookie; "
                     "docs/tokens-and-keys.md). Empty: `<state_dir>/signing.key`, a 32-byte random key created on "
                     "first start (mode 0600) and used by every process sharing the state directory. A file "
                     "named here must hold at least 32 bytes."),
      settings::secret("signing_key", s.hex,
                       "The HMAC key inline as hex (at least 64 hex digits), instead of signing_key_file: e.g. "
                       "for several hosts behind one name. Better AUTHD_SIGNING_KEY in the environment than in "
                       "this file."),
  });
}

Result<SigningKey> load_signing_key(const KeySettings& s) {
  return s.hex.empty() ? load_or_create_signing_key(s.file) : signing_key_from_hex(s.hex);
}

}  // namespace authd
