// A handle's first scan between processes (docs/design.md, "Change detection in O(changes)"):
// with config snapshot.fsmonitor "watchman", a run's start and a gate turn's start ask Watchman
// what changed since the base saved with the snapshot index and look there alone; any doubt walks,
// after taking a fresh clock, and says why. The clock to save with the index is kept either way.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "core/result.h"
#include "snapshot/store.h"
#include "snapshot/watchman.h"

namespace candor::snapshot {

// How long a hook or a run waits for Watchman's answer before it walks instead (a daemon stopped
// with SIGSTOP costs at most this, below every hook's timeout).
inline constexpr std::chrono::milliseconds kWatchmanTimeout{5000};

struct FsmonitorStart {
  std::string clock;              // kept as the next base: taken before the scan looked ("": Watchman gave none)
  std::string daemon;             // who gave it (watchman_daemon_name)
  std::string reason;             // why the scan walked; "" when it looked by Watchman's answer
  std::set<std::string> changed;  // that answer: what changed since the saved base (when it looked by it)
  // Why no daemon answered at all ("" when one did): the caller says it as a warning.
  std::string unavailable;
};

// The first scan of `snapshots` (nothing scanned yet) of the workspace at `root`: by Watchman's
// answer since the saved base when it can give one, else a walk after a fresh clock. A handle with
// change events (a run's) watches the base's folders before it asks (SnapshotStore::
// watch_from_base()), and walks when it cannot. An error only when the scan itself fails.
Result<FsmonitorStart> first_scan_by_watchman(SnapshotStore& snapshots, const std::string& root,
                                              std::chrono::milliseconds timeout);

// "watchman:PID:START", as a base and a gate's start record name the daemon; and back.
std::string watchman_daemon_name(const WatchmanDaemon& daemon);
std::optional<WatchmanDaemon> watchman_daemon_from(const std::string& name);

}  // namespace candor::snapshot
