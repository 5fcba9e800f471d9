// Export and import of a whole store as JSON lines, for moving between
// stores and for bringing users in from elsewhere.
//
// Export (one object a line):
//   {"type":"export","version":2}   first: the format's version (1: before
//                                   second factors were carried; no such line)
//   {"type":"user","_id","username","password"(hash),"role","fullname","email","__v",
//    "created_at","updated_at","links":["provider:subject",...],
//    "second_factors":{...}}        the factor state as stored (authd/mfa.hpp:
//                                   TOTP secret, recovery-code hashes,
//                                   passkeys), when the user has any
//   {"type":"record","record":{...the record, _id included...}}
// Import reads that (a version it does not know is a bad line: nothing is
// dropped unread), and also user lines without "type":
//   - bulk:        {"username","password":"<argon2id PHC or bcrypt>","role"}
//   - mongoexport of the Express app's users: {"_id":{"$oid":"..."},"username",
//                  "password":"$2a$10$...","role","__v":0}  (_id and role kept)
// Hashes are taken as they are (never re-hashed here): argon2id PHC or
// bcrypt ($2a$/$2b$/$2y$) of cost 8 to 14 (another cost is a bad line);
// bcrypt becomes argon2id at the first sign-in.
// All lines go in ONE write transaction: all or nothing (with skip_bad,
// bad lines are left out and listed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "authd/accounts.hpp"
#include "authd/store.hpp"

namespace authd {

inline constexpr std::int64_t kExportVersion = 2;

// Writes the version line, then every user (with its second factors) and record, one line each, to `out`. Errors: the store's.
Result<void> export_store(Store& store, const std::function<void(std::string_view line)>& out);

struct ImportReport {
  std::size_t users = 0;
  std::size_t records = 0;
  std::size_t bad_lines = 0;
  std::vector<std::string> problems;  // "line 7: password is not an argon2id or bcrypt hash" (first 100)
  bool committed = false;             // false: nothing was written
};

// Imports `input` (the whole text). Bad lines (bad JSON, invalid username,
// unknown role, unsupported hash, bad _id, username or _id taken (an _id
// of an account already in the store too: second factors and sessions are
// keyed by it), a passkey of another account, ...) are
// reported with their line numbers; unless `skip_bad`, any bad line means
// nothing is written. Errors: the store's (storage_full, ...).
Result<ImportReport> import_lines(Store& store, std::string_view input, const CredentialPolicy& policy,
                                  bool skip_bad);

}  // namespace authd
