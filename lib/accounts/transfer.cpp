#include "authd/transfer.hpp"

#include "authd/username_index.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "authd/clock.hpp"
#include "authd/json.hpp"
#include "authd/mfa.hpp"
#include "authd/password.hpp"

namespace authd {
namespace {

constexpr std::size_t kMaxProblemsListed = 100;

Json user_line(const User& user) {
  Json links = Json::array();
  for (const auto& link : user.links) links.append(Json::string(link));
  Json line = Json::object();
  line.set("type", Json::string("user"))
      .set("_id", Json::string(user.id))
      .set("username", Json::string(user.username))
      .set("password", Json::string(user.password_hash))
      .set("role", Json::string(to_string(user.role)))
      .set("fullname", Json::string(user.fullname))
      .set("email", Json::string(user.email))
      .set("email_verified", Json::boolean(user.email_verified))
      .set("__v", Json::integer(user.version))
      .set("created_at", Json::integer(user.created_at))
      .set("updated_at", Json::integer(user.updated_at))
      .set("links", std::move(links))
      // The token lifecycle moves too: tokens ended by a sign-out stay ended.
      .set("token_generation", Json::integer(user.token_generation))
      .set("last_revocation", Json::integer(user.last_revocation));
  return line;
}

// 24 hex characters, given as a string or as Extended JSON {"$oid": "..."}.
Result<std::string> object_id(const Json& line) {
  if (!line.has("_id")) return new_object_id();
  Json id = line.get("_id");
  if (id.is_object()) id = id.get("$oid");
  const auto text = id.as_string();
  if (!text || text->size() != 24 || !std::all_of(text->begin(), text->end(), [](unsigned char c) {
        return std::isxdigit(c) != 0;
      })) {
    return fail(Errc::invalid_input, "_id must be 24 hex characters (or {\"$oid\": ...})");
  }
  std::string out(*text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// An integer, or Extended JSON {"$numberInt"|"$numberLong": "..."}; else `fallback`.
std::int64_t integer_of(const Json& line, std::string_view key, std::int64_t fallback) {
  Json value = line.get(key);
  if (auto n = value.as_integer()) return *n;
  for (const auto* wrapper : {"$numberInt", "$numberLong"}) {
    if (auto text = value.get_string(wrapper)) {
      try {
        return std::stoll(std::string(*text));
      } catch (...) {
      }
    }
  }
  return fallback;
}

Result<std::string> optional_string(const Json& line, std::string_view key) {
  if (!line.has(key) || line.get(key).is_null()) return std::string();
  auto text = line.get_string(key);
  if (!text) return fail(Errc::invalid_input, std::string(key) + " must be a string");
  return std::string(*text);
}

Result<User> user_from(const Json& line, const CredentialPolicy& policy) {
  User user;
  auto username = optional_string(line, "username");
  if (!username) return std::unexpected(username.error());
  if (auto ok = validate_username(*username, policy); !ok) return std::unexpected(ok.error());
  user.username = std::move(*username);
  auto hash = optional_string(line, "password");
  if (!hash) return std::unexpected(hash.error());
  if (PasswordHasher::is_bcrypt(*hash) && !PasswordHasher::bcrypt_cost_accepted(*hash)) {
    return fail(Errc::invalid_input, "password is a bcrypt hash of cost " + std::to_string(PasswordHasher::bcrypt_cost(*hash)) +
                                         ": only costs " + std::to_string(PasswordHasher::kBcryptMinCost) + " to " +
                                         std::to_string(PasswordHasher::kBcryptMaxCost) + " are accepted");
  }
  if (!hash->empty() && !PasswordHasher::is_supported(*hash)) {
    return fail(Errc::invalid_input, "password is not an argon2id (PHC) or bcrypt ($2a$/$2b$) hash");
  }
  user.password_hash = std::move(*hash);
  auto role = optional_string(line, "role");
  if (!role) return std::unexpected(role.error());
  if (!role->empty()) {
    auto parsed = parse_role(*role);
    if (!parsed) return fail(Errc::invalid_input, "unknown role '" + *role + "'");
    user.role = *parsed;
  }
  auto id = object_id(line);
  if (!id) return std::unexpected(id.error());
  user.id = std::move(*id);
  for (const auto* key : {"fullname", "email"}) {
    auto value = optional_string(line, key);
    if (!value) return std::unexpected(value.error());
    (std::string_view(key) == "fullname" ? user.fullname : user.email) = std::move(*value);
  }
  const auto now = unix_now();
  user.version = integer_of(line, "__v", 0);
  user.created_at = integer_of(line, "created_at", now);
  user.updated_at = integer_of(line, "updated_at", now);
  user.token_generation = integer_of(line, "token_generation", 0);
  user.last_revocation = integer_of(line, "last_revocation", 0);
  // An import without it (another system, an older export): unverified.
  user.email_verified = line.get("email_verified").is_true();
  if (line.has("links")) {
    const Json links = line.get("links");
    if (!links.is_array()) return fail(Errc::invalid_input, "links must be an array of strings");
    for (std::size_t i = 0; i < links.size(); ++i) {
      auto link = links.at(i).as_string();
      if (!link || link->find(':') == std::string_view::npos) {
        return fail(Errc::invalid_input, "links must hold \"provider:subject\" strings");
      }
      user.links.emplace_back(*link);
    }
  }
  return user;
}

enum class LineKind { user, record, header };

// What the import transaction knows besides the store: the ids of the users
// there before it, and the ids it has brought in so far.
struct ImportState {
  std::unordered_map<std::string, std::string> existing;  // _id -> username
  std::unordered_set<std::string> ids;
};

// Takes the user and its links out again (skip_bad never leaves half a user).
void undo_user(StoreTxn& txn, const User& user, std::size_t links_inserted) {
  for (std::size_t i = 0; i < links_inserted && i < user.links.size(); ++i) (void)txn.delete_link(user.links[i]);
  (void)username_index::delete_user(txn, user.username);
}

// One line into the open transaction. A user line that cannot go in whole
// (a taken link or passkey) is taken out again, so that skip_bad never leaves
// half a user.
Result<LineKind> import_line(StoreTxn& txn, const Json& line, const CredentialPolicy& policy, ImportState& state) {
  const auto type = line.get_string("type").value_or("user");
  if (type == "export") {
    const auto version = integer_of(line, "version", 1);
    if (version < 1 || version > kExportVersion) {
      // Not a bad line to skip: what this authctl does not know would be lost.
      return fail(Errc::conflict, "export format version " + std::to_string(version) + ": this authctl reads 1 to " +
                                           std::to_string(kExportVersion) + " (use the authctl that wrote it, or a newer one)");
    }
    return LineKind::header;
  }
  if (type == "record") {
    const Json record = line.get("record");
    const auto id = record.get_string("_id");
    if (!record.is_object() || !id || id->empty()) return fail(Errc::invalid_input, "record must be an object with an _id");
    auto inserted = txn.insert_record(*id, record.dump());
    if (!inserted && inserted.error().code == Errc::conflict) {
      return fail(Errc::invalid_input, "record " + std::string(*id) + " already exists");
    }
    if (!inserted) return std::unexpected(inserted.error());
    return LineKind::record;
  }
  if (type != "user") return fail(Errc::invalid_input, "unknown type '" + std::string(type) + "'");
  auto user = user_from(line, policy);
  if (!user) return std::unexpected(user.error());
  const Json factors = line.get("second_factors");
  if (!factors.is_null() && !factors.is_object()) return fail(Errc::invalid_input, "second_factors must be an object");
  if (!state.ids.insert(user->id).second) return fail(Errc::invalid_input, "_id " + user->id + " appears twice");
  auto inserted = username_index::insert_user(txn, *user);
  if (!inserted && inserted.error().code == Errc::conflict) {
    return fail(Errc::invalid_input, "username '" + user->username + "' already exists");
  }
  if (!inserted) return std::unexpected(inserted.error());
  // Second factors, consents and sessions are keyed by the account's _id: an
  // _id of another account would share them (and an operator's reset of one
  // would strip the other's). Refused like a taken username.
  if (const auto owner = state.existing.find(user->id); owner != state.existing.end()) {
    undo_user(txn, *user, 0);
    return fail(Errc::invalid_input, "_id " + user->id + " already belongs to user '" + owner->second + "'");
  }
  for (std::size_t i = 0; i < user->links.size(); ++i) {
    auto linked = txn.insert_link(user->links[i], user->username);
    if (!linked) {
      undo_user(txn, *user, i);
      if (linked.error().code == Errc::conflict) return fail(Errc::invalid_input, "link " + user->links[i] + " is taken");
      return std::unexpected(linked.error());
    }
  }
  // The factor state as exported, or none: whatever an earlier account of
  // this _id left behind never becomes the new account's.
  auto adopted = factors.is_null() ? SecondFactors::erase(txn, user->id)
                                   : SecondFactors::adopt(txn, user->id, user->username, factors);
  if (!adopted) {
    undo_user(txn, *user, user->links.size());
    const auto code = adopted.error().code;
    if (code == Errc::conflict || code == Errc::invalid_input) {
      return fail(Errc::invalid_input, "second_factors: " + adopted.error().message);
    }
    return std::unexpected(adopted.error());
  }
  return LineKind::user;
}

}  // namespace

Result<void> export_store(Store& store, const std::function<void(std::string_view)>& out) {
  return store.read([&](StoreTxn& txn) -> Result<void> {
    Json header = Json::object();
    header.set("type", Json::string("export")).set("version", Json::integer(kExportVersion));
    out(header.dump());
    auto users = txn.list_users(UserQuery{});
    if (!users) return std::unexpected(users.error());
    for (const auto& user : users->users) {
      Json line = user_line(user);
      // The second factors as stored (mfa.hpp): TOTP secret, recovery-code
      // hashes, passkeys. Without them the account would lose its factors.
      auto factors = txn.get_entry(kMfaNamespace, user.id);
      if (!factors) return std::unexpected(factors.error());
      if (*factors) {
        auto state = Json::parse(**factors);
        if (!state || !state->is_object()) return fail(Errc::internal, "corrupt second-factor entry of " + user.username);
        line.set("second_factors", std::move(*state));
      }
      out(line.dump());
    }
    auto records = txn.list_records();
    if (!records) return std::unexpected(records.error());
    auto all = Json::parse(*records, 256);
    if (!all) return fail(Errc::internal, "corrupt records");
    for (std::size_t i = 0; i < all->size(); ++i) {
      Json line = Json::object();
      line.set("type", Json::string("record")).set("record", all->at(i));
      out(line.dump());
    }
    return {};
  });
}

Result<ImportReport> import_lines(Store& store, std::string_view input, const CredentialPolicy& policy,
                                  bool skip_bad) {
  ImportReport report;
  auto done = store.write([&](StoreTxn& txn) -> Result<void> {
    report = ImportReport{};  // the work may run again (a backend's retry)
    ImportState state;
    auto users = txn.list_users(UserQuery{});
    if (!users) return std::unexpected(users.error());
    for (auto& user : users->users) state.existing.emplace(std::move(user.id), std::move(user.username));
    std::size_t number = 0;
    for (std::string_view rest = input; !rest.empty();) {
      const auto end = std::min(rest.find('\n'), rest.size());
      std::string_view text = rest.substr(0, end);
      rest.remove_prefix(std::min(end + 1, rest.size()));
      ++number;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
      auto line = Json::parse(text, 64);
      Result<LineKind> outcome = line ? (line->is_object() ? import_line(txn, *line, policy, state)
                                                           : fail(Errc::invalid_input, "not a JSON object"))
                                      : Result<LineKind>(std::unexpected(line.error()));
      if (outcome) {
        if (*outcome == LineKind::user) ++report.users;
        if (*outcome == LineKind::record) ++report.records;
        continue;
      }
      if (outcome.error().code != Errc::invalid_input) return std::unexpected(outcome.error());
      ++report.bad_lines;
      if (report.problems.size() < kMaxProblemsListed) {
        report.problems.push_back("line " + std::to_string(number) + ": " + outcome.error().message);
      }
    }
    if (report.bad_lines > 0 && !skip_bad) return fail(Errc::invalid_input, "bad lines");
    return {};
  });
  if (!done) {
    if (done.error().code == Errc::invalid_input && report.bad_lines > 0) return report;  // nothing written
    return std::unexpected(done.error());
  }
  report.committed = true;
  return report;
}

}  // namespace authd
