// `candor gc`: the runs the policy lets go removed from the store, then the snapshot objects only
// they used (snapshot/gc.h says how a gc killed half-way stays safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "snapshot/gc.h"
#include "store/retention.h"

namespace candor::app {

struct GcRequest {
  std::string store_dir;    // "" = store::default_store_dir()
  std::optional<int> keep;  // --keep N: the newest N runs stay
  std::string older_than;   // --older-than AGE ("90d"): older runs go; "" = any age
  bool dry_run = false;     // change nothing; say what would go
};

// What happened to the snapshot repositories, summed.
struct GcTotals {
  std::size_t objects_removed = 0, not_in_store = 0, packed = 0, removed = 0, in_use = 0, failed = 0;
};

struct GcResult {
  bool dry_run = false;
  std::string store;               // the store's folder
  bool found = false;              // false: there is no store at `store`, and nothing was done
  store::RetentionChoice runs;     // the runs removed (in a dry run: that would be), kept, kept as maybe running
  snapshot::SnapshotGc snapshots;  // each repository, and the leftovers of dead candors removed
  GcTotals totals;
  std::vector<std::string> failures;  // why each repository that could not be collected was not (left valid)
  std::uint64_t bytes_before = 0;
  std::optional<std::uint64_t> bytes_after;  // nullopt in a dry run
  bool database_shrinks = false;             // false: the database keeps its free pages (it predates candor gc)
};

// kUsage without --keep and --older-than, or with an age that does not parse; an error of the
// store before anything was removed. A repository that could not be collected is in `failures`.
Result<GcResult> collect_garbage(const GcRequest& request);

// `gc --json`: dry_run, store, runs {removed, kept, kept_running}, repositories, leftovers,
// objects_removed, bytes_before/after/freed, database_shrinks; for no store, its `message`.
nlohmann::json to_json(const GcResult& result);

}  // namespace candor::app
