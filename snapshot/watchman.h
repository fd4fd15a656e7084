// The user's Watchman as the change source between processes (docs/design.md, "Change detection in
// O(changes)"): the gate's start and stop are two processes, and Watchman has watched the workspace
// meanwhile. It answers "what changed since clock C" over its socket (its JSON protocol, one line
// each way). The daemon is the agent's neighbour, not candor's: it is trusted only while it is the
// same process (its pid and start time, read from the socket's peer) running the `watchman` on
// PATH, a clock from another instance or a recrawl is no answer, and every failure is a reason to
// walk, never a silent empty change list.
#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include "core/result.h"
#include "sandbox/unique_fd.h"

namespace candor::snapshot {

// Which process answers on the socket: a daemon restarted (or replaced) between two calls is another.
struct WatchmanDaemon {
  int pid = 0;
  std::uint64_t started = 0;  // its start time, in clock ticks since boot (/proc/PID/stat field 22)
  bool operator==(const WatchmanDaemon&) const = default;
};

// What changed beneath the workspace since a clock.
struct WatchmanChanges {
  // Workspace-relative files, `.git` entries below the root ("vendor/lib/.git") for whatever
  // changed inside them, and folders ("a/b/") that changed. Watchman names each file made, changed
  // or removed in a folder, those of a folder moved in or out included; a folder named may have
  // taken the place of a file or a link of the same name.
  std::set<std::string> paths;
  std::string clock;  // the clock as of the answer: the next "since"
};

class Watchman {
 public:
  // Connects to the daemon serving this user (WATCHMAN_SOCK, else the socket `watchman
  // get-sockname` names, which starts a daemon when none runs) and makes it watch `root`
  // (absolute). An error, naming why, when there is none to ask or it is not the `watchman` on PATH.
  static Result<Watchman> connect(const std::string& root, std::chrono::milliseconds timeout);

  const WatchmanDaemon& daemon() const { return daemon_; }

  // The clock now, after Watchman has seen every change made before the call.
  Result<std::string> clock();

  // The paths changed since `clock`, seen by the same daemon as now. An error, the reason to walk,
  // when the answer cannot be complete: a clock of another instance (the daemon restarted, the
  // watch was dropped and made again), a recrawl (its events overflowed), a name it cannot give
  // exactly (not UTF-8), or a daemon other than `expected`.
  Result<WatchmanChanges> changes_since(const std::string& clock, const WatchmanDaemon& expected);

 private:
  Watchman() = default;
  Result<std::string> ask(const std::string& request);
  // An error when the watch ignores anything but the version control folders.
  Status check_config();

  sandbox::UniqueFd socket_;
  std::string root_;           // the watched root Watchman names paths beneath
  std::string relative_root_;  // the workspace beneath it ("" when it is the root)
  WatchmanDaemon daemon_;
  std::chrono::milliseconds timeout_{0};
};

}  // namespace candor::snapshot
