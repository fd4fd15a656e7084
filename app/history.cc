#include "app/history.h"

#include <unistd.h>

#include "app/age.h"
#include "app/recorded_run.h"
#include "core/clock.h"
#include "core/run_record.h"
#include "sandbox/credential_registry.h"
#include "sandbox/secret_files.h"
#include "snapshot/store.h"

namespace candor::app {
namespace {

Result<std::unique_ptr<store::RunStore>> open_store(const std::string& dir) { return store::RunStore::open(dir); }

nlohmann::json or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

Result<RunList> list_runs(const RunsRequest& request) {
  TRY(auto store, open_store(request.store_dir));
  std::string since;
  if (!request.since.empty()) {
    TRY(since, since_cutoff(request.since, std::chrono::system_clock::now()));
  }
  TRY(auto runs, store->list(request.limit, request.verdict, since, request.source));
  return RunList{store->describe(), std::move(runs)};
}

nlohmann::json to_json(const RunList& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : list.runs) {
    out.push_back({{"run_id", r.id},
                   {"created_at", r.created_at},
                   {"goal", r.goal},
                   {"workspace", r.workspace},
                   {"status", r.status},
                   {"verdict", or_null(r.verdict)},
                   {"verdict_by", or_null(r.verdict_by)},
                   {"source", or_null(r.source)},
                   {"machine", or_null(r.machine)}});
  }
  return out;
}

Result<StoredReport> load_report(const ReportRequest& request) {
  TRY(auto store, open_store(request.store_dir));
  TRY(std::string id, resolve_run(*store, {request.run, request.workspace, request.any}));
  TRY(store::StoredRun run, store->load(id));
  return StoredReport{id, store->dir(), std::move(run)};
}

std::map<std::string, std::string> report_diffs(const StoredReport& report) {
  std::map<std::string, std::string> diffs;
  auto facts = run_facts_from_json(report.run.facts);
  if (!facts.ok()) return diffs;
  auto snapshots = snapshot::SnapshotStore::open(report.store_dir, facts->workspace, system_clock());
  if (!snapshots.ok()) return diffs;
  // This process did not see the run start: its credentials are read back from the snapshot.
  auto credentials = snapshot::run_credentials((*snapshots)->trees(), *facts, ::environ);
  std::vector<std::string> paths;
  for (const auto& m : facts->mutations) {
    if (m.credential || sandbox::looks_secret(m.path)) continue;  // render_html withholds it; do not even load it
    paths.push_back(m.path);
  }
  auto patches = (*snapshots)->trees().patch_texts(facts->snapshot_before, facts->snapshot_after, paths, 64 * 1024);
  if (!patches.ok()) return diffs;
  for (auto& [path, patch] : *patches) diffs[path] = credentials->masker()->mask(patch);
  return diffs;
}

}  // namespace candor::app
