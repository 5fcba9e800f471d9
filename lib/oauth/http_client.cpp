// The only file that talks to libcurl.
#include "authd/http_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace authd {
namespace {

constexpr std::size_t kMaxResponseBytes = 1 << 20;

struct CurlDeleter {
  void operator()(CURL* curl) const noexcept { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
using CurlPtr = std::unique_ptr<CURL, CurlDeleter>;
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  std::string body;
  bool overflow = false;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t bytes = size * count;
  if (sink->body.size() + bytes > kMaxResponseBytes) {
    sink->overflow = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  sink->body.append(data, bytes);
  return bytes;
}

Result<HttpResponse> perform(const HttpTimeouts& timeouts, std::string_view url,
                             const std::vector<std::string>& headers, const std::string* form) {
  global_init();
  CurlPtr curl(curl_easy_init());
  if (!curl) return fail(Errc::internal, "curl_easy_init failed");
  SlistPtr header_list;
  for (const auto& header : headers) {
    curl_slist* grown = curl_slist_append(header_list.get(), header.c_str());
    if (!grown) return fail(Errc::internal, "out of memory");
    (void)header_list.release();
    header_list.reset(grown);
  }
  const std::string target(url);
  Sink sink;
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, target.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM in a threaded server
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeouts.connect.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeouts.total.count()));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "authd/0.1");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  if (form) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, form->c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(form->size()));
  }
  const CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return fail(Errc::upstream_timeout, "the identity provider did not answer in time (" + target + ")");
  }
  if (sink.overflow) return fail(Errc::upstream_failed, "the identity provider's answer is too large");
  if (rc != CURLE_OK) {
    return fail(Errc::upstream_failed, std::string("cannot reach the identity provider (") + curl_easy_strerror(rc) + ")");
  }
  HttpResponse response;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  const char* content_type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type) response.content_type = content_type;
  response.body = std::move(sink.body);
  return response;
}

}  // namespace

HttpClient::HttpClient(HttpTimeouts timeouts) : timeouts_(timeouts) { global_init(); }

Result<HttpResponse> HttpClient::get(std::string_view url, const std::vector<std::string>& headers) const {
  return perform(timeouts_, url, headers, nullptr);
}

Result<HttpResponse> HttpClient::post_form(std::string_view url, const FormFields& form,
                                           const std::vector<std::string>& headers) const {
  const std::string body = form_encode(form);
  auto all_headers = headers;
  all_headers.emplace_back("Content-Type: application/x-www-form-urlencoded");
  return perform(timeouts_, url, all_headers, &body);
}

std::string HttpClient::url_encode(std::string_view text) {
  global_init();
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
  return escaped ? std::string(escaped.get()) : std::string();
}

std::string HttpClient::form_encode(const FormFields& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += url_encode(name);
    out += '=';
    out += url_encode(value);
  }
  return out;
}

}  // namespace authd
