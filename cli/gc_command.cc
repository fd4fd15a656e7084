// `candor gc`: removes old runs from the store and the snapshot objects only they used.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "app/age.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "core/clock.h"
#include "core/disk_usage.h"
#include "report/escape.h"
#include "snapshot/gc.h"
#include "snapshot/store.h"
#include "store/retention.h"
#include "store/run_store.h"

namespace candor::cli {
namespace {

struct GcArgs {
  std::string store_dir;
  std::optional<int> keep;  // --keep N: the newest N runs stay
  std::string older_than;   // --older-than AGE ("90d"): older runs go; "" = any age
  bool dry_run = false;
  bool json = false;
};

struct Plan {
  std::string dir;
  std::unique_ptr<store::RunStore> store;
  store::RetentionChoice choice;
  std::set<std::string> removed;
};

Result<store::RetentionPolicy> policy_from(const GcArgs& args) {
  store::RetentionPolicy policy;
  if (args.keep) policy.keep = static_cast<std::size_t>(*args.keep);
  if (!args.older_than.empty()) {
    auto age = app::parse_age(args.older_than);
    if (!age) return make_error(ErrorCode::kUsage, fmt::format("--older-than \"{}\": expected an age such as 90d, 12h, 30m", args.older_than));
    policy.older_than = *age;
  }
  if (!policy.keep && !policy.older_than) {
    return make_error(ErrorCode::kUsage,
                      "gc: say which runs may go: --keep N (the newest N stay) or --older-than AGE (e.g. 90d); "
                      "a run is the only record of the change it made; see candor gc --help");
  }
  return policy;
}

// Everything the store holds, read as the snapshot gc needs it; in a dry run, as if the chosen
// runs were gone.
Result<snapshot::RunsInStore> runs_in_store(const store::RunStore& store, const std::set<std::string>& leaving) {
  TRY(auto runs, store.list(INT_MAX));
  snapshot::RunsInStore out;
  for (const auto& r : runs) {
    if (leaving.count(r.id) != 0) continue;
    out.run_ids.insert(r.id);
    out.workspaces.insert(r.workspace);
  }
  return out;
}

nlohmann::json to_json(const snapshot::RepositoryGc& r) {
  nlohmann::json j = {{"path", r.path},
                      {"workspace", r.workspace},
                      {"outcome", snapshot::to_string(r.outcome)},
                      {"refs_removed", r.refs_removed},
                      {"objects_before", r.objects_before},
                      {"objects_after", r.objects_after},
                      {"not_in_store", r.not_in_store},
                      {"bytes_before", r.bytes_before},
                      {"bytes_after", r.bytes_after}};
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

struct Totals {
  std::size_t objects_removed = 0, not_in_store = 0, packed = 0, removed = 0, in_use = 0, failed = 0;
};

Totals totals_of(const snapshot::SnapshotGc& gc) {
  Totals t;
  for (const auto& r : gc.repositories) {
    if (r.outcome != snapshot::RepositoryGc::Outcome::kInUse && r.outcome != snapshot::RepositoryGc::Outcome::kFailed) {
      t.objects_removed += r.objects_before > r.objects_after ? r.objects_before - r.objects_after : 0;
    }
    t.not_in_store += r.not_in_store;
    t.packed += r.outcome == snapshot::RepositoryGc::Outcome::kPacked;
    t.removed += r.outcome == snapshot::RepositoryGc::Outcome::kRemoved;
    t.in_use += r.outcome == snapshot::RepositoryGc::Outcome::kInUse;
    t.failed += r.outcome == snapshot::RepositoryGc::Outcome::kFailed;
  }
  return t;
}

void print_text(const GcArgs& args, const Plan& plan, const snapshot::SnapshotGc& gc, std::uint64_t before,
                std::optional<std::uint64_t> after, bool shrinks) {
  const char* verb = args.dry_run ? "would remove" : "removed";
  const auto& removed = plan.choice.remove;
  std::printf("%s %zu run%s, kept %zu\n", verb, removed.size(), removed.size() == 1 ? "" : "s", plan.choice.kept);
  constexpr std::size_t kListed = 20;
  for (std::size_t i = 0; i < removed.size() && i < kListed; ++i) {
    const auto& r = removed[i];
    std::string goal = report::terminal_safe(r.goal);
    std::replace(goal.begin(), goal.end(), '\n', ' ');
    const char* state = !r.undone_at.empty() ? "undone" : r.status == "running" ? "never ended" : "not undone";
    std::printf("  %s  %-7s  %-11s  %s\n", r.id.c_str(), r.verdict.empty() ? "-" : r.verdict.c_str(), state, goal.substr(0, 60).c_str());
  }
  if (removed.size() > kListed) std::printf("  ... and %zu more\n", removed.size() - kListed);
  for (const auto& r : plan.choice.kept_live) {
    std::printf("kept %s: it has not ended and its workspace's snapshots are in use (it may still be running)\n", r.id.c_str());
  }
  Totals t = totals_of(gc);
  std::printf("snapshots: %zu repositor%s packed, %zu %s, %zu in use (left as they are); %s %zu objects\n", t.packed,
              t.packed == 1 ? "y" : "ies", t.removed, args.dry_run ? "would go" : "removed", t.in_use, verb, t.objects_removed);
  if (t.not_in_store > 0) {
    std::printf("  %zu objects the kept snapshots name are not in the store (skipped)\n", t.not_in_store);
  }
  for (const auto& l : gc.leftovers) std::printf("  removed leftover %s\n", l.c_str());
  if (after) {
    std::printf("store %s: %s before, %s after (%s freed)%s\n", plan.dir.c_str(), human_bytes(before).c_str(), human_bytes(*after).c_str(),
                human_bytes(before > *after ? before - *after : 0).c_str(),
                shrinks ? "" : "; the database keeps its free pages for later runs (it predates candor gc)");
  } else {
    std::printf("store %s: %s; nothing was removed (--dry-run)\n", plan.dir.c_str(), human_bytes(before).c_str());
  }
}

nlohmann::json json_of(const GcArgs& args, const Plan& plan, const snapshot::SnapshotGc& gc, std::uint64_t before,
                       std::optional<std::uint64_t> after, bool shrinks) {
  nlohmann::json removed = nlohmann::json::array(), live = nlohmann::json::array(), repos = nlohmann::json::array();
  for (const auto& r : plan.choice.remove) {
    removed.push_back({{"run_id", r.id}, {"created_at", r.created_at}, {"goal", r.goal}, {"workspace", r.workspace}, {"status", r.status},
                       {"verdict", r.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verdict)},
                       {"undone", !r.undone_at.empty()}});
  }
  for (const auto& r : plan.choice.kept_live) live.push_back(r.id);
  for (const auto& r : gc.repositories) repos.push_back(to_json(r));
  Totals t = totals_of(gc);
  auto maybe = [](std::optional<std::uint64_t> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  std::optional<std::uint64_t> freed;
  if (after) freed = before > *after ? before - *after : 0;
  return {{"dry_run", args.dry_run},
          {"store", plan.dir},
          {"runs", {{"removed", removed}, {"kept", plan.choice.kept}, {"kept_running", live}}},
          {"repositories", repos},
          {"leftovers", gc.leftovers},
          {"objects_removed", t.objects_removed},
          {"bytes_before", before},
          {"bytes_after", maybe(after)},
          {"bytes_freed", maybe(freed)},
          {"database_shrinks", shrinks}};
}

int gc_command(const GcArgs& args) {
  auto policy = policy_from(args);
  if (!policy.ok()) return report_error(policy.error());
  Plan plan;
  plan.dir = args.store_dir.empty() ? store::default_store_dir() : args.store_dir;
  if (!std::filesystem::exists(plan.dir + "/candor.db")) {
    if (args.json) {
      std::puts(nlohmann::json({{"dry_run", args.dry_run}, {"store", plan.dir}, {"message", "no store here: nothing to collect"}}).dump(2).c_str());
    } else {
      std::printf("no run store at %s: nothing to collect\n", plan.dir.c_str());
    }
    return kExitSuccess;
  }
  std::uint64_t before = disk_usage(plan.dir).bytes;
  auto opened = store::RunStore::open(plan.dir);
  if (!opened.ok()) return report_error(opened.error());
  plan.store = std::move(*opened);
  plan.dir = plan.store->dir();
  auto runs = plan.store->list(INT_MAX);
  if (!runs.ok()) return report_error(runs.error());
  // A run that has not ended is still running when its process holds its snapshots' lock (held
  // from before the run is recorded until after it ends); otherwise it was killed.
  auto maybe_live = [&](const store::RunSummary& r) {
    return snapshot::repository_in_use(snapshot::snapshot_repository_path(plan.dir, r.workspace));
  };
  SystemClock clock;
  plan.choice = store::choose_runs_to_remove(*runs, *policy, clock.wall(), maybe_live);
  std::vector<std::string> ids;
  for (const auto& r : plan.choice.remove) {
    ids.push_back(r.id);
    plan.removed.insert(r.id);
  }
  // Runs first, snapshots after: a gc killed in between leaves refs of runs that are gone (the
  // next gc drops them), never a run whose snapshots are gone.
  if (!args.dry_run) {
    if (Status s = plan.store->remove_runs(ids); !s.ok()) return report_error(s.error());
  }
  std::set<std::string> leaving = args.dry_run ? plan.removed : std::set<std::string>();
  snapshot::SnapshotGc gc = snapshot::collect_snapshots(
      plan.dir, plan.removed, [&] { return runs_in_store(*plan.store, leaving); }, {.dry_run = args.dry_run, .at_step = nullptr});
  bool shrinks = false;
  std::optional<std::uint64_t> after;
  if (!args.dry_run) {
    auto compacted = plan.store->compact();
    shrinks = compacted.ok() && *compacted;
    after = disk_usage(plan.dir).bytes;
  }
  for (const auto& r : gc.repositories) {
    if (r.outcome == snapshot::RepositoryGc::Outcome::kFailed) std::fprintf(stderr, "candor: %s\n", report::terminal_safe(r.error, true).c_str());
  }
  if (args.json) {
    std::puts(json_of(args, plan, gc, before, after, shrinks).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_text(args, plan, gc, before, after, shrinks);
  }
  return totals_of(gc).failed > 0 ? kExitInternal : kExitSuccess;
}

}  // namespace

Subcommand add_gc_command(CLI::App& app) {
  auto args = std::make_shared<GcArgs>();
  auto* cmd = app.add_subcommand("gc", "remove old runs and the snapshots only they used (one of --keep, --older-than is required)");
  cmd->add_option("--keep", args->keep, "keep the newest N runs, remove the others")->check(whole_number(0, 100000000, "runs"));
  cmd->add_option("--older-than", args->older_than, "remove runs older than this: 90d, 12h, 30m (with --keep: only those both remove)");
  cmd->add_flag("--dry-run", args->dry_run, "say what would be removed; remove nothing");
  cmd->add_option("--store", args->store_dir, "run store folder");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor gc --older-than 90d --dry-run", "candor gc --keep 50 --json"));
  return {cmd, [args] { return gc_command(*args); }, nullptr};
}

}  // namespace candor::cli
