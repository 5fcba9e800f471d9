// Internal to lib/store/postgres/: RAII owners for libpq's C handles. Only the
// files of this folder include <libpq-fe.h>.
#pragma once

#include <libpq-fe.h>

#include <memory>

namespace authd::pg {

struct ConnCloser {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};
struct ResultClearer {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
struct NotifyFreer {
  void operator()(PGnotify* notify) const noexcept { PQfreemem(notify); }
};

using ConnPtr = std::unique_ptr<PGconn, ConnCloser>;
using ResultPtr = std::unique_ptr<PGresult, ResultClearer>;
using NotifyPtr = std::unique_ptr<PGnotify, NotifyFreer>;

}  // namespace authd::pg
