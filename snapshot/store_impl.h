// The inside of a SnapshotStore, shared by the files that implement it: store.cc (opening,
// scans, trees, the index's saving), store_staging.cc (reading what a scan found into the
// object database and the index), store_events.cc (the change events the scans read) and
// store_modes.cc (the modes the scans saw). Not for other users.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/deadline.h"
#include "snapshot/beneath.h"
#include "snapshot/change_events.h"
#include "snapshot/file_reads.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_prefilter.h"
#include "snapshot/ignore_shadow.h"
#include "snapshot/repository_lock.h"
#include "snapshot/snapshot_objects.h"
#include "snapshot/stat_index.h"
#include "snapshot/store.h"

namespace candor::snapshot {
namespace snapshot_internal {

inline Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}

using Repo = GitRepo;
using Index = GitIndex;
using OdbStream = GitPtr<git_odb_stream, git_odb_stream_free>;

// Files up to this size are read whole and hashed; larger ones are streamed.
constexpr std::int64_t kBufferedMax = 8 << 20;
// New objects are kept in memory up to about this many bytes, then written as a pack.
constexpr std::uint64_t kPackEvery = 64 << 20;

// Whether `path` lies in (or is) something a scan could not read (`unread`: files, folders "a/"):
// its entry stays as it was.
inline bool hidden_by_unread(const std::vector<std::string>& unread, const std::string& path) {
  for (const auto& u : unread) {
    bool folder = u.back() == '/';
    if (folder ? path.rfind(u, 0) == 0 : (path == u || path.rfind(u + "/", 0) == 0)) return true;
  }
  return false;
}

}  // namespace snapshot_internal

using namespace snapshot_internal;

// Saved with an fsmonitor base by a handle that knew every folder and special file (a run's, not
// after resume()) and whose change events watched every folder: what a run's start takes instead
// of a walk (store_fsmonitor.cc).
struct FsmonitorWhole {
  std::map<std::string, SnapshotStore::Access> folders, specials;
  ChangeEvents::WatchList watched;
  std::optional<SnapshotStore::SavedCredentials> credentials;
};

