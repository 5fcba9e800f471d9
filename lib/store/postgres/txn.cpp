#include "txn.hpp"

#include <algorithm>
#include <limits>

#include "user_row.hpp"

namespace authd::pg {
namespace {

// Client-side grace on top of the server's statement_timeout: the server's
// own timeout error normally arrives first; this bounds a dead network.
constexpr auto kClientGrace = std::chrono::milliseconds(250);

constexpr const char* kBeginWrite = "BEGIN ISOLATION LEVEL SERIALIZABLE";
constexpr const char* kBeginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
// Right after BEGIN, in the same batch: the statement timeout of this
// transaction only (set_config with is_local = true is SET LOCAL).
constexpr const char* kSetTimeout = "SELECT set_config('statement_timeout', $1, true)";

// SQL, one statement each. $n are sent in binary with their types.
constexpr const char* kFindUser =
    "SELECT "
    "username, id, password_hash, fullname, email, role, version, created_at, updated_at, links, token_generation, last_revocation, email_verified "
    "FROM users WHERE username = $1";
constexpr const char* kInsertUser =
    "INSERT INTO users (username, id, password_hash, fullname, email, role, version, created_at, updated_at, links, token_generation, last_revocation, email_verified) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $13 <> 0) ON CONFLICT (username) DO NOTHING";
constexpr const char* kReplaceUser =
    "UPDATE users SET id = $2, password_hash = $3, fullname = $4, email = $5, role = $6, version = $7, "
    "created_at = $8, updated_at = $9, links = $10::text[], token_generation = $11, last_revocation = $12, email_verified = ($13 <> 0) "
    "WHERE username = $1";
constexpr const char* kDeleteUser = "DELETE FROM users WHERE username = $1";
constexpr const char* kCountUsers =
    "SELECT count(*) FROM users WHERE ($1::text IS NULL OR role = $1) AND strpos(username, $2) > 0";
constexpr const char* kListUsers =
    "SELECT "
    "username, id, password_hash, fullname, email, role, version, created_at, updated_at, links, token_generation, last_revocation, email_verified "
    "FROM users WHERE ($1::text IS NULL OR role = $1) AND strpos(username, $2) > 0 "
    "ORDER BY username LIMIT $3 OFFSET $4";
// A page of usernames after $1, through the primary key (username order).
constexpr const char* kListUsernames = "SELECT username FROM users WHERE username > $1 ORDER BY username LIMIT $2";
// The same with an address ($5), through the index of migration 006: lower()
// under the "C" collation folds ASCII only, as the LMDB store and
// text::iequals do, whatever the database's locale.
constexpr const char* kCountUsersOfEmail =
    "SELECT count(*) FROM users WHERE ($1::text IS NULL OR role = $1) AND strpos(username, $2) > 0 "
    "AND lower(email COLLATE \"C\") = lower($3::text COLLATE \"C\")";
constexpr const char* kListUsersOfEmail =
    "SELECT "
    "username, id, password_hash, fullname, email, role, version, created_at, updated_at, links, token_generation, last_revocation, email_verified "
    "FROM users WHERE ($1::text IS NULL OR role = $1) AND strpos(username, $2) > 0 "
    "AND lower(email COLLATE \"C\") = lower($5::text COLLATE \"C\") "
    "ORDER BY username LIMIT $3 OFFSET $4";

constexpr const char* kFindLink = "SELECT username FROM links WHERE link = $1";
constexpr const char* kInsertLink = "INSERT INTO links (link, username) VALUES ($1, $2) ON CONFLICT (link) DO NOTHING";
constexpr const char* kDeleteLink = "DELETE FROM links WHERE link = $1";

constexpr const char* kFindRecord = "SELECT body FROM records WHERE id = $1";
constexpr const char* kInsertRecord = "INSERT INTO records (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING";
constexpr const char* kReplaceRecord = "UPDATE records SET body = $2 WHERE id = $1";
constexpr const char* kDeleteRecord = "DELETE FROM records WHERE id = $1";
constexpr const char* kListRecords = "SELECT body FROM records ORDER BY id";

constexpr const char* kGetEntry = "SELECT value FROM entries WHERE ns = $1 AND key = $2";
constexpr const char* kPutEntry =
    "INSERT INTO entries (ns, key, value, expires_at) VALUES ($1, $2, $3, $4) "
    "ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at";
constexpr const char* kDeleteEntry = "DELETE FROM entries WHERE ns = $1 AND key = $2";
constexpr const char* kListEntries = "SELECT key, value FROM entries WHERE ns = $1 ORDER BY key";
// The namespaces in [prefix, its successor): the primary key's range (COLLATE "C").
constexpr const char* kListEntriesUnder =
    "SELECT ns, key, value FROM entries WHERE ns >= $1 AND ($2 = '' OR ns < $2) ORDER BY ns, key";
constexpr const char* kPurgeEntries = "DELETE FROM entries WHERE expires_at > 0 AND expires_at <= $1";

std::int64_t as_int8(std::size_t value) {
  return static_cast<std::int64_t>(std::min<std::size_t>(value, std::numeric_limits<std::int64_t>::max()));
}

template <class T>
Result<T> db_fail(const DbError& error, std::string_view what) {
  return std::unexpected(to_error(error, what));
}

}  // namespace

PgTxn::PgTxn(Connection* conn, Mode mode, std::chrono::milliseconds statement_timeout,
             std::string_view statement_timeout_ms, RecordsCache* records_cache)
    : conn_(conn), mode_(mode), statement_timeout_(statement_timeout), statement_timeout_ms_(statement_timeout_ms),
      records_cache_(records_cache) {}

PgTxn::~PgTxn() { end(); }

Clock::time_point PgTxn::deadline() const { return Clock::now() + statement_timeout_ + kClientGrace; }

DbResult<std::vector<ResultPtr>> PgTxn::run(std::vector<Statement> batch) {
  if (failure_) return std::unexpected(*failure_);
  if (finished_) return std::unexpected(DbError{DbError::Kind::sql, "25000", "the transaction has ended"});
  if (!conn_) {  // answering from memory: this would wait on the database
    MemoryOnly::refuse_wait();
    return std::unexpected(DbError{DbError::Kind::memory_only, "", "the store would wait on the network"});
  }
  const bool with_begin = !begun_;
  if (with_begin) {
    batch.insert(batch.begin(), Statement{kSetTimeout, {Param::text(statement_timeout_ms_)}});
    batch.insert(batch.begin(), Statement{mode_ == Mode::write ? kBeginWrite : kBeginRead, {}});
  }
  begun_ = true;
  auto results = conn_->run(batch, deadline());
  if (!results) {
    failure_ = results.error();
    return std::unexpected(results.error());
  }
  if (with_begin) results->erase(results->begin(), results->begin() + 2);
  return results;
}

DbResult<ResultPtr> PgTxn::run_one(const char* sql, std::vector<Param> params, bool binary) {
  std::vector<Statement> batch;
  batch.push_back(Statement{sql, std::move(params), binary});
  auto results = run(std::move(batch));
  if (!results) return std::unexpected(results.error());
  return std::move(results->front());
}

Result<void> PgTxn::refuse_if_read_only(std::string_view what) const {
  if (mode_ == Mode::read) return fail(Errc::internal, std::string(what) + ": write in a read-only transaction");
  return {};
}

DbResult<void> PgTxn::commit() {
  if (failure_) return std::unexpected(*failure_);
  if (!begun_ || finished_) return {};
  commit_sent_ = true;
  finished_ = true;
  std::vector<Statement> batch;
  batch.push_back(Statement{"COMMIT", {}});
  auto results = conn_->run(batch, deadline());
  if (!results) {
    failure_ = results.error();
    return std::unexpected(results.error());
  }
  // COMMIT of a transaction PostgreSQL had aborted answers ROLLBACK.
  const PGresult* done = results->front().get();
  if (!done || std::string_view(PQcmdStatus(const_cast<PGresult*>(done))) != "COMMIT") {
    failure_ = DbError{DbError::Kind::sql, "40000", "the transaction was rolled back"};
    return std::unexpected(*failure_);
  }
  return {};
}

void PgTxn::end() {
  if (!begun_ || finished_) return;
  finished_ = true;
  if (conn_->broken()) return;
  std::vector<Statement> batch;
  batch.push_back(Statement{"ROLLBACK", {}});
  if (!conn_->run(batch, deadline())) conn_->mark_broken();  // never hand back a connection mid-transaction
}

// --- users -------------------------------------------------------------------

Result<User> PgTxn::find_user(std::string_view username) {
  auto found = run_one(kFindUser, {Param::text(username)});
  if (!found) return db_fail<User>(found.error(), "find_user");
  if (PQntuples(found->get()) == 0) return fail(Errc::not_found, "find_user: no such user");
  auto user = decode_user(found->get(), 0);
  if (!user) return fail(Errc::internal, "find_user: malformed row");
  return *user;
}

Result<void> PgTxn::insert_user(const User& user) {
  if (auto ro = refuse_if_read_only("insert_user"); !ro) return ro;
  std::string links;
  auto inserted = run_one(kInsertUser, user_params(user, links));
  if (!inserted) return db_fail<void>(inserted.error(), "insert_user");
  if (affected_rows(inserted->get()) == 0) return fail(Errc::conflict, "insert_user: username taken");
  touched_users_.push_back(user.username);
  return {};
}

Result<void> PgTxn::replace_user(const User& user) {
  if (auto ro = refuse_if_read_only("replace_user"); !ro) return ro;
  std::string links;
  auto updated = run_one(kReplaceUser, user_params(user, links));
  if (!updated) return db_fail<void>(updated.error(), "replace_user");
  if (affected_rows(updated->get()) == 0) return fail(Errc::not_found, "replace_user: no such user");
  touched_users_.push_back(user.username);
  return {};
}

Result<void> PgTxn::delete_user(std::string_view username) {
  if (auto ro = refuse_if_read_only("delete_user"); !ro) return ro;
  auto deleted = run_one(kDeleteUser, {Param::text(username)});
  if (!deleted) return db_fail<void>(deleted.error(), "delete_user");
  if (affected_rows(deleted->get()) == 0) return fail(Errc::not_found, "delete_user: no such user");
  touched_users_.emplace_back(username);
  return {};
}

Result<UserPage> PgTxn::list_users(const UserQuery& query) {
  const std::string_view role = query.role ? to_string(*query.role) : std::string_view();
  auto filter = [&] {
    return std::vector<Param>{query.role ? Param::text(role) : Param::null_text(), Param::text(query.contains)};
  };
  const bool of_email = !query.email.empty();
  std::vector<Param> count = filter();
  std::vector<Param> page = filter();
  page.push_back(query.limit >= static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())
                     ? Param::null_int8()
                     : Param::int8(as_int8(query.limit)));
  page.push_back(Param::int8(as_int8(query.offset)));
  if (of_email) {
    count.push_back(Param::text(query.email));
    page.push_back(Param::text(query.email));
  }
  std::vector<Statement> batch;
  batch.push_back(Statement{of_email ? kCountUsersOfEmail : kCountUsers, std::move(count)});
  batch.push_back(Statement{of_email ? kListUsersOfEmail : kListUsers, std::move(page)});
  auto results = run(std::move(batch));
  if (!results) return db_fail<UserPage>(results.error(), "list_users");
  UserPage out;
  out.total = static_cast<std::size_t>(field_int((*results)[0].get(), 0, 0));
  const PGresult* rows = (*results)[1].get();
  out.users.reserve(static_cast<std::size_t>(PQntuples(rows)));
  for (int row = 0; row < PQntuples(rows); ++row) {
    auto user = decode_user(rows, row);
    if (!user) return fail(Errc::internal, "list_users: malformed row");
    out.users.push_back(std::move(*user));
  }
  return out;
}

