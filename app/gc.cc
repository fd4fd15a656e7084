#include "app/gc.h"

#include <climits>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "app/age.h"
#include "core/clock.h"
#include "core/disk_usage.h"
#include "snapshot/store.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

Result<store::RetentionPolicy> policy_from(const GcRequest& request) {
  store::RetentionPolicy policy;
  if (request.keep) policy.keep = static_cast<std::size_t>(*request.keep);
  if (!request.older_than.empty()) {
    auto age = parse_age(request.older_than);
    if (!age) {
      return make_error(ErrorCode::kUsage,
                        fmt::format("--older-than \"{}\": expected an age such as 90d, 12h, 30m", request.older_than));
    }
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

GcTotals totals_of(const snapshot::SnapshotGc& gc) {
  using Outcome = snapshot::RepositoryGc::Outcome;
  GcTotals t;
  for (const auto& r : gc.repositories) {
    if (r.outcome != Outcome::kInUse && r.outcome != Outcome::kFailed) {
      t.objects_removed += r.objects_before > r.objects_after ? r.objects_before - r.objects_after : 0;
    }
    t.not_in_store += r.not_in_store;
    t.packed += r.outcome == Outcome::kPacked;
    t.removed += r.outcome == Outcome::kRemoved;
    t.in_use += r.outcome == Outcome::kInUse;
    t.failed += r.outcome == Outcome::kFailed;
  }
  return t;
}

// The runs the policy lets go, and the store's runs removed (not in a dry run). Runs first,
// snapshots after: a gc killed in between leaves refs of runs that are gone (the next gc drops
// them), never a run whose snapshots are gone.
Result<std::set<std::string>> remove_runs(store::RunStore& store, const store::RetentionPolicy& policy, GcResult& out) {
  TRY(auto runs, store.list(INT_MAX));
  // A run that has not ended is still running when its process holds its snapshots' lock (held
  // from before the run is recorded until after it ends); otherwise it was killed.
  auto maybe_live = [&](const store::RunSummary& r) {
    return snapshot::repository_in_use(snapshot::snapshot_repository_path(out.store, r.workspace));
  };
  SystemClock clock;
  out.runs = store::choose_runs_to_remove(runs, policy, clock.wall(), maybe_live);
  // An open turn of the gate, and the latest turn of each session, stay whatever the policy says: a
  // gc run by the agent between a turn's start and its stop must not leave the stop without a start.
  TRY(std::set<std::string> turns, store.gate_runs_to_keep());
  for (auto it = out.runs.remove.begin(); it != out.runs.remove.end();) {
    if (turns.count(it->id) == 0) {
      ++it;
      continue;
    }
    out.runs.kept_gate_turns.push_back(*it);
    ++out.runs.kept;
    it = out.runs.remove.erase(it);
  }
  std::vector<std::string> ids;
  std::set<std::string> removed;
  for (const auto& r : out.runs.remove) {
    ids.push_back(r.id);
    removed.insert(r.id);
  }
  if (!out.dry_run) TRY_STATUS(store.remove_runs(ids));
  return removed;
}

}  // namespace

Result<GcResult> collect_garbage(const GcRequest& request) {
  TRY(store::RetentionPolicy policy, policy_from(request));
  GcResult out;
  out.dry_run = request.dry_run;
  if (store::StoreLocation where = store::store_location(request.store_dir); !where.url.empty()) {
    // One person's retention policy is not the team's: the team store keeps runs of every machine.
    return make_error(ErrorCode::kUsage,
                      fmt::format("candor gc works on a SQLite store (a folder): the runs in {} are the team's, kept "
                                  "as its administrator decides; `candor gc --store {}` removes this machine's runs "
                                  "and snapshots from its own folder",
                                  store::masked_store_url(where.url), where.dir));
  }
  out.store = request.store_dir.empty() ? store::default_store_dir() : request.store_dir;
  if (!std::filesystem::exists(out.store + "/candor.db")) return out;
  out.found = true;
  out.bytes_before = disk_usage(out.store).bytes;
  TRY(std::unique_ptr<store::RunStore> store, store::RunStore::open(out.store));
  out.store = store->dir();
  TRY(std::set<std::string> removed, remove_runs(*store, policy, out));
  std::set<std::string> leaving = out.dry_run ? removed : std::set<std::string>();
  out.snapshots = snapshot::collect_snapshots(out.store, removed, [&] { return runs_in_store(*store, leaving); },
                                              {.dry_run = out.dry_run, .at_step = nullptr});
  if (!out.dry_run) {
    auto compacted = store->compact();
    out.database_shrinks = compacted.ok() && *compacted;
    out.bytes_after = disk_usage(out.store).bytes;
  }
  out.totals = totals_of(out.snapshots);
  for (const auto& r : out.snapshots.repositories) {
    if (r.outcome == snapshot::RepositoryGc::Outcome::kFailed) out.failures.push_back(r.error);
  }
  return out;
}

namespace {

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

nlohmann::json or_null(std::optional<std::uint64_t> v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json to_json(const GcResult& result) {
  if (!result.found)
    return {{"dry_run", result.dry_run}, {"store", result.store}, {"message", "no store here: nothing to collect"}};
  nlohmann::json removed = nlohmann::json::array(), live = nlohmann::json::array(), repos = nlohmann::json::array();
  for (const auto& r : result.runs.remove) {
    removed.push_back({{"run_id", r.id},
                       {"created_at", r.created_at},
                       {"goal", r.goal},
                       {"workspace", r.workspace},
                       {"status", r.status},
                       {"verdict", r.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verdict)},
                       {"undone", !r.undone_at.empty()}});
  }
  for (const auto& r : result.runs.kept_live) live.push_back(r.id);
  nlohmann::json turns = nlohmann::json::array();
  for (const auto& r : result.runs.kept_gate_turns) turns.push_back(r.id);
  for (const auto& r : result.snapshots.repositories) repos.push_back(to_json(r));
  std::optional<std::uint64_t> freed;
  if (result.bytes_after)
    freed = result.bytes_before > *result.bytes_after ? result.bytes_before - *result.bytes_after : 0;
  return {
      {"dry_run", result.dry_run},
      {"store", result.store},
      {"runs", {{"removed", removed}, {"kept", result.runs.kept}, {"kept_running", live}, {"kept_gate_turns", turns}}},
      {"repositories", repos},
      {"leftovers", result.snapshots.leftovers},
      {"objects_removed", result.totals.objects_removed},
      {"bytes_before", result.bytes_before},
      {"bytes_after", or_null(result.bytes_after)},
      {"bytes_freed", or_null(freed)},
      {"database_shrinks", result.database_shrinks}};
}

}  // namespace candor::app
