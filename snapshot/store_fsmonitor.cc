// The fsmonitor base saved with the index (docs/design.md, "Change detection in O(changes)",
// between processes): `index.fsmonitor` beside the index names the clock after which every change
// must be looked at, the index's checksum it was saved with (another save without it leaves it
// describing nothing), and what a scan that looks only at the changed paths cannot learn from the
// others: their notable modes, the files with another name, the repositories below the root.
#include "snapshot/store.h"
#include "snapshot/store_impl.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "snapshot/pack_writer.h"

namespace candor::snapshot {
namespace {

constexpr const char* kFsmonitorFile = "index.fsmonitor";

// Modes a tree cannot hold that the gate compares (setuid, setgid, sticky, others' or the group's
// write): saved for the files a later scan will not look at.
bool notable(std::uint32_t full_mode) { return (full_mode & 07022) != 0; }

using Whole = FsmonitorWhole;
using Access = SnapshotStore::Access;

nlohmann::json accesses_to_json(const std::map<std::string, Access>& accesses) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [path, a] : accesses) out[path] = {a.mode, a.uid, a.gid};
  return out;
}

bool accesses_from_json(const nlohmann::json& j, std::map<std::string, Access>& out) {
  if (!j.is_object()) return false;
  for (const auto& [path, a] : j.items()) {
    if (!a.is_array() || a.size() != 3) return false;
    for (const auto& n : a) {
      if (!n.is_number_unsigned() || n.get<std::uint64_t>() > UINT32_MAX) return false;
    }
    out[path] = {a[0].get<std::uint32_t>(), a[1].get<std::uint32_t>(), a[2].get<std::uint32_t>()};
  }
  return true;
}

// A workspace-relative path that stays inside: not empty, no "/" first, no ".." component.
bool relative_inside(const std::string& rel) {
  if (rel.empty() || rel.front() == '/') return false;
  std::size_t at = 0;
  while (at <= rel.size()) {
    std::size_t slash = rel.find('/', at);
    if (slash == std::string::npos) slash = rel.size();
    if (rel.compare(at, slash - at, "..") == 0 && slash - at == 2) return false;
    at = slash + 1;
  }
  return true;
}

// A damaged or partial list is none: the next run's start walks.
std::optional<Whole> whole_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  Whole w;
  if (!accesses_from_json(j.value("folders", nlohmann::json()), w.folders) ||
      !accesses_from_json(j.value("specials", nlohmann::json()), w.specials))
    return std::nullopt;
  const nlohmann::json& watched = j.value("watched", nlohmann::json());
  const nlohmann::json& mounts = j.value("mounts", nlohmann::json());
  if (!watched.is_array() || !mounts.is_array()) return std::nullopt;
  for (const auto& f : watched) {
    // "" (the root) or a relative folder "a/b/".
    if (!f.is_string()) return std::nullopt;
    const std::string& rel = f.get_ref<const std::string&>();
    if (!rel.empty() && (rel.back() != '/' || !relative_inside(rel))) return std::nullopt;
    w.watched.folders.push_back(rel);
  }
  for (const auto& m : mounts) {
    if (!m.is_string()) return std::nullopt;
    w.watched.mounts.insert(m.get<std::string>());
  }
  if (const auto& c = j.value("credentials", nlohmann::json()); !c.is_null()) {
    const nlohmann::json& files = c.value("files", nlohmann::json());
    const nlohmann::json& ids = c.value("identities", nlohmann::json());
    const nlohmann::json& rules = c.value("rules", nlohmann::json());
    if (!files.is_array() || !ids.is_array() || !rules.is_string()) return std::nullopt;
    SnapshotStore::SavedCredentials saved;
    saved.rules = rules.get<std::string>();
    for (const auto& f : files) {
      if (!f.is_string() || !relative_inside(f.get_ref<const std::string&>())) return std::nullopt;
      saved.files.push_back(f.get<std::string>());
    }
    for (const auto& id : ids) {
      if (!id.is_array() || id.size() != 2 || !id[0].is_number_unsigned() || !id[1].is_number_unsigned())
        return std::nullopt;
      saved.identities.emplace_back(id[0].get<std::uint64_t>(), id[1].get<std::uint64_t>());
    }
    w.credentials = std::move(saved);
  }
  return w;
}

nlohmann::json whole_to_json(const Whole& w) {
  nlohmann::json j = {{"folders", accesses_to_json(w.folders)},
                      {"specials", accesses_to_json(w.specials)},
                      {"watched", w.watched.folders},
                      {"mounts", w.watched.mounts}};
  if (w.credentials)
    j["credentials"] = {
        {"files", w.credentials->files}, {"identities", w.credentials->identities}, {"rules", w.credentials->rules}};
  return j;
}

}  // namespace

