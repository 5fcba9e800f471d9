// The only file that talks to libargon2. It drives argon2_ctx itself (rather
// than argon2id_hash_encoded / argon2id_verify) for one reason: to hand argon2
// a per-thread working buffer that stays mapped between hashes. The PHC
// string is written and read here, in exactly libargon2's format.
#include "authd/password.hpp"

#include <argon2.h>
#include <crypt.h>
#include <sys/mman.h>

#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>

#include "authd/crypto.hpp"

namespace authd {
namespace {

constexpr std::size_t kSaltBytes = 16;
constexpr std::size_t kHashBytes = 32;
constexpr std::string_view kPrefix = "$argon2id$v=19$";
// Bounds on parameters read from a stored hash: a planted hash must not be
// able to make a verification take gigabytes or minutes.
constexpr std::uint32_t kMaxMemoryKib = 4u << 20;
constexpr std::uint32_t kMaxIterations = 64;
constexpr std::uint32_t kMaxParallelism = 16;

// One mapping per thread, reused by every hash on that thread.
struct ThreadMemory {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  ~ThreadMemory() { release(); }
  void release() noexcept {
    if (data) ::munmap(data, size);
    data = nullptr;
    size = 0;
  }
};
thread_local ThreadMemory thread_memory;

int allocate(std::uint8_t** memory, std::size_t bytes) {
  if (thread_memory.size < bytes) {
    thread_memory.release();
    void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return ARGON2_MEMORY_ALLOCATION_ERROR;
    thread_memory.data = static_cast<std::uint8_t*>(mapped);
    thread_memory.size = bytes;
  }
  *memory = thread_memory.data;
  return ARGON2_OK;
}

void keep(std::uint8_t*, std::size_t) {}  // argon2 has wiped it; the next hash reuses it

struct Phc {
  Argon2Params params;
  std::string salt;
  std::string hash;
};

// "$argon2id$v=19$m=<m>,t=<t>,p=<p>$<salt>$<hash>", base64 without padding.
std::optional<Phc> parse_phc(std::string_view phc) {
  if (!phc.starts_with(kPrefix)) return std::nullopt;
  phc.remove_prefix(kPrefix.size());
  Phc out;
  auto number = [&](std::string_view key, std::uint32_t& value, std::uint32_t max) {
    if (!phc.starts_with(key)) return false;
    phc.remove_prefix(key.size());
    const auto [end, ec] = std::from_chars(phc.data(), phc.data() + phc.size(), value);
    if (ec != std::errc() || value == 0 || value > max) return false;
    phc.remove_prefix(static_cast<std::size_t>(end - phc.data()));
    return true;
  };
  if (!number("m=", out.params.memory_kib, kMaxMemoryKib) || !number(",t=", out.params.iterations, kMaxIterations) ||
      !number(",p=", out.params.parallelism, kMaxParallelism) || !phc.starts_with('$')) {
    return std::nullopt;
  }
  phc.remove_prefix(1);
  const auto dollar = phc.find('$');
  if (dollar == std::string_view::npos) return std::nullopt;
  auto salt = crypto::base64_decode_unpadded(phc.substr(0, dollar));
  auto hash = crypto::base64_decode_unpadded(phc.substr(dollar + 1));
  if (!salt || !hash || salt->size() < 8 || salt->size() > 64 || hash->size() < 16 || hash->size() > 64) {
    return std::nullopt;
  }
  out.salt = std::move(*salt);
  out.hash = std::move(*hash);
  return out;
}

// Raw argon2id of `password` with `salt` into `out`.
int argon2id_raw(const Argon2Params& params, std::string_view password, std::string_view salt,
                 std::span<unsigned char> out) {
  argon2_context context{};
  context.out = out.data();
  context.outlen = static_cast<std::uint32_t>(out.size());
  context.pwd = reinterpret_cast<std::uint8_t*>(const_cast<char*>(password.data()));
  context.pwdlen = static_cast<std::uint32_t>(password.size());
  context.salt = reinterpret_cast<std::uint8_t*>(const_cast<char*>(salt.data()));
  context.saltlen = static_cast<std::uint32_t>(salt.size());
  context.t_cost = params.iterations;
  context.m_cost = params.memory_kib;
  context.lanes = params.parallelism;
  context.threads = params.parallelism;
  context.version = ARGON2_VERSION_13;
  context.allocate_cbk = allocate;
  context.free_cbk = keep;
  context.flags = ARGON2_DEFAULT_FLAGS;
  return argon2_ctx(&context, Argon2_id);
}

// "$argon2id$v=19$m=<m>,t=<t>,p=<p>$<salt>$<hash>", base64 without padding.
std::string format_phc(const Argon2Params& params, std::span<const unsigned char> salt,
                       std::span<const unsigned char> digest) {
  std::string phc(kPrefix);
  phc += "m=" + std::to_string(params.memory_kib) + ",t=" + std::to_string(params.iterations) +
         ",p=" + std::to_string(params.parallelism) + "$";
  phc += crypto::base64_encode_unpadded(salt);
  phc += '$';
  phc += crypto::base64_encode_unpadded(digest);
  return phc;
}

std::span<const unsigned char> bytes_of(std::string_view text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

}  // namespace

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  // This hasher's parameters with a random salt and a random digest:
  // verifying against it runs exactly the argon2id work of verifying a real
  // user's password, and fails. Made without hashing, so that a process that
  // answers a single request (authd as CGI) does not pay an argon2id run to start.
  std::array<unsigned char, kSaltBytes> salt{};
  std::array<unsigned char, kHashBytes> digest{};
  if (crypto::random_bytes(salt) && crypto::random_bytes(digest)) dummy_hash_ = format_phc(params_, salt, digest);
}

void PasswordHasher::release_thread_memory() noexcept { thread_memory.release(); }

Result<std::string> PasswordHasher::hash(std::string_view password) const {
  std::array<unsigned char, kSaltBytes> salt{};
  if (auto ok = crypto::random_bytes(salt); !ok) return std::unexpected(ok.error());
  std::array<unsigned char, kHashBytes> digest{};
  const int rc = argon2id_raw(params_, password, {reinterpret_cast<const char*>(salt.data()), salt.size()}, digest);
  if (rc != ARGON2_OK) return fail(Errc::internal, std::string("argon2id failed: ") + argon2_error_message(rc));
  std::string phc = format_phc(params_, salt, digest);
  crypto::wipe(digest.data(), digest.size());
  return phc;
}

bool PasswordHasher::is_bcrypt(std::string_view hash) noexcept {
  // "$2b$" cost(2 digits) "$" 53 characters of bcrypt's base64.
  if (hash.size() != 60 || !(hash.starts_with("$2a$") || hash.starts_with("$2b$") || hash.starts_with("$2y$"))) {
    return false;
  }
  return std::isdigit(static_cast<unsigned char>(hash[4])) && std::isdigit(static_cast<unsigned char>(hash[5])) &&
         hash[6] == '$';
}

int PasswordHasher::bcrypt_cost(std::string_view hash) noexcept {
  if (!is_bcrypt(hash)) return -1;
  return (hash[4] - '0') * 10 + (hash[5] - '0');
}

bool PasswordHasher::bcrypt_cost_accepted(std::string_view hash) noexcept {
  const int cost = bcrypt_cost(hash);
  return cost >= kBcryptMinCost && cost <= kBcryptMaxCost;
}

bool PasswordHasher::is_supported(std::string_view hash) noexcept {
  return bcrypt_cost_accepted(hash) || parse_phc(hash).has_value();
}

namespace {

// libxcrypt does the bcrypt work and the comparison input; we compare the
// result in constant time.
bool verify_bcrypt(std::string_view hash, std::string_view password) {
  if (password.find('\0') != std::string_view::npos) return false;  // crypt takes a C string
  const std::string setting(hash);
  const std::string phrase(password);
  crypt_data data{};
  const char* out = ::crypt_rn(phrase.c_str(), setting.c_str(), &data, sizeof data);
  const bool same = out != nullptr && out[0] == '$' && crypto::equal_constant_time(bytes_of(out), bytes_of(hash));
  crypto::wipe(&data, sizeof data);
  return same;
}

}  // namespace

bool PasswordHasher::verify(std::string_view phc, std::string_view password) const {
  if (is_bcrypt(phc)) return bcrypt_cost_accepted(phc) && verify_bcrypt(phc, password);  // a cost of 31 is never run
  // Only argon2id hashes in our format are accepted; anything else is refused outright.
  const auto parsed = parse_phc(phc);
  if (!parsed) return false;
  std::string computed(parsed->hash.size(), '\0');
  const int rc = argon2id_raw(parsed->params, password, parsed->salt,
                              {reinterpret_cast<unsigned char*>(computed.data()), computed.size()});
  const bool same = rc == ARGON2_OK && crypto::equal_constant_time(bytes_of(computed), bytes_of(parsed->hash));
  crypto::wipe(computed.data(), computed.size());
  return same;
}

bool PasswordHasher::verify_dummy(std::string_view password) const {
  (void)verify(dummy_hash_, password);
  return false;
}

std::vector<settings::Setting> password_settings(Argon2Params& p) {
  // The defaults are the OWASP Password Storage Cheat Sheet's: m=19 MiB, t=2, p=1.
  return settings::grouped("Passwords and credentials", {
      settings::integer("argon2_iterations", p.iterations, 1, 64,
                        "argon2id passes (t) of a new password hash. Raising argon2_iterations, argon2_memory_kib "
                        "or argon2_parallelism slows every sign-in and sign-up; existing hashes keep their own "
                        "parameters."),
      settings::integer("argon2_memory_kib", p.memory_kib, 8, 4 << 20,
                        "argon2id memory (m) of a new password hash, in KiB; at least 8 x argon2_parallelism."),
      settings::integer("argon2_parallelism", p.parallelism, 1, 16, "argon2id lanes (p) of a new password hash."),
  });
}

}  // namespace authd
