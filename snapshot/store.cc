#include "snapshot/store.h"
#include "snapshot/store_impl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <git2/sys/repository.h>

#include "snapshot/beneath.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_prefilter.h"
#include "snapshot/ignore_shadow.h"
#include "snapshot/pack_writer.h"
#include "snapshot/repository_lock.h"
#include "snapshot/snapshot_objects.h"
#include "snapshot/snapshot_repository.h"
#include "snapshot/tree_update.h"
#include "snapshot/workdir_walk.h"

namespace candor::snapshot {
namespace {

void init_once() { git_init_once(); }

std::string oid_str(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), &oid);
  return buf;
}

Result<git_oid> parse_oid(const std::string& s) {
  git_oid oid;
  if (git_oid_fromstr(&oid, s.c_str()) != 0)
    return make_error(ErrorCode::kInvalidInput, "snapshot: bad tree id \"" + s + "\"");
  return oid;
}

// Gitignore patterns relative to the workspace root, on top of the .gitignore files.
Status add_rules(git_repository* repo, const std::vector<std::string>& patterns) {
  std::string rules;
  for (const auto& p : patterns) rules += p + "\n";
  if (!rules.empty() && git_ignore_add_rule(repo, rules.c_str()) != 0) return git_failure("add snapshot.ignore rules");
  return ok_status();
}

// Beside the index: the snapshot.ignore patterns it was last pruned with, one a line.
constexpr const char* kIndexIgnore = "candor-index-ignore";

