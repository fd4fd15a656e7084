#include "snapshot/fsmonitor_start.h"

#include <cstdio>
#include <set>

#include <fmt/format.h>

namespace candor::snapshot {

std::string watchman_daemon_name(const WatchmanDaemon& d) { return fmt::format("watchman:{}:{}", d.pid, d.started); }

std::optional<WatchmanDaemon> watchman_daemon_from(const std::string& name) {
  unsigned long long pid = 0, started = 0;
  if (std::sscanf(name.c_str(), "watchman:%llu:%llu", &pid, &started) != 2) return std::nullopt;
  return WatchmanDaemon{.pid = static_cast<int>(pid), .started = started};
}

namespace {

std::string changed_ignore_file(const std::set<std::string>& paths) {
  for (const auto& path : paths) {
    if (path == ".gitignore" || path.ends_with("/.gitignore")) return path;
  }
  return "";
}

}  // namespace

Result<FsmonitorStart> first_scan_by_watchman(SnapshotStore& snapshots, const std::string& root,
                                              std::chrono::milliseconds timeout) {
  FsmonitorStart out;
  auto watchman = Watchman::connect(root, timeout);
  if (!watchman.ok()) {
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    out.unavailable = watchman.error().message;
    out.reason = out.unavailable;
    return out;
  }
  out.daemon = watchman_daemon_name(watchman->daemon());
  std::optional<SnapshotStore::FsmonitorBase> base = snapshots.fsmonitor_base();
  if (!base) {
    out.reason =
        "no Watchman clock was saved with the snapshot index (a first start, or another process saved the "
        "index without one)";
  } else if (base->daemon != out.daemon) {
    out.reason = "the clock saved with the snapshot index is another Watchman's (it restarted)";
  } else if (!snapshots.ignore_as_saved()) {
    // A pattern gone lets the scans take in files no scan looked at, which no answer names.
    out.reason = "config snapshot.ignore is not what the snapshot index was saved with";
  } else if (std::string unwatched = snapshots.has_change_events() ? snapshots.watch_from_base() : "";
             !unwatched.empty()) {
    out.reason = unwatched;
  } else if (auto changes = watchman->changes_since(base->clock, watchman->daemon()); !changes.ok()) {
    out.reason = changes.error().message;
  } else if (auto rules = changed_ignore_file(changes->paths); !rules.empty()) {
    // Which folders a scan enters follows the .gitignore files: with one changed, a folder no scan
    // entered may now be taken in (or the reverse), and no change inside it is named.
    out.reason = "`" + rules + "` changed since the saved clock: what the scans enter may have changed";
  } else {
    auto scanned = snapshots.scan_changed(changes->paths);
    if (!scanned.ok()) return scanned.error();
    out.clock = changes->clock;
    out.changed = std::move(changes->paths);
  }
  if (out.clock.empty()) {
    // Taken before the walk looks: whatever changes while it walks, the next answer names.
    auto fresh = watchman->clock();
    auto scanned = snapshots.scan();
    if (!scanned.ok()) return scanned.error();
    if (!fresh.ok()) {
      out.unavailable = fresh.error().message;
      out.reason = out.unavailable;
      return out;
    }
    out.clock = *fresh;
  }
  snapshots.keep_fsmonitor_base({.clock = out.clock, .daemon = out.daemon});
  return out;
}

}  // namespace candor::snapshot
