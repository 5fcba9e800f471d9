// The directory users' cache for the guard (authd/directory.hpp): role_now
// reads it without waiting; one refresher thread per DirectoryUsers (started
// at the first sign-in) asks the directory again every cache_ttl / 2 for the
// users whose tokens are in use, and for those a guard met unchecked.
#include <algorithm>
#include <tuple>

#include "authd/directory.hpp"

namespace authd {
namespace {

std::string canonical(std::string_view username) {
  std::string out(username);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// How often the refresher looks for due entries, in milliseconds.
std::chrono::milliseconds refresh_period(std::chrono::seconds ttl) {
  return std::clamp(std::chrono::milliseconds(ttl) / 4, std::chrono::milliseconds(200),
                    std::chrono::milliseconds(5000));
}

}  // namespace

DirectoryUsers::DirectoryUsers(DirectorySettings settings, Events& events)
    : settings_(std::move(settings)), client_(settings_), events_(events) {}

DirectoryUsers::~DirectoryUsers() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  checked_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

Result<std::optional<DirectoryEntry>> DirectoryUsers::sign_in(std::string_view username, std::string_view password,
                                                              std::int64_t now,
                                                              const DirectoryClient::BeforeBind& before_bind) {
  auto found = client_.authenticate(username, password, before_bind);
  if (!found) {
    if (found.error().code == Errc::unavailable) {
      down_ = true;
      events_.warning("directory: " + found.error().message);
    }
    return found;
  }
  down_ = false;
  if (*found) {
    const auto& entry = **found;
    remember(entry, canonical(entry.username.empty() ? username : entry.username), now);
  }
  return found;
}

Result<DirectoryEntry> DirectoryUsers::change_password(std::string_view username, std::string_view stable_id,
                                                       std::string_view current, std::string_view next,
                                                       std::int64_t now) {
  auto changed = client_.change_password(username, stable_id, current, next);
  if (!changed) {
    const Error& error = changed.error();
    if (error.code == Errc::unavailable) {
      down_ = true;
      events_.warning("directory: " + error.message);
      // The servers' names and errors are for the log, not the user.
      return std::unexpected(Error::retry_later(Errc::unavailable, error.retry_after.value_or(5),
                                                "the directory cannot be reached: the password cannot be changed now"));
    }
    if (error.code != Errc::invalid_login && error.code != Errc::invalid_input) {
      events_.warning("directory: " + std::string(username) + " cannot change their password through authd " +
                      "(directory_password_change = user): " + error.message);
    }
    return changed;
  }
  down_ = false;
  remember(*changed, canonical(changed->username.empty() ? username : changed->username), now);
  return changed;
}

void DirectoryUsers::remember(const DirectoryEntry& entry, std::string_view key, std::int64_t now) {
  {
    std::unique_lock lock(states_mutex_);
    auto& state = states_[std::string(key)];
    if (!state) state = std::make_unique<State>();
    state->stable_id = entry.stable_id;
    state->exists = true;
    state->locked = entry.locked;
    state->role = entry.role;
    state->checked_at = now;
    state->used_at = now;
  }
  start_refresher();
}

void DirectoryUsers::ask_check(std::string_view key, std::string_view stable_id) const {
  {
    std::lock_guard lock(queue_mutex_);
    if (asked_.size() >= 10000) return;  // bounded: a flood of unchecked tokens waits its turn
    for (const auto& [asked_key, asked_id] : asked_) {
      if (asked_key == key) return;
    }
    asked_.emplace_back(std::string(key), std::string(stable_id));
  }
  wake_.notify_one();
}

Result<std::optional<Role>> DirectoryUsers::role_now(std::string_view username, std::string_view stable_id,
                                                     std::int64_t updated_at, std::int64_t now) const {
  const std::string key = canonical(username);
  {
    std::shared_lock lock(states_mutex_);
    const auto found = states_.find(key);
    if (found != states_.end() && found->second->checked_at > 0) {
      const State& state = *found->second;
      state.used_at.store(now, std::memory_order_relaxed);
      if (now - state.checked_at > settings_.stale_limit.count()) {
        return std::unexpected(Error::retry_later(
            Errc::unavailable, 5, "the directory has not answered for too long to keep using this account's state"));
      }
      if (!state.exists || state.stable_id != stable_id) {
        return fail(Errc::invalid_token, "the directory no longer has this account");
      }
      if (state.locked) return fail(Errc::invalid_token, "the directory account is locked");
      if (!state.role) return fail(Errc::invalid_token, "no directory group gives this account a role");
      return std::optional<Role>(*state.role);
    }
  }
  // Not checked by this process yet (signed in on another node, or before a
  // restart): the stored role while the sign-in or refresh that wrote it is recent.
  start_refresher();
  ask_check(key, stable_id);
  if (now - updated_at <= settings_.cache_ttl.count()) return std::optional<Role>();
  return std::unexpected(Error::retry_later(Errc::unavailable, 1, "the directory account is being checked"));
}

Result<std::optional<Role>> DirectoryUsers::await_role(std::string_view username, std::string_view stable_id,
                                                       std::int64_t updated_at, std::int64_t now) const {
  const std::string key = canonical(username);
  const auto deadline = std::chrono::steady_clock::now() + settings_.network_timeout;
  for (;;) {
    std::uint64_t seen = 0;
    {
      std::lock_guard lock(queue_mutex_);
      seen = checks_done_;
    }
    auto role = role_now(username, stable_id, updated_at, now);  // asks for the check when it is missing
    if (role || role.error().code != Errc::unavailable || down_.load()) return role;
    {
      std::shared_lock lock(states_mutex_);
      const auto found = states_.find(key);
      if (found != states_.end() && found->second->checked_at > 0) return role;  // checked, but stale: no wait helps
    }
    std::unique_lock lock(queue_mutex_);
    if (!checked_.wait_until(lock, deadline, [&] { return stopping_ || checks_done_ != seen; }) || stopping_) {
      return role;
    }
  }
}

void DirectoryUsers::start_refresher() const {
  auto* self = const_cast<DirectoryUsers*>(this);  // the thread owns the refreshing, never the caller
  std::call_once(started_, [self] { self->refresher_ = std::thread([self] { self->refresh_loop(); }); });
}

void DirectoryUsers::refresh_loop() {
  const auto period = refresh_period(settings_.cache_ttl);
  for (;;) {
    {
      std::unique_lock lock(queue_mutex_);
      wake_.wait_for(lock, period, [this] { return stopping_ || !asked_.empty(); });
      if (stopping_) return;
    }
    refresh_due(static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count()));
    {
      std::lock_guard lock(queue_mutex_);
      ++checks_done_;
    }
    checked_.notify_all();
  }
}

void DirectoryUsers::refresh_due(std::int64_t now) {
  // (key, stable id) of every entry to ask for.
  std::vector<std::pair<std::string, std::string>> due;
  {
    std::lock_guard lock(queue_mutex_);
    due.swap(asked_);
  }
  const std::int64_t half = std::max<std::int64_t>(settings_.cache_ttl.count() / 2, 1);
  const std::int64_t forget_after = settings_.stale_limit.count() + settings_.cache_ttl.count();
  {
    std::unique_lock lock(states_mutex_);
    for (auto it = states_.begin(); it != states_.end();) {
      const State& state = *it->second;
      if (now - state.used_at.load(std::memory_order_relaxed) > forget_after) {
        it = states_.erase(it);
        continue;
      }
      if (now - state.checked_at >= half &&
          std::ranges::find(due, it->first, &std::pair<std::string, std::string>::first) == due.end()) {
        due.emplace_back(it->first, state.stable_id);
      }
      ++it;
    }
  }
  if (due.empty()) return;
  std::vector<std::string> names;
  for (const auto& [key, id] : due) names.push_back(key);
  auto found = client_.find_each(names);
  if (!found) {
    if (!down_.exchange(true)) events_.warning("directory: " + found.error().message + "; cached users keep access");
    return;
  }
  if (down_.exchange(false)) events_.warning("directory: answering again");
  std::vector<std::tuple<std::string, std::string, Role>> changed;  // (key, stable id, role)
  std::unique_lock lock(states_mutex_);
  for (std::size_t i = 0; i < due.size(); ++i) {
    auto& state = states_[due[i].first];
    if (!state) {
      state = std::make_unique<State>();
      state->used_at = now;
    }
    const auto& answer = (*found)[i];
    state->stable_id = due[i].second;
    state->checked_at = now;
    if (answer && *answer && (**answer).stable_id == due[i].second) {
      const auto before = state->role;
      state->exists = true;
      state->locked = (**answer).locked;
      state->role = (**answer).role;
      if (state->role && before != state->role) changed.emplace_back(due[i].first, due[i].second, *state->role);
    } else {
      // Gone, renamed to someone else, or now ambiguous: no access.
      state->exists = false;
      state->role.reset();
    }
  }
  lock.unlock();
  if (role_changed_) {
    for (const auto& [key, stable_id, role] : changed) role_changed_(key, stable_id, role);
  }
}

}  // namespace authd
