// The gate's change source between its two hooks (docs/design.md, "Change detection in
// O(changes)"): with config snapshot.fsmonitor "watchman", a turn's start asks Watchman what changed
// since the last start's clock and looks there alone, and its stop what changed since the start's.
// Any doubt walks, and the stop names why: no daemon, another daemon than at the start, a clock of
// another instance, a recrawl, a name Watchman cannot give exactly. Private to app/.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/run_record.h"
#include "snapshot/fsmonitor_start.h"
#include "snapshot/store.h"

namespace candor::app {

// The start's scan, the handle's first. With `fsmonitor` "watchman": by the changes since the base
// saved with the index when Watchman can answer for them, else a walk after a fresh clock; the
// clock is kept with the index for the next start. Returns what the stop needs, for the start
// record ({"clock", "daemon", "linked", "looked": "watchman"|"walk", "reason"}; without "clock"
// when Watchman gave none; null without an fsmonitor), and says in `warnings` why it walked.
Result<nlohmann::json> scan_turn_start(snapshot::SnapshotStore& snapshots, const std::string& root,
                                       const std::string& fsmonitor, std::chrono::milliseconds timeout,
                                       std::vector<std::string>& warnings);

// The stop's scan, after resume(): by what changed since the start's clock (`start`, the start
// record's "fsmonitor"; null: walk), with the files that had another name at the start; else a walk
// whose reason goes to `scan`.full_walks. `scan`.by_events and .fsmonitor say when it did not walk.
Status scan_turn_stop(snapshot::SnapshotStore& snapshots, const std::string& root, const nlohmann::json& start,
                      std::chrono::milliseconds timeout, ScanCoverage& scan);

}  // namespace candor::app
