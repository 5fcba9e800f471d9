// Files the programs write for an operator (authctl export, backup, restore's
// incoming copy): never through a link, never readable by others even for a
// moment, never half-written under the final name.
//
// A PrivateFile is a temporary file beside its target, created exclusively
// (O_CREAT|O_EXCL, so a name planted as a symlink is never followed) under a
// random name, given its final mode at once with fchmod (whatever the umask),
// written, fsync'd and renamed onto the target. rename(2) replaces a symlink
// at the target itself, never the file it points to. Dropped without
// commit(), the temporary file is removed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "authd/error.hpp"

namespace authd {

class PrivateFile {
 public:
  // The temporary ".<name>.XXXXXX" in the target's directory, mode `mode`.
  static Result<PrivateFile> create(const std::filesystem::path& target, mode_t mode = 0600);
  PrivateFile(PrivateFile&& other) noexcept;
  PrivateFile& operator=(PrivateFile&&) = delete;
  ~PrivateFile();

  int fd() const noexcept { return fd_; }
  const std::filesystem::path& target() const noexcept { return target_; }
  Result<void> write(std::string_view data);

  enum class Existing { replace, refuse };
  // fsync, then onto the target: `replace` renames over whatever is there (a
  // link included, which is replaced, not followed); `refuse` fails with
  // Errc::conflict if the name exists (as a link too), atomically (link(2)).
  // The directory is fsync'd after.
  Result<void> commit(Existing existing = Existing::replace);

 private:
  PrivateFile(std::filesystem::path target, std::string temp, int fd) noexcept
      : target_(std::move(target)), temp_(std::move(temp)), fd_(fd) {}
  std::filesystem::path target_;
  std::string temp_;
  int fd_ = -1;
};

// The whole of `data` as one PrivateFile at `target`.
Result<void> write_private_file(const std::filesystem::path& target, std::string_view data, mode_t mode = 0600,
                                PrivateFile::Existing existing = PrivateFile::Existing::replace);

}  // namespace authd
