// examples/notes: a FastCGI program of its own (not authd) whose routes are
// guarded by authd's library: same users, tokens, roles and 401/403 answers
// as authd itself, read from the same state directory.
//
//   GET    /notes       read     200 [{"id":1,"text":"...","author":"alice"}]
//   POST   /notes       create   201 {"id":2,"text":"...","author":"bob"} from {"text":"..."}
//   DELETE /notes/{id}  delete   200 {"id":2,"deleted":true}, or 404
//
// The guard is three lines of authd's API, marked [1], [2] and [3]. Notes
// live in memory: this is about the guard, not about storage.
//
// Run it like authd, with authd's settings (AUTHD_CONFIG or AUTHD_* such as
// AUTHD_STATE_DIR), next to an authd that serves /signup and /signin:
//   AUTHD_STATE_DIR=/var/lib/authd spawn-fcgi -n -s /run/notes.sock -- ./notes
#include <fcgiapp.h>

#include <authd/core.hpp>
#include <authd/http/error_mapping.hpp>
#include <authd/json.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t kMaxBody = 64 * 1024;

struct Reply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // JSON
};

Reply error_reply(int status, std::string_view message) {
  authd::Json body = authd::Json::object();
  body.set("error", authd::Json::string(message));
  return {status, {}, body.dump()};
}

std::string param(const FCGX_Request& request, const char* name) {
  const char* value = FCGX_GetParam(name, request.envp);
  return value ? value : "";
}

std::optional<std::string> read_body(FCGX_Request& request) {
  const std::string length_text = param(request, "CONTENT_LENGTH");
  std::size_t length = 0;
  if (!length_text.empty()) {
    const auto [end, ec] = std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
    if (ec != std::errc() || end != length_text.data() + length_text.size() || length > kMaxBody) return std::nullopt;
  }
  std::string body(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const int n = FCGX_GetStr(body.data() + done, static_cast<int>(length - done), request.in);
    if (n <= 0) return std::nullopt;
    done += static_cast<std::size_t>(n);
  }
  return body;
}

void send(FCGX_Request& request, const Reply& reply) {
  std::string head = "Status: " + std::to_string(reply.status) + "\r\nContent-Type: application/json\r\n";
  for (const auto& [name, value] : reply.headers) head += name + ": " + value + "\r\n";
  head += "\r\n";
  FCGX_PutStr(head.data(), static_cast<int>(head.size()), request.out);
  FCGX_PutStr(reply.body.data(), static_cast<int>(reply.body.size()), request.out);
}

class Notes {
 public:
  Reply list() const {
    authd::Json all = authd::Json::array();
    for (const auto& [id, note] : notes_) all.append(note);
    return {200, {}, all.dump()};
  }

  Reply create(std::string_view body, const std::string& author) {
    auto parsed = authd::Json::parse(body);
    const auto text = parsed ? parsed->get_string("text") : std::nullopt;
    if (!text) return error_reply(400, "text is required");
    authd::Json note = authd::Json::object();
    note.set("id", authd::Json::integer(next_id_))
        .set("text", authd::Json::string(*text))
        .set("author", authd::Json::string(author));
    notes_.emplace(next_id_++, note);
    return {201, {}, note.dump()};
  }

  Reply remove(std::int64_t id) {
    if (notes_.erase(id) == 0) return error_reply(404, "Not Found");
    authd::Json done = authd::Json::object();
    done.set("id", authd::Json::integer(id)).set("deleted", authd::Json::boolean(true));
    return {200, {}, done.dump()};
  }

 private:
  std::map<std::int64_t, authd::Json> notes_;
  std::int64_t next_id_ = 1;
};

// The request path (SCRIPT_NAME + PATH_INFO, as lighttpd and nginx pass it).
std::string route_path(const FCGX_Request& request) {
  std::string path = param(request, "SCRIPT_NAME") + param(request, "PATH_INFO");
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// "/notes/42" -> 42
std::optional<std::int64_t> note_id(std::string_view path) {
  constexpr std::string_view prefix = "/notes/";
  if (!path.starts_with(prefix)) return std::nullopt;
  path.remove_prefix(prefix.size());
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), id);
  if (path.empty() || ec != std::errc() || end != path.data() + path.size()) return std::nullopt;
  return id;
}

}  // namespace

int main() {
  // [1] authd's settings, store and signing key, exactly as authd reads them.
  auto auth = authd::Core::from_environment();
  if (!auth) {
    std::fprintf(stderr, "notes: %s\n", auth.error().message.c_str());
    return 1;
  }

  FCGX_Init();
  FCGX_Request request;
  FCGX_InitRequest(&request, 0, 0);  // fd 0: the socket spawn-fcgi hands over
  Notes notes;

  while (FCGX_Accept_r(&request) >= 0) {
    const std::string method = param(request, "REQUEST_METHOD");
    const std::string path = route_path(request);
    const auto id = note_id(path);

    // Which capability each route needs.
    std::optional<authd::Capability> needed;
    Reply reply;
    if (path == "/notes" && method == "GET") {
      needed = authd::Capability::read;
    } else if (path == "/notes" && method == "POST") {
      needed = authd::Capability::create;
    } else if (id && method == "DELETE") {
      needed = authd::Capability::delete_;
    } else if (path == "/notes" || id) {
      reply = error_reply(405, "Method Not Allowed");
      reply.headers.emplace_back("Allow", path == "/notes" ? "GET, POST" : "DELETE");
    } else {
      reply = error_reply(404, "Not Found");
    }

    if (needed) {
      // [2] token, re-authentication (role changes and deletions count at once), capability.
      auto who = (*auth)->check(param(request, "HTTP_AUTHORIZATION"), needed);
      if (!who) {
        // [3] authd's own answer: 401/403 {"error":"Access Denied"} + WWW-Authenticate.
        const auto refused = authd::http::to_http(who.error());
        reply = {refused.status, refused.headers, refused.body};
      } else if (*needed == authd::Capability::read) {
        reply = notes.list();
      } else if (*needed == authd::Capability::create) {
        const auto body = read_body(request);
        reply = body ? notes.create(*body, who->user().username) : error_reply(400, "unreadable body");
      } else {
        reply = notes.remove(*id);
      }
    }
    send(request, reply);
    FCGX_Finish_r(&request);
  }
  return 0;
}
