// Appending bytes written in place: one capacity check and no zero-filling,
// for the answers and records every request writes (http/response.cpp,
// fcgi/records.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace authd {

// Appends `size` bytes to `out`, all of them written by write(first byte).
// std::string::resize_and_overwrite's second argument to the operation is not
// used: libstdc++ 12 passes the new capacity there, not the size asked for.
template <class Write>
void append_in_place(std::string& out, std::size_t size, Write&& write) {
  const std::size_t at = out.size();
  out.resize_and_overwrite(at + size, [&](char* bytes, std::size_t) {
    write(bytes + at);
    return at + size;
  });
}

}  // namespace authd