void SnapshotStore::Impl::load_fsmonitor(const std::string& repo_path) {
  std::ifstream in(repo_path + "/" + kFsmonitorFile, std::ios::binary);
  if (!in) return;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto j = nlohmann::json::parse(text, nullptr, false);
  // Only a base saved with this very index counts; a damaged file is no base (the scan walks).
  if (!j.is_object() || index.checksum().empty() || j.value("index", "") != index.checksum()) return;
  FsmonitorSaved saved;
  saved.base.clock = j.value("clock", "");
  saved.base.daemon = j.value("daemon", "");
  if (saved.base.clock.empty() || saved.base.daemon.empty()) return;
  auto strings = [&j](const char* key, std::vector<std::string>& out) {
    if (!j.contains(key) || !j[key].is_array()) return false;
    for (const auto& v : j[key]) {
      if (!v.is_string()) return false;
      out.push_back(v.get<std::string>());
    }
    return true;
  };
  if (!strings("linked", saved.linked) || !strings("nested_git", saved.nested_git)) return;
  if (!j.contains("modes") || !j["modes"].is_object()) return;
  for (const auto& [path, mode] : j["modes"].items()) {
    if (!mode.is_number_unsigned()) return;
    saved.modes[path] = mode.get<std::uint32_t>();
  }
  saved.whole = whole_from_json(j.value("whole", nlohmann::json()));
  fsmonitor_saved = std::move(saved);
}

Status SnapshotStore::Impl::save_fsmonitor(const std::string& repo_path, const std::optional<FsmonitorSaved>& carry) {
  if (!fsmonitor_keep || !unread.empty() || index.checksum().empty()) return ok_status();
  if (fsmonitor_saved && fsmonitor_saved->base == *fsmonitor_keep) return ok_status();
  FsmonitorSaved saved{.base = *fsmonitor_keep,
                       .linked = std::vector<std::string>(linked.begin(), linked.end()),
                       .modes = {},
                       .nested_git = std::vector<std::string>(git_entries.begin(), git_entries.end()),
                       .whole = std::nullopt};
  for (std::size_t i = 0; i < index.size(); ++i) {
    const StatEntry& e = index.at(i);
    if (notable(e.full_mode)) saved.modes[std::string(e.path)] = e.full_mode;
  }
  if (!fsmonitor_modes_all) {
    // The files no scan of this handle looked at are as the kept base's save knew them.
    if (!carry || carry->base != *fsmonitor_keep) return ok_status();
    for (const auto& [path, mode] : carry->modes) {
      std::size_t pos = index.find(path);
      if (pos != StatIndex::npos && index.at(pos).full_mode == 0) saved.modes[path] = mode;
    }
    std::set<std::string> nested(saved.nested_git.begin(), saved.nested_git.end());
    nested.insert(carry->nested_git.begin(), carry->nested_git.end());
    saved.nested_git.assign(nested.begin(), nested.end());
  }
  // A run's handle knows every folder and special file (resume() forgets them), and its watches
  // are every folder's unless they say otherwise.
  if (!resumed && events) {
    if (auto watched = events->watch_list())
      saved.whole = Whole{folder_modes_now, specials_now, std::move(*watched), credentials_keep};
  }
  nlohmann::json j = {{"clock", saved.base.clock}, {"daemon", saved.base.daemon}, {"index", index.checksum()},
                      {"linked", saved.linked},    {"modes", saved.modes},        {"nested_git", saved.nested_git}};
  if (saved.whole) j["whole"] = whole_to_json(*saved.whole);
  TRY_STATUS(write_file_atomically(repo_path, kFsmonitorFile, j.dump() + "\n", false));
  fsmonitor_saved = std::move(saved);
  return ok_status();
}

std::optional<SnapshotStore::FsmonitorBase> SnapshotStore::fsmonitor_base() const {
  if (!impl_->fsmonitor_saved) return std::nullopt;
  return impl_->fsmonitor_saved->base;
}

bool SnapshotStore::ignore_as_saved() const { return impl_->open_ignore == impl_->index_ignore; }

void SnapshotStore::keep_fsmonitor_base(FsmonitorBase base) { impl_->fsmonitor_keep = std::move(base); }

void SnapshotStore::keep_credentials(SavedCredentials credentials) { impl_->credentials_keep = std::move(credentials); }

std::optional<SnapshotStore::SavedCredentials> SnapshotStore::saved_credentials() const {
  if (!impl_->fsmonitor_saved || !impl_->fsmonitor_saved->whole) return std::nullopt;
  return impl_->fsmonitor_saved->whole->credentials;
}

