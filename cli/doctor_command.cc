// `candor doctor`: which protections of the process sandbox this kernel gives this user, and where
// the run store is and how much it holds.
#include <cstdio>

#include "app/doctor.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/disk_usage.h"

namespace candor::cli {
namespace {

struct DoctorArgs {
  std::string store_dir;
  bool json = false;
};

void print_store(const nlohmann::json& s) {
  if (s.contains("url")) {
    std::printf("\nthe run store (the team's, PostgreSQL):\n\n  %-12s %s\n  %-12s %s (they stay on this machine)\n",
                "location", s["url"].get<std::string>().c_str(), "snapshots",
                s["snapshots"].get<std::string>().c_str());
    if (s["runs"].is_null()) {
      std::printf("  %-12s unknown: %s\n", "runs", s.value("error", "?").c_str());
    } else {
      std::printf("  %-12s %lld\n", "runs", s["runs"].get<long long>());
    }
    return;
  }
  std::printf("\nthe run store:\n\n  %-12s %s\n", "location", s["path"].get<std::string>().c_str());
  if (!s["exists"].get<bool>()) {
    std::printf("  %-12s none yet (the first run creates it)\n", "size");
    return;
  }
  std::printf("  %-12s %s on disk: database %s, %zu snapshot repositor%s %s\n", "size",
              human_bytes(s["bytes"].get<std::uint64_t>()).c_str(),
              human_bytes(s["database_bytes"].get<std::uint64_t>()).c_str(),
              s["snapshot_repositories"].get<std::size_t>(),
              s["snapshot_repositories"].get<std::size_t>() == 1 ? "y" : "ies",
              human_bytes(s["snapshot_bytes"].get<std::uint64_t>()).c_str());
  if (std::size_t records = s.value("worktree_records", std::size_t{0}); records > 0) {
    std::printf("  %-12s %zu working tree%s read by verify --git BASE.. (%s; kept for the next read of each)\n",
                "records", records, records == 1 ? "" : "s",
                human_bytes(s.value("worktree_record_bytes", std::uint64_t{0})).c_str());
  }
  if (std::size_t stale = s["stale_index_locks"].size(); stale > 0) {
    std::printf(
        "  %-12s %zu snapshot repositor%s keep%s the index.lock of a run killed while saving: runs there no longer\n"
        "  %-12s save their stat cache and re-hash what changed (slower, not wrong); candor gc removes it\n",
        "index", stale, stale == 1 ? "y" : "ies", stale == 1 ? "s" : "", "");
  }
  if (s["runs"].is_null()) {
    std::printf("  %-12s unknown: %s\n", "runs", s.value("error", "?").c_str());
  } else {
    std::printf("  %-12s %lld (candor gc --keep N or --older-than AGE removes old ones)\n", "runs",
                s["runs"].get<long long>());
  }
}

int doctor_command(const DoctorArgs& args) {
  app::DoctorReport report = app::doctor({args.store_dir});
  if (args.json) {
    std::printf("%s\n", app::to_json(report).dump(2).c_str());
  } else {
    std::printf("the process sandbox for shell steps and external evaluators, on this machine:\n\n");
    for (const auto& l : report.protections)
      std::printf("  %-12s %-4s %s\n", l.name.c_str(), l.on ? "yes" : "NO", l.detail.c_str());
    if (report.missing.empty()) {
      std::printf("\nevery protection is available: --require-sandbox will run\n");
    } else {
      std::string names;
      for (const auto& m : report.missing) names += (names.empty() ? "" : ", ") + m;
      std::printf("\nmissing: %s; runs say so in their report, and --require-sandbox refuses to run\n", names.c_str());
    }
    print_store(report.store);
  }
  return report.missing.empty() ? exit_code(app::ExitCategory::kSuccess) : exit_code(app::ExitCategory::kPartial);
}

}  // namespace

Subcommand add_doctor_command(CLI::App& app) {
  auto args = std::make_shared<DoctorArgs>();
  auto* cmd = app.add_subcommand("doctor",
                                 "which sandbox protections this machine gives shell steps, and the run store's size");
  cmd->add_option("--store", args->store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor doctor", "candor doctor --json"));
  return {cmd, [args] { return doctor_command(*args); }, nullptr};
}

}  // namespace candor::cli