std::set<std::string> read_patterns(const std::string& path) {
  std::set<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

bool is_subset(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

// Whether a path can be in a snapshot at all, whatever the ignore rules say: the walk never
// looks into a `.git` or the root's `.candor` (both fingerprinted apart: protected_paths.cc), or
// the store (`skip_dir`). Nothing else is left out by its name.
bool snapshot_may_hold(std::string_view path, std::string_view skip_dir) {
  if (!skip_dir.empty() && path.substr(0, skip_dir.size()) == skip_dir) return false;
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view name = path.substr(start, end - start);
    if (name == ".git" || (start == 0 && name == ".candor")) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

SnapshotStore::SnapshotStore(std::unique_ptr<Impl> impl, std::string repo_path)
    : impl_(std::move(impl)), repo_path_(std::move(repo_path)) {}
SnapshotStore::~SnapshotStore() = default;

void init_git_once() { git_init_once(); }

std::string snapshot_repository_path(const std::string& store_dir, const std::string& workspace_root) {
  git_oid name_hash;
  git_odb_hash(&name_hash, workspace_root.data(), workspace_root.size(), GIT_OBJECT_BLOB);
  return fmt::format("{}/snapshots/{}.git", store_dir, oid_str(name_hash).substr(0, 16));
}

Result<std::unique_ptr<SnapshotStore>> SnapshotStore::open(const std::string& store_dir,
                                                           const std::string& workspace_root, Clock& clock,
                                                           const std::vector<std::string>& extra_ignore) {
  init_once();
  std::string repo_path = snapshot_repository_path(store_dir, workspace_root);
  auto impl = std::make_unique<Impl>();
  TRY(impl->in_use, RepositoryLock::shared(repo_path));
  if (git_repository_open_bare(impl->repo.out(), repo_path.c_str()) != 0) {
    TRY_STATUS(create_repository(repo_path, workspace_root));
    if (git_repository_open_bare(impl->repo.out(), repo_path.c_str()) != 0) return git_failure("open " + repo_path);
  }
  TRY_STATUS(use_own_config(impl->repo.get(), repo_path, repo_path));
  TRY_STATUS(refresh_exclude(repo_path));
  TRY(impl->packs, PackedWrites::attach(impl->repo.get(), repo_path));
  if (git_odb_open(impl->own.out(), (repo_path + "/objects").c_str()) != 0)
    return git_failure("open " + repo_path + "/objects");
  // The workspace's own objects, read-only: what its index vouches for needs no copy (see scan()).
  // Only a `.git` folder at the root; a `.git` file (a linked worktree, a submodule) is not used.
  if (struct stat git_dir{}; ::lstat((workspace_root + "/.git").c_str(), &git_dir) == 0 && S_ISDIR(git_dir.st_mode)) {
    GitOdb odb;
    if (git_repository_odb(odb.out(), impl->repo.get()) != 0) return git_failure("open object database");
    if (attach_workspace_objects(odb.get(), workspace_root + "/.git"))
      impl->workspace_index = workspace_root + "/.git/index";
  }
  // Reads and diffs of trees go through a handle on the same objects with no work tree: a diff
  // looks up each path's attributes, and with a work tree libgit2 resolves every path there
  // (realpath: a readlink per folder on its way, ~20 s for 10,000 files 100 folders deep) and reads
  // the .gitattributes the agent wrote. The database is the very one the workspace's objects are
  // attached to (above), so they are seen through it too.
  {
    GitOdb odb;
    if (git_repository_odb(odb.out(), impl->repo.get()) != 0 ||
        git_repository_wrap_odb(impl->trees_repo.out(), odb.get()) != 0) {
      return git_failure("open the snapshot trees of " + repo_path);
    }
  }
  // Point the store's repository at the workspace without writing a gitlink into it.
  if (git_repository_set_workdir(impl->repo.get(), workspace_root.c_str(), 0) != 0) return git_failure("set workdir");
  // libgit2 must not load the index file itself (an allocation per entry: what StatIndex avoids);
  // its attribute lookups for diffs would. What they find in an empty index is nothing.
  Index no_index;
  if (git_index_new(no_index.out()) != 0 || git_repository_set_index(impl->repo.get(), no_index.get()) != 0) {
    return git_failure("detach the index of " + repo_path);
  }
  // An index that cannot be read (cut short by a crash, say) is only a cache: the first scan
  // hashes every file again, and flush() writes a good one in its place.
  auto loaded = StatIndex::load(repo_path + "/index", true);
  bool index_lost = !loaded.ok();
  if (loaded.ok()) impl->index = std::move(*loaded);
  TRY_STATUS(add_rules(impl->repo.get(), extra_ignore));
  impl->open_ignore.insert(extra_ignore.begin(), extra_ignore.end());
  impl->index_ignore = read_patterns(repo_path + "/" + kIndexIgnore);
  impl->workdir = workspace_root;
  impl->clock = &clock;
  auto root = BeneathRoot::open(workspace_root);
  if (!root.ok()) return root.error().wrap("snapshot");
  impl->root.emplace(std::move(*root));
  std::error_code ec;
  auto store_abs = std::filesystem::weakly_canonical(store_dir, ec).string();
  if (!ec && store_abs.rfind(workspace_root + "/", 0) == 0)
    impl->skip_dir = store_abs.substr(workspace_root.size() + 1) + "/";
  impl->index_tree = read_index_tree(repo_path, impl->index.size(), impl->index.checksum(), impl->own.get());
  impl->index_tree_saved = !impl->index_tree.empty();
  if (!index_lost) impl->load_fsmonitor(repo_path);
  // Entries saved no earlier than the index file itself are racy: their stat cannot prove them
  // unchanged (git's rule), so the first scan re-hashes them.
  for (std::string_view path : impl->index.racy()) impl->racy.emplace(path);
  // A store that has never seen the workspace starts from what the workspace's own index vouches
  // for, as git does: a file whose stat matches its entry (and is not racy) is not read by the
  // first scan. Done here, where a run opens the store beside its credential walk.
  if (index_lost) impl->contents_changed_everywhere();
  if (Impl& m = *impl; m.index.empty() && !m.workspace_index.empty()) {
    seed_from_index(m.index, m.workspace_index, &m.racy,
                    [&m](std::string_view path) { return snapshot_may_hold(path, m.skip_dir); });
    m.contents_changed_everywhere();
  }
  return std::unique_ptr<SnapshotStore>(new SnapshotStore(std::move(impl), repo_path));
}

namespace {

bool is_gitignore(std::string_view path) {
  constexpr std::string_view kName = ".gitignore";
  return path.size() >= kName.size() && path.substr(path.size() - kName.size()) == kName &&
         (path.size() == kName.size() || path[path.size() - kName.size() - 1] == '/');
}

}  // namespace

bool SnapshotStore::Impl::enters(std::string_view dir) {
  // A folder with nothing tracked (a workspace without a repository is all such folders) is
  // entered unless the rules of this scan exclude it: before the snapshot before the run, config
  // snapshot.ignore alone (what existed under a path .gitignore ignores is recorded too); after
  // it, the frozen rules, unless those first scans listed it (its mode, and the FIFOs or sockets
  // in it, are watched) or the snapshot held a path beneath it in this run. The handle deciding
  // is shared, so its decisions are taken in turn. What is not entered (excluded, or the store
  // itself) is not looked into at all.
  if (index.has_prefix(dir)) return true;
  std::string path(dir);
  if (path == skip_dir) return false;
  if (started && (folder_modes_start.count(path) != 0 || watched_beneath(dir))) return true;
  std::lock_guard<std::mutex> lock(enter_mu);
  return started ? !is_ignored(path) : !excluded_by_config(path);
}

SnapshotStore::Impl::Walked SnapshotStore::Impl::walk(const std::set<std::string>* named) {
  // A file whose mtime is this close to the moment we look at it could change again within the
  // same timestamp tick without its stat changing: such "racy" files are re-hashed next time.
  std::int64_t racy_from =
      std::chrono::duration_cast<std::chrono::seconds>(clock->wall().time_since_epoch()).count() - 2;
  // Stat every file against the stat cache, in parallel. Each thread writes only its own bucket
  // and its own bytes of `seen`.
  struct Bucket {
    std::vector<std::string> candidates, unknown, racy, gitignores, linked;
    std::vector<std::uint32_t> linked_inodes;  // theirs, as the index keeps them (32 bits)
    // The folder whose files this thread visits now and its entries' positions: a folder's files
    // come one after another, each looked up among that folder's entries alone.
    std::string dir = std::string(1, '\0');
    std::pair<std::size_t, std::size_t> range;
  };
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<Bucket> buckets(threads);
  bool collect_gitignores = frozen.get() == nullptr;  // the first scan
  auto note = [&](Bucket& b, const FileStat& f) {
    if (f.stated && (f.mtime_s >= racy_from || f.ctime_s >= racy_from)) b.racy.push_back(f.path);
    if (f.nlink > 1) {
      b.linked.push_back(f.path);
      b.linked_inodes.push_back(static_cast<std::uint32_t>(f.ino));
    }
    if (collect_gitignores && is_gitignore(f.path)) b.gitignores.push_back(f.path);
  };
  std::vector<std::uint8_t> seen(index.size(), 0);
  FileVisitor visit = [&](unsigned t, const FileStat& f) {
    Bucket& b = buckets[t];
    note(b, f);
    std::string_view dir(f.path.data(), f.path.rfind('/') + 1);  // "" at the root (npos + 1)
    if (dir != b.dir) {
      b.dir.assign(dir);
      b.range = index.prefix_range(dir);
    }
    std::size_t pos = index.find_in(f.path, b.range);
    if (pos == StatIndex::npos) {
      b.unknown.push_back(f.path);
      return;
    }
    seen[pos] = 1;
    const StatEntry& e = index.at(pos);
    // A chmod moves ctime, so stat_matches fails for it already; the whole mode is compared too,
    // since setuid or a group-write bit is a change git's two file modes cannot show.
    bool mode_moved = f.stated && e.full_mode != 0 && (e.full_mode != f.full_mode || e.uid != f.uid || e.gid != f.gid);
    if (!stat_matches(e, f) || mode_moved || racy.count(f.path) != 0) {
      b.candidates.push_back(f.path);
    } else if (f.stated) {
      index.set_full_mode(pos, f.full_mode);  // its own entry: no other thread writes it
    }
  };
  auto enter = [this](std::string_view dir) { return enters(dir); };
  // The files of a folder with nothing tracked are all unknown: read (unless excluded) whatever
  // their stat, which the read then takes from the file it opened.
  WalkOptions options;
  options.stat_files_in = [this](std::string_view dir) { return index.has_prefix(dir); };
  if (events) options.on_folder = [this](int fd, const std::string& rel) { events->add_watch(fd, rel); };
  Walked out;
  out.racy_from = racy_from;
  auto take = [&out](WalkResult& walked) {
    auto append = [](auto& to, auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(out.unread, walked.unread);
    append(out.folders, walked.folders);
    append(out.git_entries, walked.git_entries);
    append(out.specials, walked.specials);
  };
  auto not_seen_in = [&](std::pair<std::size_t, std::size_t> range) {
    for (std::size_t i = range.first; i < range.second; ++i) {
      if (!seen[i]) out.deleted.emplace_back(index.at(i).path);
    }
  };
  if (named == nullptr) {
    WalkResult walked = walk_workdir(*root, "", enter, visit, threads, options);
    take(walked);
    not_seen_in({0, index.size()});
    // The folders the walk did not enter (snapshot.ignore's, the ignored ones) are watched all the
    // same: what the events name there is for changes_since_last_call().
    if (events) {
      for (const auto& dir : walked.untracked_dirs) {
        if (dir != skip_dir) events->watch_tree(dir);
      }
    }
  } else {
    out.partial = true;
    // The folders named, each walked whole (not one beneath another named); the files named, and
    // those whose stat cannot vouch for them (racy, or with another name), looked at alone.
    std::set<std::string> folders, files;
    for (const auto& path : *named) (path.back() == '/' ? folders : files).insert(path);
    files.insert(racy.begin(), racy.end());
    files.insert(linked.begin(), linked.end());
    auto covered = [&folders](const std::string& path, bool folder) {
      for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        if ((!folder || slash + 1 < path.size()) && folders.count(path.substr(0, slash + 1)) != 0) return true;
      }
      return false;
    };
    std::vector<std::string> look;
    for (const auto& path : files) {
      // A `.git` made is looked at too: the caller fingerprints it (nested_git()).
      bool git_entry = path == ".git" || path.ends_with("/.git");
      if (!covered(path, false) && (git_entry || snapshot_may_hold(path, skip_dir)) && reaches(path))
        look.push_back(path);
    }
    PathsLooked looked = look_at_paths(*root, look, visit, options);
    take(looked.result);
    // A file looked at with another name (a hard link made since the last scan, through which it
    // may have been written) has its other names the index holds looked at too, now: the write
    // was an event at the name used alone.
    std::set<std::uint32_t> inodes;
    for (const auto& b : buckets) inodes.insert(b.linked_inodes.begin(), b.linked_inodes.end());
    if (!inodes.empty()) {
      std::set<std::string> looked_at(look.begin(), look.end());
      std::vector<std::string> others;
      for (std::size_t i = 0; i < index.size(); ++i) {
        const StatEntry& e = index.at(i);
        if (inodes.count(e.ino) != 0 && looked_at.count(std::string(e.path)) == 0 &&
            !covered(std::string(e.path), false))
          others.emplace_back(e.path);
      }
      if (!others.empty()) {
        PathsLooked again = look_at_paths(*root, others, visit, options);
        take(again.result);
        looked.folders_now.insert(looked.folders_now.end(), again.folders_now.begin(), again.folders_now.end());
        look.insert(look.end(), others.begin(), others.end());
      }
    }
    for (const auto& path : look) {
      if (std::size_t pos = index.find(path); pos != StatIndex::npos && !seen[pos]) out.deleted.push_back(path);
    }
    out.looked_files = std::move(look);
    folders.insert(looked.folders_now.begin(), looked.folders_now.end());
    for (const auto& dir : folders) {
      if (covered(dir, true) || dir == skip_dir || !reaches(dir)) continue;
      WalkResult walked = walk_workdir(*root, dir, enter, visit, threads, options);
      take(walked);
      not_seen_in(index.prefix_range(dir));
      out.walked_folders.push_back(dir);
    }
  }
  for (auto& b : buckets) {
    out.candidates.insert(out.candidates.end(), b.candidates.begin(), b.candidates.end());
    out.unknown.insert(out.unknown.end(), b.unknown.begin(), b.unknown.end());
    out.racy.insert(b.racy.begin(), b.racy.end());
    out.linked.insert(b.linked.begin(), b.linked.end());
    out.gitignores.insert(out.gitignores.end(), b.gitignores.begin(), b.gitignores.end());
  }
  if (out.partial) {
    // A file named and met again in a folder walked whole (a file that became a folder, found so
    // only when looked at) is one path, once.
    for (auto* paths : {&out.candidates, &out.unknown, &out.deleted}) {
      std::sort(paths->begin(), paths->end());
      paths->erase(std::unique(paths->begin(), paths->end()), paths->end());
    }
  }
  return out;
}

Result<std::vector<std::string>> SnapshotStore::scan(const std::vector<std::string>& written) {
  Impl& m = *impl_;
  // After the snapshot before the run, the change events say where to look, when they can prove
  // that nothing else changed. The queue is read first either way: what a walk after it finds, it
  // need not say again.
  std::optional<ChangeSet> events;
  m.last_way = {.walked = true, .reason = m.started ? m.events_off : ""};
  if (m.events) {
    events = m.events->drain();
    if (m.pending) {
      events->changed_paths.merge(m.pending->changed_paths);
      if (!m.pending->complete) {
        events->reason = m.pending->reason + (events->reason.empty() ? "" : "; " + events->reason);
        events->complete = false;
      }
      m.pending.reset();
    }
    m.named_since_call.insert(events->changed_paths.begin(), events->changed_paths.end());
    if (m.started) {
      if (!m.distrusted.empty())
        m.last_way.reason = m.distrusted;
      else if (!events->complete)
        m.last_way.reason = events->reason;
      else
        m.last_way = {.walked = false, .reason = ""};
    }
    m.distrusted.clear();
  }
  if (m.last_way.walked) m.since_call_complete = false;
  return look(m.last_way.walked ? nullptr : &events->changed_paths, written);
}

Result<std::vector<std::string>> SnapshotStore::look(const std::set<std::string>* named,
                                                     const std::vector<std::string>& written) {
  Impl& m = *impl_;
  if (m.config_rules.get() == nullptr) TRY_STATUS(m.open_config_rules(repo_path_));
  m.scanned = true;
  Impl::Walked w = m.walk(named);
  if (std::find(w.unread.begin(), w.unread.end(), "./") != w.unread.end()) {
    return make_error(ErrorCode::kIo, "snapshot: cannot list the workspace " + m.workdir);
  }
  if (m.frozen.get() == nullptr) {
    // A first scan that looked where the fsmonitor said met only the .gitignore files that changed:
    // the others are those the index holds.
    if (w.partial) {
      std::set<std::string> gone(w.deleted.begin(), w.deleted.end());
      for (std::size_t i = 0; i < m.index.size(); ++i) {
        std::string_view path = m.index.at(i).path;
        if (is_gitignore(path) && gone.count(std::string(path)) == 0) w.gitignores.emplace_back(path);
      }
      std::sort(w.gitignores.begin(), w.gitignores.end());
      w.gitignores.erase(std::unique(w.gitignores.begin(), w.gitignores.end()), w.gitignores.end());
    }
    TRY_STATUS(m.fix_rules(std::move(w.gitignores), repo_path_,
                           [&m](const std::string& rel) { return m.shadow.copy(*m.root, rel); }));
  }
  // Before the snapshot before the run the walk took in all but snapshot.ignore's paths already.
  if (m.started) m.take_in_forced(w, written);
  if (m.after_walk_hook) m.after_walk_hook();

  // 3. Update the index: hash what may have changed; a stat-only change (touch) is no change.
  std::vector<std::string> changed;
  std::vector<std::string> unread = w.unread;
  const std::size_t restated = w.candidates.size();  // their stat data at least is saved anew
  TRY_STATUS(m.stage_walked(w, repo_path_, changed, unread));
  std::vector<std::string_view> gone;
  for (const auto& path : w.deleted) {
    if (hidden_by_unread(w.unread, path)) continue;  // not seen is not gone
    m.access_seen_changing(path, m.index.at(m.index.find(path)));
    m.note_gone(path);
    gone.push_back(path);
    changed.push_back(path);
  }
  m.note_folders(w);
  m.index.remove_all(std::move(gone));
  m.racy = std::move(w.racy);
  if (w.partial) {
    for (const auto& path : w.looked_files) m.linked.erase(path);
    for (const auto& dir : w.walked_folders) {
      m.linked.erase(m.linked.lower_bound(dir), m.linked.lower_bound(dir + '\xff'));
    }
  } else {
    m.linked.clear();
  }
  m.note_linked(w.linked);
  m.add_unread(unread);
  if (!m.started && named == nullptr) m.fsmonitor_modes_all = true;
  m.entries_since_save += restated + changed.size();
  if (!changed.empty()) m.contents_changed(changed);

  // The index stays in memory between scans: rewriting a 100,000-entry index file (or its tree)
  // after every step would cost more than the scan. write_tree() and flush() are for the ends.
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  return changed;
}

Result<std::vector<std::string>> SnapshotStore::scan_paths(const std::vector<std::string>& paths) {
  Impl& m = *impl_;
  if (!m.scanned || m.frozen.get() == nullptr) return scan();
  Impl::Walked w;
  std::vector<std::string> looked_at;
  for (const auto& path : paths) {
    if (path.empty() || path == "." || path.front() == '/') return scan();
    if (!snapshot_may_hold(path, m.skip_dir)) continue;  // no scan looks there
    // The tool resolved the path itself: through a symlinked folder, what it wrote is elsewhere.
    if (std::size_t slash = path.rfind('/'); slash != std::string::npos) {
      Opened folder = m.root->open(path.substr(0, slash), O_PATH | O_DIRECTORY);
      if (!folder.fd.valid()) return scan();
    }
    // What the tool wrote is held whatever .gitignore says (snapshot.ignore still decides).
    bool tracked = m.index.find(path) != StatIndex::npos;
    (tracked ? w.candidates : w.forced).push_back(path);
    looked_at.push_back(path);
  }
  std::vector<std::string> changed;
  std::vector<std::string> unread;
  TRY_STATUS(m.stage_walked(w, repo_path_, changed, unread));
  // Just written: its timestamp cannot vouch for it yet (see walk()).
  m.racy.insert(looked_at.begin(), looked_at.end());
  m.add_unread(unread);
  m.entries_since_save += looked_at.size();
  if (!changed.empty()) m.contents_changed(changed);
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  return changed;
}

Status SnapshotStore::Impl::open_rules_handle(const std::string& repo_path, const std::string& rules_dir,
                                              const std::set<std::string>& patterns, Repo& handle) const {
  if (git_repository_open_bare(handle.out(), repo_path.c_str()) != 0) return git_failure("open " + repo_path);
  TRY_STATUS(use_own_config(handle.get(), repo_path, repo_path));
  if (git_repository_set_workdir(handle.get(), rules_dir.c_str(), 0) != 0) return git_failure("set workdir");
  return add_rules(handle.get(), std::vector<std::string>(patterns.begin(), patterns.end()));
}

Status SnapshotStore::Impl::open_config_rules(const std::string& repo_path) {
  TRY(no_gitignores, IgnoreShadow::create(repo_path));
  return open_rules_handle(repo_path, no_gitignores.path(), extras_fixed ? frozen_ignore : open_ignore, config_rules);
}

// Copies the .gitignore files into the shadow and opens the handle that reads them. Shallowest
// first, and not one in a folder the rules copied before it (or snapshot.ignore) ignore: git never
// reads a .gitignore there (it does not look into an ignored folder, and what such a file
// re-includes stays ignored); the first scan's walk met it because it records ignored folders too.
Status SnapshotStore::Impl::fix_rules(std::vector<std::string> gitignores, const std::string& repo_path,
                                      const CopyRule& copy) {
  TRY(shadow, IgnoreShadow::create(repo_path));
  Repo copied_so_far;  // decides while the copies are made; `frozen` is opened on all of them
  TRY_STATUS(open_rules_handle(repo_path, shadow.path(), open_ignore, copied_so_far));
  auto depth = [](const std::string& p) { return std::count(p.begin(), p.end(), '/'); };
  std::sort(gitignores.begin(), gitignores.end(), [&depth](const std::string& a, const std::string& b) {
    auto da = depth(a), db = depth(b);
    return da != db ? da < db : a < b;
  });
  constexpr std::string_view kName = ".gitignore";
  std::vector<std::string> not_copied;
  for (const auto& rel : gitignores) {
    std::string folder = rel.substr(0, rel.size() - kName.size());  // "" or "dir/"
    int ignored = 0;
    if (!folder.empty() && git_ignore_path_is_ignored(&ignored, copied_so_far.get(), folder.c_str()) == 0 &&
        ignored == 1)
      continue;
    if (copy(rel) == Entry::Kind::kUnreadable) not_copied.push_back(rel);
  }
  add_unread(not_copied);
  Repo handle;
  TRY_STATUS(open_rules_handle(repo_path, shadow.path(), open_ignore, handle));
  std::swap(frozen.p, handle.p);
  return ok_status();
}

void SnapshotStore::Impl::take_in_forced(Walked& w, const std::vector<std::string>& written) const {
  std::set<std::string, std::less<>> wanted;
  for (const auto& path : written) {
    if (!path.empty() && path != "." && snapshot_may_hold(path, skip_dir) && index.find(path) == StatIndex::npos)
      wanted.insert(path);
  }
  if (wanted.empty() && watched_gone.empty()) return;
  std::vector<std::string> unknown;
  unknown.reserve(w.unknown.size());
  for (auto& path : w.unknown) {
    bool forced = wanted.erase(path) > 0 || watched_gone.count(path) > 0;
    (forced ? w.forced : unknown).push_back(std::move(path));
  }
  w.unknown = std::move(unknown);
  // Written where the walk did not look (a folder the frozen rules ignore, where the snapshot holds
  // nothing): read all the same. One that is not there is nothing.
  for (const auto& path : wanted) w.forced.push_back(path);
}

Status SnapshotStore::freeze_ignore_rules(const std::vector<std::string>& extra_patterns) {
  Impl& m = *impl_;
  if (m.frozen.get() == nullptr)
    return make_error(ErrorCode::kInternal, "snapshot: ignore rules frozen before the first scan");
  if (m.extras_fixed) return make_error(ErrorCode::kInternal, "snapshot: the ignore rules are already frozen");
  m.extras_fixed = true;
  m.frozen_ignore = std::set<std::string>(extra_patterns.begin(), extra_patterns.end());
  if (m.frozen_ignore == m.open_ignore && is_subset(m.frozen_ignore, m.index_ignore)) return ok_status();
  for (git_repository* rules : {m.frozen.get(), m.config_rules.get()}) {
    if (git_ignore_clear_internal_rules(rules) != 0) return git_failure("clear snapshot.ignore rules");
    TRY_STATUS(add_rules(rules, extra_patterns));
  }
  // The first scan followed open()'s patterns; one it did not follow, or that the saved index
  // was not pruned with, may match entries, which then leave the index (a check per entry, so
  // only then).
  if (!is_subset(m.frozen_ignore, m.open_ignore) || !is_subset(m.frozen_ignore, m.index_ignore))
    TRY_STATUS(m.drop_ignored());
  // A pattern of open()'s that is gone kept files out of the first scan: take them in now.
  if (!is_subset(m.open_ignore, m.frozen_ignore)) TRY_STATUS(scan());
  return ok_status();
}

// Entries config snapshot.ignore excludes leave the index, so the snapshot holds what a first
// scan from scratch under these patterns would find. Those only .gitignore ignores stay: ignored
// is not unwatched (scan()).
Status SnapshotStore::Impl::drop_ignored() {
  std::vector<std::string> drop;
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::string path(index.at(i).path);
    if (excluded_by_config(path)) drop.push_back(std::move(path));
  }
  index.remove_all(std::vector<std::string_view>(drop.begin(), drop.end()));
  if (!drop.empty()) {
    rewrite_index = true;
    contents_changed(drop);
  }
  return ok_status();
}

const std::vector<std::string>& SnapshotStore::unread() const { return impl_->unread; }

void SnapshotStore::set_deadline(const Deadline& deadline) { impl_->deadline = deadline; }

bool SnapshotStore::ran_out_of_time() const { return impl_->out_of_time; }

void SnapshotStore::set_after_walk_hook_for_tests(std::function<void()> hook) {
  impl_->after_walk_hook = std::move(hook);
}

Result<std::string> SnapshotStore::write_tree() {
  Impl& m = *impl_;
  m.started = true;
  if (!m.index_tree.empty()) return m.index_tree;  // nothing changed since it was built
  git_oid tree;
  {
    TreeSink to_pack = [&m](const git_oid& id, std::string tree) {
      m.unpacked_bytes += tree.size();
      m.packs.add(id, GIT_OBJECT_TREE, std::move(tree));
      return ok_status();
    };
    std::optional<git_oid> updated;
    if (!m.tree_base.empty()) {
      TRY(git_oid base, parse_oid(m.tree_base));
      auto built = update_tree(m.repo.get(), m.index, base, m.changed_since_base, to_pack);
      if (built.ok()) {
        updated = *built;
      } else if (built.error().code != ErrorCode::kNotFound) {
        return built.error();
      }
    }
    if (!updated) {
      TRY(git_oid built, build_tree(m.repo.get(), m.index, to_pack));
      updated = built;
    }
    tree = *updated;
  }
  m.tree_base.clear();
  m.changed_since_base.clear();
  TRY_STATUS(m.pack());  // on disk before anyone is told the tree's id
  m.index_tree = oid_str(tree);
  return m.index_tree;
}

Status SnapshotStore::flush() {
  Impl& m = *impl_;
  // The saved index names only objects on disk: the next run trusts it.
  TRY_STATUS(m.pack());
  // An index no scan changed (not even a stat) is left as it is: a warm run on an unchanged
  // workspace writes nothing of its size. Nor is one whose scans changed a few entries of many
  // (at most 1 in 100): the next run finds those again by their stat and hashes them, which costs
  // less than writing the whole index; the tree and the ignore patterns saved beside it then stay
  // as they are, since they describe the index as saved.
  // The fsmonitor base saved with the index describes it as saved: while that stands, the new one
  // can wait for the index's next save; without one, the index is saved for the new base.
  const std::size_t few = m.index.size() / 100;
  bool base_waits = !m.fsmonitor_keep || m.fsmonitor_saved.has_value();
  std::optional<Impl::FsmonitorSaved> carry = m.fsmonitor_saved;
  if (m.index_dirty && !m.rewrite_index && m.entries_since_save <= few && m.frozen_ignore == m.index_ignore &&
      !m.index.checksum().empty() && base_waits) {
    return ok_status();
  }
  if (m.index_dirty) {
    TRY_STATUS(m.index.write(repo_path_ + "/index"));
    m.index_dirty = false;
    m.index_tree_saved = false;
    m.entries_since_save = 0;
    m.rewrite_index = false;
    m.fsmonitor_saved.reset();  // it named the index as it was
  }
  TRY_STATUS(m.save_fsmonitor(repo_path_, carry));
  // The tree its contents make, for the next run (else that run builds it again when it needs it).
  if (!m.index_tree.empty() && !m.index_tree_saved) {
    TRY_STATUS(write_file_atomically(repo_path_, kIndexTree, m.index_tree + " " + m.index.checksum() + "\n"));
    m.index_tree_saved = true;
  }
  if (!m.extras_fixed) return ok_status();
  std::string text;
  for (const auto& p : impl_->frozen_ignore) text += p + "\n";
  std::ofstream out(repo_path_ + "/" + kIndexIgnore, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  // Without it the next run prunes the index once more: slower, not wrong.
  if (!out) return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}/{}", repo_path_, kIndexIgnore));
  return ok_status();
}

GitTrees SnapshotStore::trees() const { return GitTrees(impl_->trees_repo.get()); }

Result<std::vector<Mutation>> SnapshotStore::diff(const std::string& from_tree, const std::string& to_tree) const {
  return trees().diff(from_tree, to_tree);
}

Result<std::string> SnapshotStore::patch_text(const std::string& from_tree, const std::string& to_tree,
                                              const std::string& path, std::size_t max_bytes) const {
  return trees().patch_text(from_tree, to_tree, path, max_bytes);
}

Result<std::optional<SnapshotStore::TreeFile>> SnapshotStore::read_file(const std::string& tree_id,
                                                                        const std::string& path) const {
  return trees().read_file(tree_id, path);
}

Result<std::optional<SnapshotStore::TreeEntryInfo>> SnapshotStore::stat(const std::string& tree_id,
                                                                        const std::string& path) const {
  return trees().stat(tree_id, path);
}

Result<std::optional<std::string>> SnapshotStore::read(const std::string& tree_id, const std::string& path) const {
  return trees().read(tree_id, path);
}

Status SnapshotStore::retain(const std::vector<std::string>& trees, const std::vector<std::string>& paths) {
  Impl& m = *impl_;
  TRY_STATUS(m.pack());  // so the store's own objects are all on disk, where `own` looks
  GitOdb odb;
  if (git_repository_odb(odb.out(), m.repo.get()) != 0) return git_failure("open object database");
  std::vector<std::string> lost;
  for (const auto& tree_id : trees) {
    TRY(git_oid id, parse_oid(tree_id));
    // Each folder's tree looked up once, whatever the number of paths in it: a path looked up from
    // the root reads every tree on its way, and 10,000 paths 100 folders deep made that 2,000,000.
    std::map<std::string, GitTree> folders;
    if (git_tree_lookup(folders[""].out(), m.repo.get(), &id) != 0) return git_failure("look up tree " + tree_id);
    std::function<git_tree*(const std::string&)> folder = [&](const std::string& dir) -> git_tree* {
      if (auto it = folders.find(dir); it != folders.end()) return it->second.get();
      std::size_t slash = dir.rfind('/');
      git_tree* parent = folder(slash == std::string::npos ? "" : dir.substr(0, slash));
      GitTree& sub = folders[dir];
      const git_tree_entry* e =
          parent != nullptr
              ? git_tree_entry_byname(parent, dir.substr(slash == std::string::npos ? 0 : slash + 1).c_str())
              : nullptr;
      if (e != nullptr && git_tree_entry_type(e) == GIT_OBJECT_TREE)
        (void)git_tree_lookup(sub.out(), m.repo.get(), git_tree_entry_id(e));
      return sub.get();  // null: no such folder in this tree
    };
    for (const auto& path : paths) {
      std::size_t slash = path.rfind('/');
      git_tree* dir = folder(slash == std::string::npos ? "" : path.substr(0, slash));
      const git_tree_entry* entry =
          dir != nullptr ? git_tree_entry_byname(dir, path.substr(slash == std::string::npos ? 0 : slash + 1).c_str())
                         : nullptr;
      if (entry == nullptr) continue;  // not in this tree
      const git_oid* blob = git_tree_entry_id(entry);
      if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB || git_odb_exists(m.own.get(), blob)) continue;
      GitPtr<git_odb_object, git_odb_object_free> object;
      git_oid written;
      if (git_odb_read(object.out(), odb.get(), blob) != 0) {
        lost.push_back(path);
        continue;
      }
      if (git_odb_write(&written, odb.get(), git_odb_object_data(object.get()), git_odb_object_size(object.get()),
                        GIT_OBJECT_BLOB) != 0) {
        return git_failure("copy the content of " + path);
      }
    }
  }
  m.add_unread(lost);
  return m.pack();
}

Status SnapshotStore::pin(const std::string& tree, const std::string& name) {
  TRY(git_oid id, parse_oid(tree));
  GitReference ref;
  std::string refname = "refs/candor/" + name;
  if (git_reference_create(ref.out(), impl_->repo.get(), refname.c_str(), &id, 1, "candor snapshot") != 0) {
    return git_failure("pin " + refname);
  }
  return ok_status();
}

}  // namespace candor::snapshot
