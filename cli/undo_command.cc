// `candor undo RUN`: the workspace files a run changed, restored from its snapshot.
#include <cstdio>

#include "app/session.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"

namespace candor::cli {
namespace {

void print_undone(const app::UndoResult& r) {
  const executor::UndoResult& u = r.undone;
  for (const auto& p : u.restored) std::printf("restored  %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.removed) std::printf("removed   %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.modes) std::printf("mode      %s\n", report::terminal_safe(p).c_str());
  for (const auto& p : u.skipped)
    std::printf("skipped   %s (a symlink: restore it by hand)\n", report::terminal_safe(p).c_str());
  for (const auto& f : u.failed) {
    std::fprintf(stderr, "candor: could not restore %s: %s\n", report::terminal_safe(f.path).c_str(),
                 report::terminal_safe(f.reason).c_str());
  }
  if (u.restored.empty() && u.removed.empty() && u.modes.empty() && u.failed.empty()) {
    std::printf("run %s changed nothing: nothing to undo\n", r.run_id.c_str());
  }
}

int undo_command(const app::UndoRequest& request) {
  app::Session session;
  auto result = session.undo(request);
  if (!result.ok()) return report_error(result.error());
  const app::UndoResult& r = *result;
  if (const nlohmann::json& was = r.already_undone; was.is_object()) {
    std::printf(
        "run %s was already undone at %s (%zu restored, %zu removed); nothing to do (--force undoes it again)\n",
        r.run_id.c_str(), was.value("at", "?").c_str(), was.value("restored", nlohmann::json::array()).size(),
        was.value("removed", nlohmann::json::array()).size());
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
  cmd->add_option("run", args->run, "run id, a unique prefix or suffix (the random part), or last")->required();
  cmd->add_option("--store", args->store_dir, "run store folder");
  cmd->add_flag("--force", args->force, "restore even files that changed after the run");
  cmd->footer(examples("candor undo last", "candor undo a89108 --force"));
  return {cmd, [args] { return undo_command(*args); }, nullptr};
}

}  // namespace candor::cli