Result<std::vector<std::string>> PgTxn::list_usernames(std::string_view after, std::size_t limit) {
  std::vector<std::string> names;
  if (limit == 0) return names;
  auto rows = run_one(kListUsernames, {Param::text(after), Param::int8(as_int8(limit))});
  if (!rows) return db_fail<std::vector<std::string>>(rows.error(), "list_usernames");
  names.reserve(static_cast<std::size_t>(PQntuples(rows->get())));
  for (int row = 0; row < PQntuples(rows->get()); ++row) names.emplace_back(field(rows->get(), row, 0));
  return names;
}

// --- links -------------------------------------------------------------------

Result<std::string> PgTxn::find_link(std::string_view link) {
  auto found = run_one(kFindLink, {Param::text(link)});
  if (!found) return db_fail<std::string>(found.error(), "find_link");
  if (PQntuples(found->get()) == 0) return fail(Errc::not_found, "find_link: no such link");
  return std::string(field(found->get(), 0, 0));
}

Result<void> PgTxn::insert_link(std::string_view link, std::string_view username) {
  if (auto ro = refuse_if_read_only("insert_link"); !ro) return ro;
  auto inserted = run_one(kInsertLink, {Param::text(link), Param::text(username)});
  if (!inserted) return db_fail<void>(inserted.error(), "insert_link");
  if (affected_rows(inserted->get()) == 0) return fail(Errc::conflict, "insert_link: already linked");
  return {};
}

