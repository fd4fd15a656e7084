// The scans' change events (docs/design.md, "Change detection in O(changes)"): the watches asked
// for, what the events named since the last call, and the rules a named path is taken by.
#include "snapshot/store.h"
#include "snapshot/store_impl.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace candor::snapshot {

bool SnapshotStore::Impl::reaches(std::string_view path) {
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
    if (!enters(path.substr(0, slash + 1))) return false;
  }
  return true;
}

void SnapshotStore::Impl::note_linked(const std::set<std::string>& found) {
  std::set<std::uint32_t> inodes;
  for (const auto& path : found) {
    if (linked.insert(path).second) {
      if (std::size_t pos = index.find(path); pos != StatIndex::npos) inodes.insert(index.at(pos).ino);
    }
  }
  if (inodes.empty()) return;
  // A name new to the set: its other names in the workspace are found once, by inode (the index
  // keeps 32 bits of it, so a stranger may come along: looked at for nothing).
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (inodes.count(index.at(i).ino) != 0) linked.emplace(index.at(i).path);
  }
}

void SnapshotStore::watch_changes(std::size_t max_watches) {
  Impl& m = *impl_;
  ChangeEventsOptions options;
  // Every folder but the store's: the snapshot's scans take what their rules enter of what the
  // events name, and changes_since_last_call() answers for ignored folders too.
  options.enter = [&m](std::string_view dir) { return dir != m.skip_dir; };
  options.max_watches = max_watches;
  auto events = ChangeEvents::start(m.workdir, std::move(options));
  if (events.ok()) {
    m.events = std::move(events.value());
  } else {
    m.events_off = "no change events: " + events.error().message;
  }
}

bool SnapshotStore::has_change_events() const { return impl_->events != nullptr; }

void SnapshotStore::distrust_events(const std::string& reason) {
  if (impl_->distrusted.empty()) impl_->distrusted = reason;
}

const SnapshotStore::ScanWay& SnapshotStore::last_scan() const { return impl_->last_way; }

std::optional<std::set<std::string>> SnapshotStore::changes_since_last_call() {
  Impl& m = *impl_;
  if (!m.events || !m.started) return std::nullopt;
  ChangeSet drained = m.events->drain();
  m.named_since_call.insert(drained.changed_paths.begin(), drained.changed_paths.end());
  bool complete = m.since_call_complete && drained.complete && m.distrusted.empty();
  if (m.pending) {
    m.pending->changed_paths.merge(drained.changed_paths);
    if (!drained.complete) {
      m.pending->reason += (m.pending->reason.empty() ? "" : "; ") + drained.reason;
      m.pending->complete = false;
    }
  } else {
    m.pending = std::move(drained);
  }
  std::set<std::string> out = std::move(m.named_since_call);
  m.named_since_call.clear();
  m.since_call_complete = true;
  if (!complete) return std::nullopt;
  return out;
}

}  // namespace candor::snapshot
