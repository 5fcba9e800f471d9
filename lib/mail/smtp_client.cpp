// SMTP through libcurl: smtp:// (STARTTLS as smtp_starttls says), smtps://
// (TLS from the start), AUTH when smtp_user is set. The only file of
// lib/mail that includes libcurl.
#include <curl/curl.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "authd/mail.hpp"

namespace authd::mail {
namespace {

struct CurlDeleter {
  void operator()(CURL* curl) const noexcept { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};

struct Upload {
  std::string_view data;
  std::size_t sent = 0;
};

std::size_t supply(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const std::size_t n = std::min(size * count, upload->data.size() - upload->sent);
  std::memcpy(buffer, upload->data.data() + upload->sent, n);
  upload->sent += n;
  return n;
}

}  // namespace

Result<void> SmtpClient::send(const Mailbox& from, std::string_view to, std::string_view data) const {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return fail(Errc::internal, "curl_easy_init failed");
  const std::string recipient = "<" + std::string(to) + ">";
  std::unique_ptr<curl_slist, SlistDeleter> recipients(curl_slist_append(nullptr, recipient.c_str()));
  if (!recipients) return fail(Errc::internal, "out of memory");
  const std::string sender = "<" + from.address + ">";
  Upload upload{data, 0};
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, settings_.smtp_url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 30000L);
  curl_easy_setopt(h, CURLOPT_MAIL_FROM, sender.c_str());
  curl_easy_setopt(h, CURLOPT_MAIL_RCPT, recipients.get());
  curl_easy_setopt(h, CURLOPT_READFUNCTION, supply);
  curl_easy_setopt(h, CURLOPT_READDATA, &upload);
  curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
  // Nothing crosses the network in clear: with AUTH (the password), or to a
  // server that is not on loopback (reset and invitation links), STARTTLS is
  // required unless smtp_allow_plaintext says otherwise; off is refused at
  // start-up off loopback without it (finish_mail_settings).
  const bool clear_ok = plaintext_allowed(settings_);
  long tls = CURLUSESSL_TRY;
  if (settings_.smtp_starttls == "required" ||
      (settings_.smtp_starttls == "auto" && (!settings_.smtp_user.empty() || !clear_ok))) {
    tls = CURLUSESSL_ALL;
  } else if (settings_.smtp_starttls == "off") {
    tls = CURLUSESSL_NONE;
  }
  curl_easy_setopt(h, CURLOPT_USE_SSL, tls);
  if (!settings_.smtp_user.empty()) {
    curl_easy_setopt(h, CURLOPT_USERNAME, settings_.smtp_user.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, settings_.smtp_password.c_str());
  }
  const CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK) return {};
  if (rc == CURLE_USE_SSL_FAILED) {
    return fail(Errc::not_permitted,
                "not sent: the mail server " + settings_.smtp_url + " offers no STARTTLS and TLS is required (" +
                    (clear_ok ? std::string("smtp_starttls = required or smtp_user set")
                              : std::string("the server is not on loopback; smtp_allow_plaintext = true accepts "
                                            "mail readable on the network")) +
                    "): the message stays in the outbox");
  }
  long code = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  const std::string reason = std::string(curl_easy_strerror(rc)) + (code ? " (" + std::to_string(code) + ")" : "");
  // 5xx: the server refuses this message for good; anything else may pass later.
  if (code >= 500) return fail(Errc::upstream_failed, "the mail server refused: " + reason);
  return fail(Errc::unavailable, "cannot deliver to the mail server: " + reason);
}

}  // namespace authd::mail