Result<void> PgTxn::delete_link(std::string_view link) {
  if (auto ro = refuse_if_read_only("delete_link"); !ro) return ro;
  auto deleted = run_one(kDeleteLink, {Param::text(link)});
  if (!deleted) return db_fail<void>(deleted.error(), "delete_link");
  if (affected_rows(deleted->get()) == 0) return fail(Errc::not_found, "delete_link: no such link");
  return {};
}

// --- records -----------------------------------------------------------------

Result<std::string> PgTxn::find_record(std::string_view id) {
  auto found = run_one(kFindRecord, {Param::text(id)});
  if (!found) return db_fail<std::string>(found.error(), "find_record");
  if (PQntuples(found->get()) == 0) return fail(Errc::not_found, "find_record: no such record");
  return std::string(field(found->get(), 0, 0));
}

Result<void> PgTxn::insert_record(std::string_view id, std::string_view json) {
  if (auto ro = refuse_if_read_only("insert_record"); !ro) return ro;
  touched_records_ = true;
  auto inserted = run_one(kInsertRecord, {Param::text(id), Param::text(json)});
  if (!inserted) return db_fail<void>(inserted.error(), "insert_record");
  if (affected_rows(inserted->get()) == 0) return fail(Errc::conflict, "insert_record: id taken");
  return {};
}

