// The whole modes a run's scans saw (folders, files, FIFOs and sockets) and what changed in them:
// SnapshotStore's access_changes(), special_changes(), created_folders() and the rest (store.h).
#include "snapshot/store.h"
#include "snapshot/store_impl.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace candor::snapshot {

void SnapshotStore::Impl::note_folders(const Walked& w) {
  if (w.partial) return note_folders_looked_at(w);
  std::map<std::string, Access> now;
  for (const auto& f : w.folders) now[f.path.empty() ? "./" : f.path] = {f.mode, f.uid, f.gid};
  // A folder the walk could not list is not gone: what was known of it stands.
  for (const auto& u : w.unread) {
    if (auto it = folder_modes_now.find(u); it != folder_modes_now.end()) now.insert(*it);
  }
  folder_modes_now = std::move(now);
  if (!started) folder_modes_start = folder_modes_now;
  std::map<std::string, Access> specials;
  for (const auto& s : w.specials) {
    // Like a new file, one made during the run where the frozen rules ignore it is not listed.
    if (started && specials_start.count(s.path) == 0 && is_ignored(s.path)) continue;
    specials[s.path] = {s.mode, s.uid, s.gid};
  }
  // One in a folder the walk could not list is not gone.
  for (const auto& [path, access] : specials_now) {
    if (hidden_by_unread(w.unread, path)) specials.insert({path, access});
  }
  specials_now = std::move(specials);
  if (!started) specials_start = specials_now;
  for (const auto& g : w.git_entries) {
    if (g != ".git") git_entries.insert(g);
  }
}

void SnapshotStore::Impl::note_folders_looked_at(const Walked& w) {
  // What the walks of the named folders found replaces what was known beneath them (but where they
  // could not list); a file looked at alone is no FIFO any more unless it was found one again.
  auto forget_beneath = [&w](std::map<std::string, Access>& known, const std::string& dir) {
    auto from = known.lower_bound(dir), to = known.lower_bound(dir + '\xff');
    for (auto it = from; it != to;) it = hidden_by_unread(w.unread, it->first) ? std::next(it) : known.erase(it);
  };
  for (const auto& dir : w.walked_folders) {
    forget_beneath(folder_modes_now, dir);
    forget_beneath(specials_now, dir);
  }
  for (const auto& path : w.looked_files) {
    if (!hidden_by_unread(w.unread, path)) specials_now.erase(path);
  }
  for (const auto& f : w.folders) folder_modes_now[f.path.empty() ? "./" : f.path] = {f.mode, f.uid, f.gid};
  for (const auto& s : w.specials) {
    if (specials_start.count(s.path) == 0 && is_ignored(s.path)) continue;
    specials_now[s.path] = {s.mode, s.uid, s.gid};
  }
  for (const auto& g : w.git_entries) {
    if (g != ".git") git_entries.insert(g);
  }
}

std::vector<SnapshotStore::AccessChange> SnapshotStore::access_changes() const {
  const Impl& m = *impl_;
  std::vector<AccessChange> out;
  if (m.resumed) return out;
  for (const auto& [path, before] : m.file_modes_start) {
    std::size_t pos = m.index.find(path);
    if (pos == StatIndex::npos || m.index.at(pos).full_mode == 0) continue;  // gone: a deletion says it
    Access after = Impl::access_of(m.index.at(pos));
    if (after != before) out.push_back({path, before, after});
  }
  for (const auto& [path, before] : m.folder_modes_start) {
    auto now = m.folder_modes_now.find(path);
    if (now != m.folder_modes_now.end() && now->second != before) out.push_back({path, before, now->second});
  }
  std::sort(out.begin(), out.end(), [](const AccessChange& a, const AccessChange& b) { return a.path < b.path; });
  return out;
}

std::vector<SnapshotStore::AccessChange> SnapshotStore::special_changes() const {
  const Impl& m = *impl_;
  std::vector<AccessChange> out;
  if (m.resumed) return out;
  for (const auto& [path, before] : m.specials_start) {
    auto now = m.specials_now.find(path);
    if (now == m.specials_now.end()) {
      out.push_back({path, before, {}});
    } else if (now->second != before) {
      out.push_back({path, before, now->second});
    }
  }
  for (const auto& [path, after] : m.specials_now) {
    if (m.specials_start.count(path) == 0) out.push_back({path, {}, after});
  }
  std::sort(out.begin(), out.end(), [](const AccessChange& a, const AccessChange& b) { return a.path < b.path; });
  return out;
}

std::vector<SnapshotStore::AccessChange> SnapshotStore::created_folders() const {
  const Impl& m = *impl_;
  std::vector<AccessChange> out;
  if (m.resumed) return out;
  for (const auto& [path, access] : m.folder_modes_now) {
    if (m.folder_modes_start.count(path) == 0) out.push_back({path, {}, access});
  }
  return out;
}

std::optional<SnapshotStore::Access> SnapshotStore::access_now(const std::string& path) const {
  const Impl& m = *impl_;
  if (!path.empty() && path.back() == '/') {
    auto it = m.folder_modes_now.find(path);
    return it == m.folder_modes_now.end() ? std::nullopt : std::optional<Access>(it->second);
  }
  std::size_t pos = m.index.find(path);
  if (pos == StatIndex::npos || m.index.at(pos).full_mode == 0) return std::nullopt;
  return Impl::access_of(m.index.at(pos));
}

std::optional<SnapshotStore::Access> SnapshotStore::access_at_start(const std::string& path) const {
  const Impl& m = *impl_;
  if (!path.empty() && path.back() == '/') {
    auto it = m.folder_modes_start.find(path);
    return it == m.folder_modes_start.end() ? std::nullopt : std::optional<Access>(it->second);
  }
  if (auto it = m.file_modes_start.find(path); it != m.file_modes_start.end()) return it->second;
  return access_now(path);  // unchanged since the start
}

const std::set<std::string>& SnapshotStore::nested_git() const { return impl_->git_entries; }

}  // namespace candor::snapshot