std::vector<std::string> SnapshotStore::linked_files() const {
  return std::vector<std::string>(impl_->linked.begin(), impl_->linked.end());
}

std::string SnapshotStore::watch_from_base() {
  Impl& m = *impl_;
  if (m.scanned || !m.events) return "no change events to watch with";
  if (!m.fsmonitor_saved || !m.fsmonitor_saved->whole)
    return "the base saved with the snapshot index lists no folders to watch (a gate's turn saved it, or its watches "
           "were not complete)";
  std::string why = m.events->watch_folders(m.fsmonitor_saved->whole->watched);
  if (why.empty()) m.base_watched = true;
  return why;
}

// A run's start from a watched base: the folders and special files as the base lists them, the
// folders the fsmonitor named looked at again (a mode changed, or it went: then nothing the base
// lists beneath it stands), and those the base does not list named for a walk of their own.
void SnapshotStore::Impl::take_whole_base(const std::set<std::string>& changed, std::set<std::string>& named) {
  const FsmonitorWhole& whole = *fsmonitor_saved->whole;
  folder_modes_now = whole.folders;
  specials_now = whole.specials;
  auto forget_beneath = [](std::map<std::string, Access>& known, const std::string& dir) {
    known.erase(known.lower_bound(dir), known.lower_bound(dir + '\xff'));
  };
  for (const auto& path : changed) {
    if (path.empty() || path.back() != '/') continue;
    const std::string key = path == "/" ? "./" : path;
    // A folder the base did not watch is watched now, with those beneath it, ignored ones too (as
    // a drain does a folder that appeared): the scans' walk enters only what it takes in.
    if (key != "./" && !std::binary_search(whole.watched.folders.begin(), whole.watched.folders.end(), path))
      events->watch_tree(path);
    if (whole.folders.count(key) == 0) {
      named.insert(path);  // walked whole where the scans enter it
      continue;
    }
    Opened dir = root->open(key == "./" ? "" : path.substr(0, path.size() - 1), O_RDONLY | O_DIRECTORY);
    struct stat st {};
    if (dir.fd.valid() && ::fstat(dir.fd.get(), &st) == 0) {
      folder_modes_now[key] = {st.st_mode, st.st_uid, st.st_gid};
    } else if (key != "./") {
      forget_beneath(folder_modes_now, path);
      forget_beneath(specials_now, path);
    }
  }
}

Result<std::vector<std::string>> SnapshotStore::scan_changed(const std::set<std::string>& changed) {
  Impl& m = *impl_;
  std::set<std::string> named;
  if (!m.started) {
    // A turn's start: what the saved base knew of the files this scan will not look at.
    if (!m.fsmonitor_saved || m.scanned)
      return make_error(ErrorCode::kInternal, "snapshot: a first scan_changed() needs the fsmonitor base saved");
    for (const auto& [path, mode] : m.fsmonitor_saved->modes) {
      std::size_t pos = m.index.find(path);
      if (pos != StatIndex::npos && m.index.at(pos).full_mode == 0) m.index.set_full_mode(pos, mode);
    }
    m.linked.insert(m.fsmonitor_saved->linked.begin(), m.fsmonitor_saved->linked.end());
    m.git_entries.insert(m.fsmonitor_saved->nested_git.begin(), m.fsmonitor_saved->nested_git.end());
    // Without a watched base no walk listed the folders and special files: nothing is said of them.
    if (m.base_watched) {
      m.take_whole_base(changed, named);
    } else {
      m.resumed = true;
    }
    m.fsmonitor_modes_all = true;
  }
  // A folder named ("a/b/") is not walked whole: the fsmonitor names its files one by one. It is
  // looked at only where the index holds a file or a link at its name, which it took the place of
  // (the scan then finds a folder there: the entry goes, and the folder is walked).
  for (const auto& path : changed) {
    if (path.empty() || path.back() != '/') {
      named.insert(path);
      continue;
    }
    std::string replaced = path.substr(0, path.size() - 1);
    if (!replaced.empty() && m.index.find(replaced) != StatIndex::npos) named.insert(std::move(replaced));
  }
  m.last_way = {.walked = false, .reason = ""};
  const bool first_from_base = !m.started && m.base_watched && !m.scanned;
  auto looked = look(&named, {});
  if (looked.ok() && first_from_base) {
    m.folder_modes_start = m.folder_modes_now;
    m.specials_start = m.specials_now;
    // The watches were placed before the fsmonitor answered: the first changes_since_last_call()
    // answers for everything since (what the caller looked at after this scan, say).
    m.since_call_complete = true;
  }
  return looked;
}

}  // namespace candor::snapshot
