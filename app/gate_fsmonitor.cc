#include "app/gate_fsmonitor.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "snapshot/fsmonitor_start.h"
#include "snapshot/watchman.h"

namespace candor::app {

Result<nlohmann::json> scan_turn_start(snapshot::SnapshotStore& snapshots, const std::string& root,
                                       const std::string& fsmonitor, std::chrono::milliseconds timeout,
                                       std::vector<std::string>& warnings) {
  if (fsmonitor != "watchman") {
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    return nlohmann::json();
  }
  TRY(snapshot::FsmonitorStart start, snapshot::first_scan_by_watchman(snapshots, root, timeout));
  if (start.clock.empty()) {
    // Without a clock the stop walks too, and its report says why (the start's reason).
    warnings.push_back("snapshot.fsmonitor: " + start.unavailable +
                       (start.daemon.empty() ? "; the turn's start and stop walk" : "; the turn's stop walks"));
    return nlohmann::json{{"looked", "walk"}, {"reason", start.reason}};
  }
  return nlohmann::json{{"clock", start.clock},
                        {"daemon", start.daemon},
                        {"linked", snapshots.linked_files()},
                        {"looked", start.reason.empty() ? "watchman" : "walk"},
                        {"reason", start.reason}};
}

Status scan_turn_stop(snapshot::SnapshotStore& snapshots, const std::string& root, const nlohmann::json& start,
                      std::chrono::milliseconds timeout, ScanCoverage& scan) {
  std::string reason;
  std::optional<std::set<std::string>> named;
  if (start.is_object() && !start.value("clock", nlohmann::json()).is_string()) {
    reason = "the turn's start got no Watchman clock (" + start.value("reason", std::string("no reason given")) + ")";
  } else if (start.is_object()) {
    auto expected = snapshot::watchman_daemon_from(start.value("daemon", ""));
    auto watchman = snapshot::Watchman::connect(root, timeout);
    if (!expected) {
      reason = "watchman: the turn's start recorded no daemon";
    } else if (!watchman.ok()) {
      reason = watchman.error().message;
    } else if (auto changes = watchman->changes_since(start["clock"].get<std::string>(), *expected); !changes.ok()) {
      reason = changes.error().message;
    } else {
      named = std::move(changes->paths);
      // A write through another name of a file is seen by a look at this one alone.
      if (const auto& linked = start.value("linked", nlohmann::json::array()); linked.is_array()) {
        for (const auto& path : linked) {
          if (path.is_string()) named->insert(path.get<std::string>());
        }
      }
    }
  }
  if (named) {
    auto scanned = snapshots.scan_changed(*named);
    if (!scanned.ok()) return scanned.error();
    scan.by_events = 1;
    scan.fsmonitor = "watchman";
    // The index saved now, with what changed since the start's clock looked at again, is what the
    // next start's scan would find: the start's clock stays its base.
    snapshots.keep_fsmonitor_base({.clock = start["clock"].get<std::string>(), .daemon = start.value("daemon", "")});
    return ok_status();
  }
  auto scanned = snapshots.scan();
  if (!scanned.ok()) return scanned.error();
  if (!reason.empty()) scan.full_walks.push_back({.step = "", .reason = reason});
  return ok_status();
}

}  // namespace candor::app
