// Fuzz target: reading what a directory server answers (lib/directory's pure
// parts, directory_settings.cpp): the stable id kept with an account
// (directory_id_text: objectGUID, entryUUID, any other attribute), Active
// Directory's account flags (directory_account_disabled), group DNs
// compared and mapped to roles (same_dn, role_for_groups), and, the other
// way, the unicodePwd value a password change sends (unicode_pwd_value).
// The input is split in two at the position its first byte names. Besides
// no crash, leak or hang:
//  - an id is printable ASCII: an objectGUID of 16 bytes is the 8-4-4-4-12
//    form of those bytes, printable text is kept as is, anything else is
//    its bytes in lower-case hex; each decodes back to the value read;
//  - the account flags are the ones a plain reading of the decimal text
//    gives (ACCOUNTDISABLE 0x2, UF_LOCKOUT 0x10; unreadable = not set);
//  - DN comparison is reflexive, symmetric and blind to ASCII case, and a
//    user in a mapped group (any case) gets that group's role;
//  - a unicodePwd value is the input quoted in UTF-16LE exactly when the
//    input is UTF-8 (no NUL, overlong form or surrogate).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "authd/directory.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_directory_answer: invariant violated: %s\n", what);
  std::abort();
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The bytes of lower-case hex text ("" = not such text).
std::string from_hex(std::string_view text, bool& ok) {
  std::string out;
  ok = text.size() % 2 == 0;
  for (std::size_t i = 0; ok && i < text.size(); i += 2) {
    const int high = hex(text[i]), low = hex(text[i + 1]);
    ok = high >= 0 && low >= 0;
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

bool printable(std::string_view text) {
  for (const unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

void check_id(std::string_view attribute, std::string_view value) {
  const std::string id = authd::directory_id_text(attribute, value);
  if (!printable(id)) violated("an id that is not printable ASCII");
  const bool guid = (attribute == "objectGUID" || attribute == "objectguid") && value.size() == 16;
  if (guid) {
    if (id.size() != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-') {
      violated("an objectGUID not in the 8-4-4-4-12 form");
    }
    std::string digits = id;
    std::erase(digits, '-');
    bool ok = false;
    const std::string bytes = from_hex(digits, ok);
    if (!ok) violated("an objectGUID not in lower-case hex");
    static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int i = 0; i < 16; ++i) {
      if (bytes[i] != value[kOrder[i]]) violated("an objectGUID that does not decode back to its bytes");
    }
    return;
  }
  if (!value.empty() && printable(value)) {
    if (id != value) violated("printable text not kept as is");
    return;
  }
  bool ok = false;
  if (from_hex(id, ok) != value || !ok) violated("a binary value not in hex of its bytes");
}

// The plain reading of a signed 64-bit decimal, as 32 flag bits (0 when unreadable).
std::uint32_t flags(std::string_view text) {
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  if (i == text.size()) return 0;
  unsigned long long magnitude = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return 0;
    const unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (magnitude > (9223372036854775808ULL - digit) / 10) return 0;
    magnitude = magnitude * 10 + digit;
  }
  if (!negative && magnitude > 9223372036854775807ULL) return 0;
  const unsigned long long bits = negative ? 0ULL - magnitude : magnitude;
  return static_cast<std::uint32_t>(bits);
}

void check_flags(std::string_view user_account_control, std::string_view computed) {
  const bool expected = (flags(user_account_control) & 0x2) != 0 || (flags(computed) & 0x10) != 0;
  if (authd::directory_account_disabled(user_account_control, computed) != expected) {
    violated("account flags read differently from their decimal text");
  }
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

void check_dns(std::string_view a, std::string_view b) {
  if (!authd::same_dn(a, a)) violated("a DN differs from itself");
  if (authd::same_dn(a, b) != authd::same_dn(b, a)) violated("DN comparison is not symmetric");
  if (!authd::same_dn(a, upper(a))) violated("DN comparison sees ASCII case");
  authd::DirectorySettings settings;
  settings.role_groups[static_cast<std::size_t>(authd::Role::editor)] = {std::string(a)};
  if (authd::role_for_groups(settings, {std::string(b), upper(a)}) != authd::Role::editor) {
    violated("a user in a mapped group does not get its role");
  }
  if (authd::role_for_groups(settings, {}) != settings.default_role) violated("no group, yet a role");
}

// UTF-16LE (between quotes) back to UTF-8, "" with ok = false when malformed.
std::string utf8_of_quoted_utf16le(std::string_view value, bool& ok) {
  ok = false;
  if (value.size() < 4 || value.size() % 2 != 0) return {};
  const auto unit = [value](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(value[2 * i])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(value[2 * i + 1])) << 8;
  };
  const std::size_t units = value.size() / 2;
  if (unit(0) != '"' || unit(units - 1) != '"') return {};
  std::string out;
  for (std::size_t i = 1; i + 1 < units; ++i) {
    std::uint32_t code = unit(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      if (i + 2 >= units || unit(i + 1) < 0xdc00 || unit(i + 1) > 0xdfff) return {};
      code = 0x10000 + ((code - 0xd800) << 10) + (unit(++i) - 0xdc00);
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return {};
    }
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }
  ok = true;
  return out;
}

// RFC 3629 §4's table of well-formed UTF-8 byte sequences, without NUL.
bool well_formed_utf8(std::string_view text) {
  const auto in = [](unsigned char c, unsigned low, unsigned high) { return c >= low && c <= high; };
  for (std::size_t i = 0; i < text.size();) {
    const auto b = [&text, i](std::size_t k) { return static_cast<unsigned char>(i + k < text.size() ? text[i + k] : 0); };
    const unsigned char c = b(0);
    std::size_t length = 0;
    if (in(c, 0x01, 0x7f)) length = 1;
    else if (in(c, 0xc2, 0xdf) && in(b(1), 0x80, 0xbf)) length = 2;
    else if (c == 0xe0 && in(b(1), 0xa0, 0xbf) && in(b(2), 0x80, 0xbf)) length = 3;
    else if ((in(c, 0xe1, 0xec) || in(c, 0xee, 0xef)) && in(b(1), 0x80, 0xbf) && in(b(2), 0x80, 0xbf)) length = 3;
    else if (c == 0xed && in(b(1), 0x80, 0x9f) && in(b(2), 0x80, 0xbf)) length = 3;
    else if (c == 0xf0 && in(b(1), 0x90, 0xbf) && in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf)) length = 4;
    else if (in(c, 0xf1, 0xf3) && in(b(1), 0x80, 0xbf) && in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf)) length = 4;
    else if (c == 0xf4 && in(b(1), 0x80, 0x8f) && in(b(2), 0x80, 0xbf) && in(b(3), 0x80, 0xbf)) length = 4;
    else return false;
    i += length;
  }
  return true;
}

void check_unicode_pwd(std::string_view password) {
  std::string value;
  const bool taken = authd::unicode_pwd_value(password, value);
  if (taken != well_formed_utf8(password)) violated("unicodePwd takes text that is not UTF-8, or refuses UTF-8");
  bool ok = false;
  if (taken && (utf8_of_quoted_utf16le(value, ok) != password || !ok)) {
    violated("a unicodePwd value that is not the input");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t cut = data[0] % (input.size() + 1);
  const std::string_view first = input.substr(0, cut), second = input.substr(cut);
  for (const std::string_view attribute : {"objectGUID", "objectguid", "entryUUID", "nsUniqueId"}) {
    check_id(attribute, input);
    check_id(attribute, second);
  }
  check_flags(first, second);
  check_dns(first, second);
  check_unicode_pwd(input);
  return 0;
}
