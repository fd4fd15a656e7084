// `candor gc`: removes old runs from the store and the snapshot objects only they used.
#include <algorithm>
#include <cstdio>

#include "app/gc.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/disk_usage.h"
#include "report/escape.h"

namespace candor::cli {
namespace {

struct GcArgs {
  app::GcRequest request;
  bool json = false;
};

void print_removed_runs(const app::GcResult& r, const char* verb) {
  const auto& removed = r.runs.remove;
  std::printf("%s %zu run%s, kept %zu\n", verb, removed.size(), removed.size() == 1 ? "" : "s", r.runs.kept);
  constexpr std::size_t kListed = 20;
  for (std::size_t i = 0; i < removed.size() && i < kListed; ++i) {
    const auto& run = removed[i];
    std::string goal = report::terminal_safe(run.goal);
    std::replace(goal.begin(), goal.end(), '\n', ' ');
    const char* state = !run.undone_at.empty() ? "undone" : run.status == "running" ? "never ended" : "not undone";
    std::printf("  %s  %-7s  %-11s  %s\n", run.id.c_str(), run.verdict.empty() ? "-" : run.verdict.c_str(), state,
                goal.substr(0, 60).c_str());
  }
  if (removed.size() > kListed) std::printf("  ... and %zu more\n", removed.size() - kListed);
  for (const auto& run : r.runs.kept_live) {
    std::printf("kept %s: it has not ended and its workspace's snapshots are in use (it may still be running)\n",
                run.id.c_str());
  }
  for (const auto& run : r.runs.kept_gate_turns) {
    std::printf("kept %s: a turn of candor gate still open, or its session's latest turn\n", run.id.c_str());
  }
}

void print_text(const app::GcResult& r) {
  const char* verb = r.dry_run ? "would remove" : "removed";
  print_removed_runs(r, verb);
  const app::GcTotals& t = r.totals;
  std::printf("snapshots: %zu repositor%s packed, %zu %s, %zu in use (left as they are); %s %zu objects\n", t.packed,
              t.packed == 1 ? "y" : "ies", t.removed, r.dry_run ? "would go" : "removed", t.in_use, verb,
              t.objects_removed);
  if (t.not_in_store > 0) {
    std::printf("  %zu objects the kept snapshots name are not in the store (skipped)\n", t.not_in_store);
  }
  for (const auto& l : r.snapshots.leftovers) std::printf("  removed leftover %s\n", l.c_str());
  if (r.bytes_after) {
    std::uint64_t before = r.bytes_before, after = *r.bytes_after;
    std::printf("store %s: %s before, %s after (%s freed)%s\n", r.store.c_str(), human_bytes(before).c_str(),
                human_bytes(after).c_str(), human_bytes(before > after ? before - after : 0).c_str(),
                r.database_shrinks ? "" : "; the database keeps its free pages for later runs (it predates candor gc)");
  } else {
    std::printf("store %s: %s; nothing was removed (--dry-run)\n", r.store.c_str(),
                human_bytes(r.bytes_before).c_str());
  }
}

int gc_command(const GcArgs& args) {
  auto result = app::collect_garbage(args.request);
  if (!result.ok()) return report_error(result.error());
  const app::GcResult& r = *result;
  if (!r.found) {
    if (args.json) {
      std::puts(app::to_json(r).dump(2).c_str());
    } else {
      std::printf("no run store at %s: nothing to collect\n", r.store.c_str());
    }
    return exit_code(app::ExitCategory::kSuccess);
  }
  for (const auto& f : r.failures) std::fprintf(stderr, "candor: %s\n", report::terminal_safe(f, true).c_str());
  if (args.json) {
    std::puts(app::to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_text(r);
  }
  return r.totals.failed > 0 ? exit_code(app::ExitCategory::kInternal) : exit_code(app::ExitCategory::kSuccess);
}

}  // namespace

Subcommand add_gc_command(CLI::App& app) {
  auto args = std::make_shared<GcArgs>();
  auto* cmd = app.add_subcommand(
      "gc", "remove old runs and the snapshots only they used (one of --keep, --older-than is required)");
  cmd->add_option("--keep", args->request.keep, "keep the newest N runs, remove the others")
      ->check(whole_number(0, 100000000, "runs"));
  cmd->add_option("--older-than", args->request.older_than,
                  "remove runs older than this: 90d, 12h, 30m (with --keep: only those both remove)");
  cmd->add_flag("--dry-run", args->request.dry_run, "say what would be removed; remove nothing");
  cmd->add_option("--store", args->request.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor gc --older-than 90d --dry-run", "candor gc --keep 50 --json"));
  return {cmd, [args] { return gc_command(*args); }, nullptr};
}

}  // namespace candor::cli
