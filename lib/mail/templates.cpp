// The mail templates: built-in texts (the same as conf/mail/), each
// replaceable by a file in `mail_templates`.
#include <fstream>
#include <sstream>

#include "authd/mail.hpp"
#include "authd/text.hpp"

namespace authd::mail {
namespace {

// The placeholders any template may use; values are given by the feature
// that sends it (a missing one renders as "").
// new_device and sign_in_pending also have time (UTC), address (the client's IP
// address) and user_agent (a browser summary from a fixed list, never the header).
constexpr std::string_view kPlaceholders[] = {"site", "link",    "username", "expires",   "email",
                                              "role", "time", "address",  "user_agent"};

struct BuiltIn {
  const char* name;
  const char* subject;
  const char* text;
};

// The HTML part is made from the text (escaped, link clickable) unless a
// <name>.html file exists: one text to edit for the usual case.
constexpr BuiltIn kBuiltIn[] = {
    {"password_reset", "Reset your password",
     "Hello {{username}},\n\nsomeone (hopefully you) asked to reset the password of your account at {{site}}.\n"
     "To choose a new password, open this link within {{expires}}:\n\n{{link}}\n\n"
     "If you did not ask for this, ignore this message: your password stays as it is.\n"},
    {"email_verify", "Confirm your email address",
     "Hello {{username}},\n\nplease confirm that {{email}} is your address at {{site}} by opening this link "
     "within {{expires}}:\n\n{{link}}\n\nIf you did not ask for this, ignore this message.\n"},
    {"invitation", "You are invited",
     "Hello,\n\nyou are invited to {{site}} (role {{role}}). Choose a username and a password here "
     "within {{expires}}:\n\n{{link}}\n"},
    {"password_changed", "Your password was changed",
     "Hello {{username}},\n\nthe password of your account at {{site}} was just changed.\n"
     "If this was not you, reset it at once: {{link}}\n"},
    {"email_changed", "Your email address was changed",
     "Hello {{username}},\n\nthe email address of your account at {{site}} was changed to {{email}}.\n"
     "If this was not you, reset your password at once: {{link}}\n"},
    {"mfa_added", "A second factor was added",
     "Hello {{username}},\n\na second factor was added to your account at {{site}}.\n"
     "If this was not you, reset your password at once: {{link}}\n"},
    {"mfa_removed", "A second factor was removed",
     "Hello {{username}},\n\na second factor was removed from your account at {{site}}.\n"
     "If this was not you, reset your password at once: {{link}}\n"},
    {"new_device", "New sign-in to your account",
     "Hello {{username}},\n\nyour account at {{site}} was just signed in to from a browser or device not seen "
     "before:\n\nTime: {{time}}\nIP address: {{address}}\nBrowser: {{user_agent}}\n\n"
     "If this was you, there is nothing to do. If not, reset your password at once: {{link}}\n"},
    {"sign_in_pending", "Your password was just used",
     "Hello {{username}},\n\nthe password of your account at {{site}} was just entered correctly from a browser "
     "or device not seen before; the sign-in now waits for your second factor:\n\nTime: {{time}}\n"
     "IP address: {{address}}\nBrowser: {{user_agent}}\n\n"
     "If this was you, there is nothing to do. If not, someone knows your password: change it at once: {{link}}\n"},
};

// The HTML made from a text template: escaped, paragraphs, {{link}} as a link.
std::string html_from_text(std::string_view text) {
  std::string body = authd::text::html_escaped(text);
  std::string out = "<!DOCTYPE html>\n<html><body>\n<p>";
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body.compare(i, 2, "\n\n") == 0) {
      out += "</p>\n<p>";
      ++i;
    } else if (body[i] == '\n') {
      out += "<br>\n";
    } else {
      out += body[i];
    }
  }
  out += "</p>\n</body></html>\n";
  const std::string link = "{{link}}";
  for (auto at = out.find(link); at != std::string::npos; at = out.find(link, at + 40)) {
    out.replace(at, link.size(), "<a href=\"{{link}}\">{{link}}</a>");
  }
  return out;
}

Result<void> check_placeholders(std::string_view text, const std::string& where) {
  for (auto open = text.find("{{"); open != std::string_view::npos; open = text.find("{{", open + 2)) {
    const auto close = text.find("}}", open);
    if (close == std::string_view::npos) return fail(Errc::config, where + ": {{ without }}");
    const auto name = text.substr(open + 2, close - open - 2);
    bool known = false;
    for (auto p : kPlaceholders) known = known || p == name;
    if (!known) return fail(Errc::config, where + ": unknown placeholder {{" + std::string(name) + "}}");
  }
  return {};
}

Result<std::optional<std::string>> read_optional(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::optional<std::string>();
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Errc::config, "mail_templates: cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return std::optional<std::string>(text.str());
}

std::string fill(std::string_view text, const std::map<std::string, std::string, std::less<>>& values, bool html) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find("{{", i);
    const auto close = open == std::string_view::npos ? open : text.find("}}", open);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    const auto found = values.find(text.substr(open + 2, close - open - 2));
    if (found != values.end()) out += html ? authd::text::html_escaped(found->second) : found->second;
    i = close + 2;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& Templates::names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& t : kBuiltIn) out.emplace_back(t.name);
    return out;
  }();
  return names;
}

Result<Templates> Templates::load(const std::filesystem::path& directory) {
  Templates templates;
  for (const auto& t : kBuiltIn) {
    Parts parts{t.subject, t.text, {}};
    if (!directory.empty()) {
      for (auto [suffix, field] : {std::pair{".subject", &parts.subject}, std::pair{".txt", &parts.text},
                                   std::pair{".html", &parts.html}}) {
        auto file = read_optional(directory / (std::string(t.name) + suffix));
        if (!file) return std::unexpected(file.error());
        if (*file) *field = std::move(**file);
      }
      while (!parts.subject.empty() && (parts.subject.back() == '\n' || parts.subject.back() == '\r')) {
        parts.subject.pop_back();
      }
      if (parts.subject.find_first_of("\r\n") != std::string::npos) {
        return fail(Errc::config, "mail_templates: " + std::string(t.name) + ".subject must be one line");
      }
    }
    if (parts.html.empty()) parts.html = html_from_text(parts.text);
    for (const auto* text : {&parts.subject, &parts.text, &parts.html}) {
      if (auto ok = check_placeholders(*text, "mail template " + std::string(t.name)); !ok) {
        return std::unexpected(ok.error());
      }
    }
    templates.parts_.emplace(t.name, std::move(parts));
  }
  return templates;
}

Result<Message> Templates::render(std::string_view name, std::string_view to,
                                  const std::map<std::string, std::string, std::less<>>& values) const {
  const auto found = parts_.find(name);
  if (found == parts_.end()) return fail(Errc::internal, "no mail template " + std::string(name));
  Message message;
  message.to = std::string(to);
  message.subject = fill(found->second.subject, values, false);
  message.text = fill(found->second.text, values, false);
  message.html = fill(found->second.html, values, true);
  return message;
}

}  // namespace authd::mail
