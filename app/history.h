// The recorded runs, read back: `candor runs` (the list) and `candor report` (one run's report,
// its events, and for the HTML rendering its diffs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "store/run_store.h"

namespace candor::app {

struct RunsRequest {
  std::string store_dir;  // "" = store::default_store_dir()
  int limit = 20;
  std::string verdict;  // "" = any
  std::string since;    // "2d", "12h", "30m", or an RFC 3339 time; "" = any
  std::string source;   // run | exec | git | gate | eval; "" = any
};

struct RunList {
  std::string store_dir;                // the store read (its folder, or its URL with the password masked)
  std::vector<store::RunSummary> runs;  // newest first
};

// An error: the store could not be opened or read, or `since` is no age or time (kUsage).
Result<RunList> list_runs(const RunsRequest& request);

// The list as `runs --json` prints it: one object per run (run_id, created_at, goal, workspace,
// status, verdict and verdict_by, null until the run ends; source, null until it ends; machine).
nlohmann::json to_json(const RunList& list);

struct ReportRequest {
  std::string run = "last";  // an id, a unique prefix or suffix, or "last"
  std::string store_dir;     // "" = store::default_store_dir()
  // Whose run "last" is (docs/design.md, "The CLI"): the latest of `workspace` ("" = the current
  // folder), or with `any` the store's latest, whatever its workspace. Ids name a run anywhere.
  std::string workspace;
  bool any = false;
};

struct StoredReport {
  std::string run_id;
  std::string store_dir;
  store::StoredRun run;  // `report` null or discarded: the run never ended (killed, or still running)
};

Result<StoredReport> load_report(const ReportRequest& request);

// The patch of each file the run changed, masked with the run's credentials as read back from its
// snapshot; credential files are left out (the HTML report withholds them). Empty when the run
// has no facts or its snapshots cannot be opened.
std::map<std::string, std::string> report_diffs(const StoredReport& report);

}  // namespace candor::app