Result<void> PgTxn::replace_record(std::string_view id, std::string_view json) {
  if (auto ro = refuse_if_read_only("replace_record"); !ro) return ro;
  touched_records_ = true;
  auto updated = run_one(kReplaceRecord, {Param::text(id), Param::text(json)});
  if (!updated) return db_fail<void>(updated.error(), "replace_record");
  if (affected_rows(updated->get()) == 0) return fail(Errc::not_found, "replace_record: no such record");
  return {};
}

Result<void> PgTxn::delete_record(std::string_view id) {
  if (auto ro = refuse_if_read_only("delete_record"); !ro) return ro;
  touched_records_ = true;
  auto deleted = run_one(kDeleteRecord, {Param::text(id)});
  if (!deleted) return db_fail<void>(deleted.error(), "delete_record");
  if (affected_rows(deleted->get()) == 0) return fail(Errc::not_found, "delete_record: no such record");
  return {};
}

Result<std::string> PgTxn::list_records() {
  // The cached list serves a read transaction that has not read anything
  // else yet (so no snapshot to agree with): no round trip at all.
  const bool cacheable = mode_ == Mode::read && !begun_ && records_cache_ && records_cache_->live();
  if (cacheable) {
    if (auto hit = records_cache_->find()) return std::move(*hit);
  }
  const auto ticket = cacheable ? records_cache_->ticket() : 0;
  auto listed = list_records_from_database();
  if (listed && cacheable) records_cache_->put(ticket, *listed);
  return listed;
}

