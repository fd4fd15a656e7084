#include "app/gate_fsmonitor.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "snapshot/watchman.h"

namespace candor::app {
namespace {

std::string daemon_name(const snapshot::WatchmanDaemon& d) { return fmt::format("watchman:{}:{}", d.pid, d.started); }

std::optional<snapshot::WatchmanDaemon> daemon_from(const std::string& name) {
  unsigned long long pid = 0, started = 0;
  if (std::sscanf(name.c_str(), "watchman:%llu:%llu", &pid, &started) != 2) return std::nullopt;
  return snapshot::WatchmanDaemon{.pid = static_cast<int>(pid), .started = started};
}

}  // namespace

Result<nlohmann::json> scan_turn_start(snapshot::SnapshotStore& snapshots, const std::string& root,
                                       const std::string& fsmonitor, std::chrono::milliseconds timeout,
                                       std::vector<std::string>& warnings) {
  if (fsmonitor != "watchman") {
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    return nlohmann::json();
  }
  // Without a clock the stop walks too, and its report says why (the start's reason).
  auto no_clock = [](const std::string& why) { return nlohmann::json{{"looked", "walk"}, {"reason", why}}; };
  auto watchman = snapshot::Watchman::connect(root, timeout);
  if (!watchman.ok()) {
    warnings.push_back("snapshot.fsmonitor: " + watchman.error().message + "; the turn's start and stop walk");
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    return no_clock(watchman.error().message);
  }
  std::string daemon = daemon_name(watchman->daemon());
  std::string clock, reason;
  std::optional<snapshot::SnapshotStore::FsmonitorBase> base = snapshots.fsmonitor_base();
  if (!base) {
    reason = "no Watchman clock was saved with the snapshot index (a first turn, or a run saved it since)";
  } else if (base->daemon != daemon) {
    reason = "the clock saved with the snapshot index is another Watchman's (it restarted)";
  } else if (auto changes = watchman->changes_since(base->clock, watchman->daemon()); !changes.ok()) {
    reason = changes.error().message;
  } else {
    auto scanned = snapshots.scan_changed(changes->paths);
    if (!scanned.ok()) return scanned.error();
    clock = changes->clock;
  }
  if (clock.empty()) {
    // Taken before the walk looks: whatever changes while it walks, the next answer names.
    auto fresh = watchman->clock();
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    if (!fresh.ok()) {
      warnings.push_back("snapshot.fsmonitor: " + fresh.error().message + "; the turn's stop walks");
      return no_clock(fresh.error().message);
    }
    clock = *fresh;
  }
  snapshots.keep_fsmonitor_base({.clock = clock, .daemon = daemon});
  return nlohmann::json{{"clock", clock},
                        {"daemon", daemon},
                        {"linked", snapshots.linked_files()},
                        {"looked", reason.empty() ? "watchman" : "walk"},
                        {"reason", reason}};
}

Status scan_turn_stop(snapshot::SnapshotStore& snapshots, const std::string& root, const nlohmann::json& start,
                      std::chrono::milliseconds timeout, ScanCoverage& scan) {
  std::string reason;
  std::optional<std::set<std::string>> named;
  if (start.is_object() && !start.value("clock", nlohmann::json()).is_string()) {
    reason = "the turn's start got no Watchman clock (" + start.value("reason", std::string("no reason given")) + ")";
  } else if (start.is_object()) {
    auto expected = daemon_from(start.value("daemon", ""));
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