struct SnapshotStore::Impl {
  std::optional<RepositoryLock> in_use;  // first: released after every handle below is closed
  Repo repo;
  Repo trees_repo;                   // the same object database, bare: what trees() reads and diffs
  StatIndex index;                   // the stat cache and the content of the last snapshot
  PackedWrites packs;                // every object written goes to a pack through here
  GitOdb own;                        // the store's objects on disk alone, without the workspace's
  std::string workspace_index;       // the workspace's .git/index when its objects are attached
  bool scanned = false;              // a scan was made by this handle
  std::uint64_t unpacked_bytes = 0;  // written to memory since the last pack
  std::string workdir;
  Clock* clock = nullptr;           // borrowed from open()'s caller: the time of a walk (racy files)
  std::optional<BeneathRoot> root;  // every read of the workspace starts here
  std::string skip_dir;             // the store itself, when it lies inside the workspace ("dir/")
  std::set<std::string> racy;       // paths whose stat cannot prove them unchanged
  // The tree the index's contents make, while known: read at open from beside a saved index it
  // was written with, kept while scans change nothing, so a warm run whose workspace did not
  // change since the last run reuses it instead of building it again. "" when unknown.
  std::string index_tree;
  bool index_dirty = false;  // the index in memory differs from the saved file (stat data included)
  // Entries scans may have changed since the index was read or saved (an upper bound), and whether
  // more than a scan changed it (seeded, pruned): see flush().
  std::size_t entries_since_save = 0;
  bool rewrite_index = false;
  bool index_tree_saved = false;  // index_tree is what kIndexTree says of the saved index
  // While index_tree is unknown: the last tree known of the index ("" if none) and every path
  // changed since, from which write_tree() builds the next one.
  std::string tree_base;
  std::set<std::string> changed_since_base;
  // The ignore rules, fixed by the first scan once its walk is done: a second handle on this
  // repository whose work tree is a private copy of the .gitignore files that walk met (but those
  // in folders the others ignore, which git never reads: fix_rules()). Every .gitignore decision
  // after that walk is this handle's, so later .gitignore edits change nothing, and no decision
  // follows a symlink (libgit2 stats a path to tell a folder; in the copy, a path that is not a
  // folder with a .gitignore does not exist).
  IgnoreShadow shadow;  // declared before `frozen`: outlives the handle reading it
  Repo frozen;
  bool extras_fixed = false;           // freeze_ignore_rules() was called
  std::set<std::string> open_ignore;   // config snapshot.ignore as given to open(): the first scan's
  std::set<std::string> index_ignore;  // the patterns the saved index was last pruned with
  std::set<std::string> frozen_ignore;
  // What the rules of `frozen` can match, loaded by the first scan that has paths to check, again
  // once freeze_ignore_rules() has changed them.
  std::shared_ptr<const IgnorePrefilter> prefilter;
  bool prefilter_frozen = false;  // loaded with the frozen patterns
  // Config snapshot.ignore alone (with the store's info/exclude and libgit2's own rules), made by
  // the run's first scan: what the scans before the snapshot before the run leave out (ignored
  // means "not committed", not "does not matter": they take in what .gitignore ignores), and all
  // that decides for a path a file tool wrote or the snapshot held earlier in the run. A handle
  // like `frozen` whose work tree is an empty private folder, so that no .gitignore is read.
  IgnoreShadow no_gitignores;  // declared before `config_rules`: outlives the handle reading it
  Repo config_rules;
  std::shared_ptr<const IgnorePrefilter> config_prefilter;
  bool config_prefilter_frozen = false;
  // Paths the snapshot held after the snapshot before the run that a scan found gone: still
  // watched, so one made again is taken in whatever .gitignore says (and its folder entered).
  std::set<std::string, std::less<>> watched_gone;
  // Whole modes (DESIGN: a mode change is a mutation). Folders as the first scans (those before
  // the first tree, the snapshot before the run) and the latest full scan listed them; for files,
  // the mode at those first scans of every path whose mode changed or that went since.
  bool started = false;  // write_tree() was called: what scans see now is the run's doing
  // The run was begun by another process (resume()): the modes of folders and special files at its
  // start are not known here, so nothing is said of them.
  bool resumed = false;
  using Access = SnapshotStore::Access;
  std::map<std::string, Access> folder_modes_start, folder_modes_now;
  std::map<std::string, Access> file_modes_start;
  std::map<std::string, Access> specials_start, specials_now;  // FIFOs, sockets, devices
  // A scan found `old` (its entry as the scan before saw it) changed: what it was at the start is
  // the first such, when that scan had seen it (full_mode known).
  void access_seen_changing(const std::string& path, const StatEntry& old) {
    if (old.full_mode != 0) file_modes_start.emplace(path, access_of(old));
  }
  static Access access_of(const StatEntry& e) { return {e.full_mode, e.uid, e.gid}; }
  std::set<std::string> git_entries;  // `.git` entries below the root that any scan met
  // What a scan has not begun to read by then it leaves unread (set_deadline()).
  Deadline deadline;
  bool out_of_time = false;  // a scan left something unread for the deadline
  std::set<std::string> unread_set;
  std::vector<std::string> unread;  // unread_set, for unread()
  std::function<void()> after_walk_hook;
  // Files with more than one name (st_nlink > 1) and the other names of theirs the index holds: a
  // write through one name is an event in that name's folder alone, so every scan looks at them all.
  std::set<std::string> linked;
  std::mutex enter_mu;  // the ignore handles decide for one thread at a time (enters())
  // Why the next scan walks in full though the events may say they are complete (distrust_events()).
  std::string distrusted;
  std::string events_off;  // why watch_changes() got no events ("" when it did, or was not asked)
  SnapshotStore::ScanWay last_way;
  // Events drained by changes_since_last_call() for the next scan, and what the drains named since
  // that call last returned (complete while every drain was and no scan walked in full).
  std::optional<ChangeSet> pending;
  std::set<std::string> named_since_call;
  bool since_call_complete = false;  // false until the first call marks the start

