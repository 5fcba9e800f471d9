// Linked into the relocatable release only (cmake/Relocatable.cmake).
//
// The static libstdc++ of g++ 12 on Debian 12 (in std::random_device, which
// authd never uses, but whose object file comes along) calls arc4random,
// which glibc only has since 2.36; that one reference alone would make the
// release refuse to start on glibc 2.34/2.35 (RHEL/AlmaLinux/CloudLinux 9,
// Ubuntu 22.04: the common shared hosts). Defined here, the reference binds
// to this function instead: the same contract, from getrandom(2) (glibc 2.25).
// The static libxcrypt (bcrypt hashes imported from the Express app) calls
// arc4random_buf the same way.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" void arc4random_buf(void* buffer, std::size_t size) {
  auto* out = static_cast<unsigned char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::getrandom(out + done, size - done, 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::abort();  // arc4random cannot fail: no entropy is no answer
    }
  }
}

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  arc4random_buf(&value, sizeof value);
  return value;
}
