// authctl backup|restore|export|import: the whole store at once.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

#include "authd/private_file.hpp"
#include "authd/store_backends.hpp"
#include "authd/transfer.hpp"
#include "commands.hpp"

namespace authctl {

using namespace authd;

int backup(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  if (auto ok = (*core)->store().backup(invocation.operands[0]); !ok) return failure(ok.error().message);
  std::printf("backed up to %s\n", invocation.operands[0].c_str());
  return kOk;
}

// Runs before any Core exists: the store must not be open while it is replaced.
int restore(Context& context, const Invocation& invocation) {
  const CoreSettings& core = context.settings().core;
  if (core.store.backend != "lmdb") return failure("restore is for the LMDB store; see docs/operations.md for pg_restore");
  LmdbOptions options = core.store.lmdb;
  options.map_size_bytes = core.store.map_size_mb << 20;
  if (auto ok = restore_lmdb(options, invocation.operands[0], invocation.has("force")); !ok) {
    return failure(ok.error().message);
  }
  std::printf("restored %s into %s\n", invocation.operands[0].c_str(), options.directory.c_str());
  return kOk;
}

// To a file: a PrivateFile (authd/private_file.hpp), created exclusively
// beside FILE with mode 0600 whatever the umask, renamed onto FILE when
// complete: a symlink at FILE is replaced, never written through.
int export_all(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const bool to_file = !invocation.operands.empty() && invocation.operands[0] != "-";
  if (!to_file) {
    auto done = export_store((*core)->store(), [&](std::string_view line) { std::cout << line << '\n'; });
    std::cout.flush();
    if (!done) return failure(done.error().message);
    if (!std::cout) return failure("write failed");
    return kOk;
  }
  auto file = PrivateFile::create(invocation.operands[0], 0600);
  if (!file) return failure(file.error().message);
  std::string pending;
  Result<void> written;
  auto done = export_store((*core)->store(), [&](std::string_view line) {
    pending.append(line).push_back('\n');
    if (pending.size() >= (1u << 16) && written) {
      written = file->write(pending);
      pending.clear();
    }
  });
  if (!done) return failure(done.error().message);
  if (written) written = file->write(pending);
  if (written) written = file->commit();
  if (!written) return failure(written.error().message);
  return kOk;
}

int import_all(Context& context, const Invocation& invocation) {
  auto core = context.core();
  if (!core) return failure(core.error().message);
  const std::string& source = invocation.operands[0];
  std::string input;
  if (source == "-") {
    input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream file(source, std::ios::binary);
    if (!file) return failure("cannot read " + source);
    input.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  const bool skip_bad = invocation.has("skip-bad");
  auto report = import_lines((*core)->store(), input, (*core)->accounts().policy(), skip_bad);
  if (!report) return failure(report.error().message);
  for (const auto& problem : report->problems) {
    std::fprintf(stderr, "authctl: %s%s\n", skip_bad ? "skipped " : "", problem.c_str());
  }
  if (report->bad_lines > report->problems.size()) {
    std::fprintf(stderr, "authctl: ... and %zu more bad lines\n", report->bad_lines - report->problems.size());
  }
  if (!report->committed) {
    return failure(std::to_string(report->bad_lines) + " bad line(s): nothing imported (fix them, or --skip-bad)");
  }
  const Actor actor = operator_actor();
  (*core)->audit().record({.event = "users_imported", .client = actor.client, .outcome = "ok",
                           .reason = std::to_string(report->users) + " users, " + std::to_string(report->records) +
                                     " records, " + std::to_string(report->bad_lines) + " bad lines skipped",
                           .actor = actor.name});
  std::printf("imported %zu users and %zu records", report->users, report->records);
  if (report->bad_lines) std::printf("; skipped %zu bad lines", report->bad_lines);
  std::printf("\n");
  return kOk;
}

}  // namespace authctl