  git_repository* ignore_rules() const { return frozen.get() != nullptr ? frozen.get() : repo.get(); }
  bool is_ignored(const std::string& path) const {
    int ignored = 0;
    return git_ignore_path_is_ignored(&ignored, ignore_rules(), path.c_str()) == 0 && ignored == 1;
  }
  // Whether config snapshot.ignore (as config_rules hold it now) excludes `path`.
  // REQUIRES: open_config_rules().
  bool excluded_by_config(const std::string& path) const {
    int ignored = 0;
    return git_ignore_path_is_ignored(&ignored, config_rules.get(), path.c_str()) == 0 && ignored == 1;
  }
  Status open_config_rules(const std::string& repo_path);
  // A path the snapshot held since the start is gone: watched still.
  void note_gone(std::string_view path) {
    if (started) watched_gone.emplace(path);
  }
  // Whether a path of watched_gone lies beneath `dir` ("a/b/").
  bool watched_beneath(std::string_view dir) const {
    auto it = watched_gone.lower_bound(dir);
    return it != watched_gone.end() && std::string_view(*it).substr(0, dir.size()) == dir;
  }
  void add_unread(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    unread_set.insert(paths.begin(), paths.end());
    unread.assign(unread_set.begin(), unread_set.end());
  }
  struct Walked;
  // Walks the workspace (`named` null), or looks only at the paths of a complete ChangeSet (files
  // and folders) and at the linked and racy files. Also records the whole modes it saw in the index.
  Walked walk(const std::set<std::string>* named = nullptr);
  // Whether a scan enters folder `dir` ("a/b/"): the rule of the walk, for any thread.
  bool enters(std::string_view dir);
  // Whether a walk from the root would reach `path` (a file "a/b.txt" or a folder "a/b/"): every
  // folder above it, and a folder itself, entered.
  bool reaches(std::string_view path);
  // The other names the index holds of the files of `found` (linked): into `linked`.
  void note_linked(const std::set<std::string>& found);
  // The folders and `.git` entries a full scan's walk met (its modes; the repositories inside).
  void note_folders(const Walked& w);
  void note_folders_looked_at(const Walked& w);  // ... of a scan that looked where the events said
  // `copy` puts one .gitignore (relative) into `shadow`: the workspace's file (a run's first scan),
  // or the blob of the snapshot a resumed run began with (resume()).
  using CopyRule = std::function<Entry::Kind(const std::string& rel)>;
  Status fix_rules(std::vector<std::string> gitignores, const std::string& repo_path, const CopyRule& copy);
  // resume()'s steps (store_resume.cc): the index made to hold `tree`; the rules from its .gitignore blobs.
  Status hold_tree(const std::string& tree);
  Status fix_rules_from_index(const std::string& repo_path);
  // A handle whose work tree is `rules_dir` (the shadow: what `frozen` decides; the empty folder:
  // what `config_rules` decides) with `patterns` on top, for another thread.
  Status open_rules_handle(const std::string& repo_path, const std::string& rules_dir,
                           const std::set<std::string>& patterns, Repo& handle) const;
  // After a walk that followed the frozen rules: the paths the index does not hold that are read
  // whatever .gitignore says (those of `written`, those of watched_gone) go from `unknown`, or
  // from nowhere when the walk did not enter their folder, to `forced`.
  void take_in_forced(Walked& w, const std::vector<std::string>& written) const;
  // Reads (and hashes) what the walk found that may have changed or that the index does not hold,
  // on worker threads, and puts it into the index here; collects the paths whose content or mode
  // changed into `changed` (unsorted), what could not be read into `unread`. A path of `unknown`
  // is read unless the rules of this scan ignore it (before the snapshot before the run: config
  // snapshot.ignore alone; after it: the frozen rules), one of `forced` unless snapshot.ignore does.
  Status stage_walked(Walked& w, const std::string& repo_path, std::vector<std::string>& changed,
                      std::vector<std::string>& unread);
  // stage_walked's parts: the prefilter of the rules in force (config snapshot.ignore alone when
  // `config`), built again when the rules were frozen since; what to read (`forced` paths
  // snapshot.ignore excludes dropped); how (the workers, the deadline, and when `ask_ignore`, how a
  // worker asks the rules whether an unknown path is ignored).
  struct StagingPass;  // one stage_walked's reads taken into the index (store_staging.cc)
  std::shared_ptr<const IgnorePrefilter> loaded_prefilter(const std::string& repo_path, bool config);
  std::vector<FileReadRequest> read_requests(const std::string& repo_path, Walked& w);
  FileReadOptions read_options(const std::string& repo_path, bool ask_ignore);
  Status pack() {
    unpacked_bytes = 0;
    return packs.write_pack();
  }
  Status drop_ignored();  // the entries config snapshot.ignore excludes
  // The index's contents changed at `paths`: its tree is built again from the last one known,
  // writing only the folders that hold them (tree_update.h), and the file is written.
  template <typename Paths>
  void contents_changed(const Paths& paths) {
    if (!index_tree.empty()) {
      tree_base = index_tree;
      changed_since_base.clear();
    }
    if (!tree_base.empty()) changed_since_base.insert(paths.begin(), paths.end());
    forget_tree();
  }
  // ... where, is not known (a seeded index): its tree is built from scratch.
  void contents_changed_everywhere() {
    rewrite_index = true;
    tree_base.clear();
    changed_since_base.clear();
    forget_tree();
  }
  void forget_tree() {
    index_tree.clear();
    index_tree_saved = false;
    index_dirty = true;
  }
  // The fsmonitor base saved with the index (store_fsmonitor.cc), when it was saved with this very
  // index: the clock, and what a scan that looks only where the fsmonitor says cannot learn from
  // the files it does not look at (their notable modes, their other names, the repositories below).
  struct FsmonitorSaved {
    SnapshotStore::FsmonitorBase base;
    std::vector<std::string> linked;
    std::map<std::string, std::uint32_t> modes;  // whole modes with setuid, setgid, sticky or others' write
    std::vector<std::string> nested_git;
    std::optional<FsmonitorWhole> whole;
  };
  std::optional<FsmonitorSaved> fsmonitor_saved;
  // watch_from_base() watched the folders the saved base lists: a first scan_changed() takes the
  // folders and special files from it.
  bool base_watched = false;
  std::optional<SnapshotStore::FsmonitorBase> fsmonitor_keep;       // keep_fsmonitor_base()
  std::optional<SnapshotStore::SavedCredentials> credentials_keep;  // keep_credentials()
  // The whole mode of every entry is known: a walk before the run saw them, or scan_changed() took
  // those it does not look at from the saved base. Not after resume().
  bool fsmonitor_modes_all = false;
  void load_fsmonitor(const std::string& repo_path);
  // scan_changed()'s first scan after watch_from_base(): see store_fsmonitor.cc.
  void take_whole_base(const std::set<std::string>& changed, std::set<std::string>& named);
  // Saves fsmonitor_keep with the index as now saved, when there is one to keep and what the scans
  // did not look at is known: from this handle's scans, or from `carry` (the base saved before,
  // when it is the one kept: a turn's stop keeps its start's).
  Status save_fsmonitor(const std::string& repo_path, const std::optional<FsmonitorSaved>& carry);
  // Last: it goes first, as its rule for folders to watch (enters()) reads the rest.
  std::unique_ptr<ChangeEvents> events;
};

// What the walk of one scan found, merged from its threads.
struct SnapshotStore::Impl::Walked {
  std::vector<std::string> candidates;  // tracked paths whose content must be looked at
  std::vector<std::string> unknown;     // paths not in the index (ignored or untracked)
  // Paths not in the index read whatever .gitignore says (take_in_forced()).
  std::vector<std::string> forced;
  std::vector<std::string> deleted;  // tracked paths the walk did not meet
  std::vector<std::string> unread;   // what the walk could not look at
  std::set<std::string> racy;
  std::int64_t racy_from = 0;  // a file changed this second or later is racy
  std::vector<std::string> gitignores;
  std::vector<FolderMode> folders;
  std::vector<std::string> git_entries;
  std::vector<FolderMode> specials;
  std::set<std::string> linked;  // files met with more names than one
  // Looked where the events said, not everywhere: the folders walked whole ("a/") and the files
  // looked at alone. What the scan knew of anything else stands.
  bool partial = false;
  std::vector<std::string> walked_folders, looked_files;
};

}  // namespace candor::snapshot
