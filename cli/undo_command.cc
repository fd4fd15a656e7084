// `candor undo RUN`: the workspace files a run changed, restored from its snapshot.
#include <cstdio>

#include <fmt/format.h>

#include "app/session.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"

namespace candor::cli {
namespace {

// "2 restored, 1 removed": what the undo did, by kind; "" when it did nothing.
std::string counts(const executor::UndoResult& u) {
  std::string out;
  auto add = [&out](std::size_t n, const char* what) {
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, what);
  };
  add(u.restored.size(), "restored");
  add(u.removed.size(), "removed");
  add(u.modes.size(), u.modes.size() == 1 ? "mode put back" : "modes put back");
  add(u.skipped.size(), "skipped");
  add(u.failed.size(), "failed");
  return out;
}

// The workspace first (the paths below are relative to it), then each path.
void print_undone(const app::UndoResult& r) {
  const executor::UndoResult& u = r.undone;
  std::string workspace = report::terminal_safe(r.workspace);
  if (u.restored.empty() && u.removed.empty() && u.modes.empty() && u.failed.empty() && !u.already.empty()) {
    std::printf(
        "run %s: every file it changed in %s is already as it was before the run (restored by hand?): nothing "
        "to undo\n",
        r.run_id.c_str(), workspace.c_str());
  } else if (u.restored.empty() && u.removed.empty() && u.modes.empty() && u.failed.empty()) {
    std::printf("run %s changed nothing in %s: nothing to undo\n", r.run_id.c_str(), workspace.c_str());
  } else {
    std::printf("undid run %s in %s: %s\n", r.run_id.c_str(), workspace.c_str(), counts(u).c_str());
  }
  for (const auto& p : u.restored) std::printf("restored  %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.removed) std::printf("removed   %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.modes) std::printf("mode      %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.already)
    std::printf("already   %s (as it was before the run)\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.skipped)
    std::printf("skipped   %s (a symlink: restore it by hand)\n", report::terminal_safe(p).c_str());
  for (const auto& f : u.failed) {
    std::fprintf(stderr, "candor: could not restore %s: %s\n", report::terminal_safe(f.path).c_str(),
                 report::terminal_safe(f.reason).c_str());
  }
}

int undo_command(const app::UndoRequest& request) {
  app::Session session;
  auto result = session.undo(request);
  if (!result.ok()) return report_error(result.error());
  const app::UndoResult& r = *result;
  if (const nlohmann::json& was = r.already_undone; was.is_object()) {
    std::printf(
        "run %s was already undone at %s (%zu restored, %zu removed in %s); nothing to do (--force undoes it "
        "again)\n",
        r.run_id.c_str(), was.value("at", "?").c_str(), was.value("restored", nlohmann::json::array()).size(),
        was.value("removed", nlohmann::json::array()).size(), report::terminal_safe(r.workspace).c_str());
    return exit_code(app::ExitCategory::kSuccess);
  }
  print_undone(r);
  if (!r.recorded.ok())
    std::fprintf(stderr, "candor: warning: the undo was not recorded: %s\n", r.recorded.error().message.c_str());
  if (!r.undone.failed.empty()) {
    std::fprintf(stderr, "candor: undo incomplete: %zu path(s) could not be restored\n", r.undone.failed.size());
  }
  return exit_code(r.exit);
}

}  // namespace

Subcommand add_undo_command(CLI::App& app) {
  auto args = std::make_shared<app::UndoRequest>();
  auto* cmd = app.add_subcommand("undo", "restore the workspace files a run changed, from its snapshot");
  cmd->add_option("run", args->run,
                  "run id, a unique prefix or suffix (the random part), or last (this workspace's latest run)")
      ->required();
  cmd->add_option(
      "-C,--workspace", args->workspace,
      "the workspace you are in: last is its latest run, and a run made elsewhere needs --yes (default: .)");
  cmd->add_flag("--any", args->any, "last is the store's latest run, whatever workspace it was made in");
  cmd->add_flag("--yes", args->yes, "undo a run made in another workspace than -C's (its files are written there)");
  cmd->add_option("--store", args->store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_flag("--force", args->force, "restore even files that changed after the run");
  cmd->footer(examples("candor undo last", "candor undo a89108 --force"));
  return {cmd, [args] { return undo_command(*args); }, nullptr};
}

}  // namespace candor::cli
