#include "pool.hpp"

#include <algorithm>

#include "migrations.hpp"

namespace authd::pg {
namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(250);
constexpr auto kMaxBackoff = std::chrono::milliseconds(2000);

}  // namespace

Pool::Pool(Connection::Settings settings, std::size_t size, Log warn, Log info)
    : settings_(std::move(settings)), size_(std::max<std::size_t>(size, 1)), warn_(std::move(warn)),
      info_(std::move(info)) {}

Result<Pool::Lease> Pool::acquire() {
  const auto deadline = Clock::now() + settings_.connect_timeout;
  std::unique_lock lock(mutex_);
  for (;;) {
    while (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      lock.unlock();
      const bool ok = conn->usable();
      if (ok) return Lease(*this, std::move(conn));
      conn.reset();  // closed by the server: replace it
      lock.lock();
      --open_;
    }
    if (open_ < size_) {
      const auto now = Clock::now();
      if (now < down_until_) {
        const auto wait = std::chrono::ceil<std::chrono::seconds>(down_until_ - now).count();
        return std::unexpected(Error::retry_later(Errc::unavailable, wait, "postgresql: database unreachable"));
      }
      ++open_;
      lock.unlock();
      auto conn = connect();
      lock.lock();
      if (!conn) {
        --open_;
        freed_.notify_one();
        return std::unexpected(conn.error());
      }
      return Lease(*this, std::move(*conn));
    }
    if (freed_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() && open_ >= size_)
      return std::unexpected(Error::retry_later(Errc::unavailable, 1, "postgresql: every connection is busy"));
  }
}

Result<std::unique_ptr<Connection>> Pool::connect() {
  auto opened = Connection::open(settings_);
  auto down = [&](const DbError& error) -> Result<std::unique_ptr<Connection>> {
    std::lock_guard lock(mutex_);
    backoff_ = backoff_.count() == 0 ? kFirstBackoff : std::min(backoff_ * 2, kMaxBackoff);
    down_until_ = Clock::now() + backoff_;
    if (!reported_down_ && warn_) warn_("postgresql: cannot connect: " + error.message);
    reported_down_ = true;
    return std::unexpected(to_error(error, "postgresql: connect"));
  };
  if (!opened) return down(opened.error());
  auto conn = std::make_unique<Connection>(std::move(*opened));
  {
    std::lock_guard migrating(migrate_mutex_);
    if (!schema_ready_) {
      const auto deadline = Clock::now() + settings_.statement_timeout * 4;
      auto applied = migrate(*conn, settings_.statement_timeout, deadline);
      if (!applied) {
        if (applied.error().kind != DbError::Kind::sql || applied.error().fatal_to_connection())
          return down(applied.error());
        // The SQL itself failed (or waited too long for another node's
        // migration): tried again on the next connection.
        if (warn_) warn_("postgresql: schema migration failed: " + applied.error().message);
        return std::unexpected(to_error(applied.error(), "postgresql: schema migration"));
      }
      if (*applied > 0 && info_) info_("postgresql: applied " + std::to_string(*applied) + " schema migration(s)");
      schema_ready_ = true;
    }
  }
  if (auto piped = conn->enter_pipeline(); !piped) return down(piped.error());
  std::lock_guard lock(mutex_);
  if (reported_down_ && info_) info_("postgresql: connected again");
  reported_down_ = false;
  backoff_ = std::chrono::milliseconds(0);
  down_until_ = {};
  return conn;
}

void Pool::database_is_back() {
  std::lock_guard lock(mutex_);
  down_until_ = {};
}

void Pool::give_back(std::unique_ptr<Connection> conn) {
  std::lock_guard lock(mutex_);
  if (conn->broken()) {
    conn.reset();
    --open_;
  } else {
    idle_.push_back(std::move(conn));
  }
  freed_.notify_one();
}

}  // namespace authd::pg