Result<std::string> PgTxn::list_records_from_database() {
  auto rows = run_one(kListRecords, {});
  if (!rows) return db_fail<std::string>(rows.error(), "list_records");
  const PGresult* result = rows->get();
  const int count = PQntuples(result);
  std::size_t size = 2;
  for (int row = 0; row < count; ++row) size += static_cast<std::size_t>(PQgetlength(result, row, 0)) + 1;
  std::string out;
  out.reserve(size);
  out += '[';
  for (int row = 0; row < count; ++row) {
    if (row) out += ',';
    out += field(result, row, 0);
  }
  out += ']';
  return out;
}

// --- entries -----------------------------------------------------------------

Result<std::optional<std::string>> PgTxn::get_entry(std::string_view ns, std::string_view key) {
  auto found = run_one(kGetEntry, {Param::text(ns), Param::bytes(key)}, true);
  if (!found) return db_fail<std::optional<std::string>>(found.error(), "get_entry");
  if (PQntuples(found->get()) == 0) return std::optional<std::string>();
  return std::optional<std::string>(field(found->get(), 0, 0));
}

Result<void> PgTxn::put_entry(std::string_view ns, std::string_view key, std::string_view value,
                              std::int64_t expires_at) {
  if (auto ro = refuse_if_read_only("put_entry"); !ro) return ro;
  auto put = run_one(kPutEntry, {Param::text(ns), Param::bytes(key), Param::bytes(value), Param::int8(expires_at)});
  if (!put) return db_fail<void>(put.error(), "put_entry");
  return {};
}

Result<void> PgTxn::delete_entry(std::string_view ns, std::string_view key) {
  if (auto ro = refuse_if_read_only("delete_entry"); !ro) return ro;
  auto deleted = run_one(kDeleteEntry, {Param::text(ns), Param::bytes(key)});
  if (!deleted) return db_fail<void>(deleted.error(), "delete_entry");
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> PgTxn::list_entries(std::string_view ns) {
  using Entries = std::vector<std::pair<std::string, std::string>>;
  auto rows = run_one(kListEntries, {Param::text(ns)}, true);
  if (!rows) return db_fail<Entries>(rows.error(), "list_entries");
  Entries out;
  const PGresult* result = rows->get();
  out.reserve(static_cast<std::size_t>(PQntuples(result)));
  for (int row = 0; row < PQntuples(result); ++row)
    out.emplace_back(std::string(field(result, row, 0)), std::string(field(result, row, 1)));
  return out;
}

Result<std::vector<NamespacedEntry>> PgTxn::list_entries_under(std::string_view ns_prefix) {
  using Entries = std::vector<NamespacedEntry>;
  if (ns_prefix.empty()) return fail(Errc::internal, "list_entries_under needs a namespace prefix");
  // The first text after every text that begins with the prefix: its last
  // byte below 0xff raised by one ("" when there is none: no upper bound).
  std::string after(ns_prefix);
  while (!after.empty() && static_cast<unsigned char>(after.back()) == 0xff) after.pop_back();
  if (!after.empty()) after.back() = static_cast<char>(static_cast<unsigned char>(after.back()) + 1);
  auto rows = run_one(kListEntriesUnder, {Param::text(ns_prefix), Param::text(after)}, true);
  if (!rows) return db_fail<Entries>(rows.error(), "list_entries_under");
  Entries out;
  const PGresult* result = rows->get();
  out.reserve(static_cast<std::size_t>(PQntuples(result)));
  for (int row = 0; row < PQntuples(result); ++row) {
    out.push_back({std::string(field(result, row, 0)), std::string(field(result, row, 1)), std::string(field(result, row, 2))});
  }
  return out;
}

Result<std::size_t> PgTxn::purge_expired(std::int64_t now) {
  if (auto ro = refuse_if_read_only("purge_expired"); !ro) return std::unexpected(ro.error());
  auto purged = run_one(kPurgeEntries, {Param::int8(now)});
  if (!purged) return db_fail<std::size_t>(purged.error(), "purge_expired");
  return static_cast<std::size_t>(affected_rows(purged->get()));
}

}  // namespace authd::pg
