// Password hashing: argon2id (libargon2), PHC string format
// ("$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "authd/error.hpp"
#include "authd/settings.hpp"

namespace authd {

// OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1.
struct Argon2Params {
  std::uint32_t iterations = 2;
  std::uint32_t memory_kib = 19456;
  std::uint32_t parallelism = 1;
};

// argon2_iterations, argon2_memory_kib, argon2_parallelism.
std::vector<settings::Setting> password_settings(Argon2Params& params);

class PasswordHasher {
 public:
  explicit PasswordHasher(Argon2Params params);

  // A fresh 16-byte random salt per call. Error: internal (argon2 failure).
  Result<std::string> hash(std::string_view password) const;

  // True when `password` matches `phc`. False for a mismatch and for a
  // malformed or non-argon2id hash, or bcrypt of a cost not accepted (not
  // run). Constant time in the comparison.
  bool verify(std::string_view phc, std::string_view password) const;

  // bcrypt hashes ($2a$/$2b$/$2y$, as imported from the Express app) are
  // verified too, by libxcrypt's crypt_rn, never by code of ours; such a
  // hash is replaced by argon2id at the user's next successful sign-in.
  // Only costs kBcryptMinCost..kBcryptMaxCost are accepted: a lower cost is
  // too cheap to guess against, a higher one lets one sign-in attempt burn
  // seconds of CPU (cost 31: days). Another cost is refused at import, and a
  // stored one is refused at sign-in without being run.
  static bool is_bcrypt(std::string_view hash) noexcept;
  static constexpr int kBcryptMinCost = 8;
  static constexpr int kBcryptMaxCost = 14;
  // The cost of a bcrypt hash (is_bcrypt), else -1.
  static int bcrypt_cost(std::string_view hash) noexcept;
  static bool bcrypt_cost_accepted(std::string_view hash) noexcept;
  // Whether `hash` is a form this hasher accepts (argon2id PHC, or bcrypt of
  // an accepted cost).
  static bool is_supported(std::string_view hash) noexcept;

  // Spends the same work as verify() against a real hash, and returns false.
  // Used for unknown users so that timing does not reveal which names exist.
  bool verify_dummy(std::string_view password) const;

  const Argon2Params& params() const noexcept { return params_; }

  // Each thread that hashes keeps its argon2 working memory (19 MiB at the
  // default parameters) mapped between hashes: fresh pages would make every
  // hash ~60% slower. Call this from a thread that will be idle for a while
  // to give the memory back (the password lane does, after 1 s idle).
  static void release_thread_memory() noexcept;

 private:
  Argon2Params params_;
  std::string dummy_hash_;
};

}  // namespace authd
