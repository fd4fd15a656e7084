// Workspace snapshots in a git object database kept inside the run store, never in the
// workspace's own .git. The index in the store is a stat cache: after the first scan, an
// unchanged file costs one stat. The agent is untrusted, so nothing it writes blinds a scan: the
// ignore rules are frozen at run start, nested repositories are walked like any folder, contents
// are read through descriptors beneath the workspace, and what cannot be read is named.
// snapshot/'s public face, with trees.h, range.h, gc.h and workspace_git.h; the rest of the folder is
// private to it.
// Its sources use libgit2 (through snapshot/git_ptr.h); this header does not include it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/deadline.h"
#include "core/result.h"
#include "core/run_record.h"
#include "snapshot/trees.h"

namespace candor::sandbox {
class CredentialRegistry;
}  // namespace candor::sandbox

namespace candor::snapshot {

// libgit2's initialisation, once per process (it loads the TLS certificates). Everything here does
// it before its first libgit2 call; a caller may do it earlier, beside other work.
void init_git_once();

// Where the snapshots of `workspace_root` (absolute) live in the store:
// `store_dir`/snapshots/<hash of the path>.git.
std::string snapshot_repository_path(const std::string& store_dir, const std::string& workspace_root);

// Not thread-safe. One per run. Two runs on one workspace at once share the repository: objects
// are safe to share, and each run keeps its index in memory and its frozen ignore rules in a
// folder of its own. The index file is only a stat cache: the last flush() wins, and a flush()
// that meets the other run's lock fails, which costs the next run's first scan time, nothing else.
class SnapshotStore {
 public:
  // Opens or creates the snapshot repository for `workspace_root` (absolute) beneath
  // `store_dir`/snapshots/, and holds its RepositoryLock (shared) until it goes: `candor gc` leaves
  // the repository alone meanwhile (and this waits while a gc holds it). Follows the workspace's
  // .gitignore files (not the user's global excludes; scan() says what they decide) and
  // `extra_ignore` (config snapshot.ignore: gitignore patterns relative to the root, given here
  // so the first scan already leaves them out); any `.git` and the root's .candor are never part
  // of a snapshot. `clock` (borrowed: it must outlive the store) says when a scan walks: a file
  // whose mtime or ctime is within two seconds of its wall() then is racy (it could change again
  // without its stat changing), so its stat data cannot vouch for it and the next scan reads it.
  static Result<std::unique_ptr<SnapshotStore>> open(const std::string& store_dir, const std::string& workspace_root,
                                                     Clock& clock, const std::vector<std::string>& extra_ignore = {});
  ~SnapshotStore();
  SnapshotStore(const SnapshotStore&) = delete;
  SnapshotStore& operator=(const SnapshotStore&) = delete;

  // Brings the index (in memory) up to date with the workspace. Returns the paths that differ
  // from the previous scan, sorted. This is the call made after every step that may write. A path
  // it cannot read goes to unread() and its entries stay as they were; kIo only when the
  // workspace itself cannot be listed, or the repository cannot be written.
  // Ignored means "not committed", not "does not matter" (docs/design.md, "Snapshots see everything"):
  // the scans before the first write_tree() (the snapshot before the run) take in every file but
  // those config snapshot.ignore excludes, in folders .gitignore ignores too. Later scans watch
  // every path the snapshot has held in this run (changed, deleted, made again), and take in a
  // path it has not held only when the frozen .gitignore rules do not ignore it (build output
  // stays out) or it is in `written`: what candor's file tools wrote since the last scan, taken
  // in whatever .gitignore says (snapshot.ignore still excludes it).
  Result<std::vector<std::string>> scan(const std::vector<std::string>& written = {});

  // scan() for when only candor's own file tools can have written since the last scan (no process
  // has run since) and `paths` are all they wrote: looks at these alone, as scan(paths) would (a
  // path the index does not hold is taken in unless config snapshot.ignore excludes it). A path
  // reached through a symlinked folder, or whose folder is gone, may have been written elsewhere:
  // then the whole workspace is scanned. REQUIRES: a scan() before, in this run.
  Result<std::vector<std::string>> scan_paths(const std::vector<std::string>& paths);

  // Asks for change events (docs/design.md, "Change detection in O(changes)"): inotify watches
  // placed as the scans walk, so that each scan after the snapshot before the run (the first
  // write_tree()) looks only at the paths the events name, at the files with another name and at
  // the racy ones. When the events cannot prove they are complete (the queue overflowed, a watch
  // could not be placed, a file system delivers none), that scan walks everything and last_scan()
  // says why. `max_watches` 0: as many as the kernel allows. REQUIRES: before the first scan.
  void watch_changes(std::size_t max_watches = 0);
  bool has_change_events() const;  // watch_changes() was called and inotify gave an instance
  // The next scan walks in full, for `reason`: something may have changed that no event names (a
  // process ran that could write through a hard link out of the workspace).
  void distrust_events(const std::string& reason);
  // What the change events named since the last call (drained now: the next scan still looks at it
  // too), every folder but the store's watched, ignored or not: files "a/b" and folders "a/" whose
  // whole content may have changed. nullopt when they cannot prove that nothing else changed (no
  // events, a scan since the last call walked in full, or the first call of the run): then look
  // everywhere. For what must see every change, as the credential files a process is kept from.
  // After a first scan_changed() from a watched base (watch_from_base()), the first call answers
  // for everything since the watches were placed.
  std::optional<std::set<std::string>> changes_since_last_call();
  // Between processes (docs/design.md, "Change detection in O(changes)"): the gate's start and stop
  // are two processes, and an fsmonitor (Watchman) watched the workspace between them. A turn's
  // start that asked it for a clock before its scan looked keeps the clock with the index it saves
  // (keep_fsmonitor_base()); the next start finds it (fsmonitor_base()), asks what changed since,
  // and scan_changed() looks there alone.
  struct FsmonitorBase {
    std::string clock;
    std::string daemon;  // who gave the clock, as the caller names it: another's clock means nothing
    bool operator==(const FsmonitorBase&) const = default;
  };
  // The base saved with the index as it is on disk: the index, with every path changed since the
  // clock looked at again, is what a scan before a run would find. nullopt when none was saved
  // with this index (none asked for, or the index was saved again without one).
  std::optional<FsmonitorBase> fsmonitor_base() const;
  // Whether the config's snapshot.ignore given to open() is the one the index was saved with: if
  // not, what the scans take in changed, and a scan by names would keep what was left out.
  bool ignore_as_saved() const;
  // flush() saves `base` with the index when this handle's first scan came before the run (a walk,
  // or scan_changed() from the saved base) and read everything: the caller's promise that
  // `base.clock` was taken before that scan looked. While the index is not saved again (a scan
  // changed few entries), the base saved with it stands.
  void keep_fsmonitor_base(FsmonitorBase base);
  // scan() looking only at `changed` (workspace-relative files, `.git` entries below the root, and
  // folders "a/b/" looked at only where the index holds a file or link they replaced: what the
  // fsmonitor named), at the racy files and at those with another name, and at the other names of
  // a file looked at that has more than one; everything else stands as the index holds it. As a handle's first scan (a
  // turn's start): `changed` is what changed since fsmonitor_base()'s clock, and the modes of folders and special files
  // are then not known (as after resume()), unless watch_from_base() took them from the base: then a
  // folder named that the base does not list is walked whole. After resume(): what changed since
  // the run's start.
  Result<std::vector<std::string>> scan_changed(const std::set<std::string>& changed);
  // The credential files a run's start found (workspace-relative) with their identities (dev, ino),
  // for flush() to save with the base beside the folders (a run's base only): the next run's start
  // then looks for credential files only where Watchman says, from these (saved_credentials()).
  // The caller's promise: they were looked for after the base's clock was taken.
  struct SavedCredentials {
    std::vector<std::string> files;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> identities;
    // What decided which files are credential files (the caller's: candor's version, the config's
    // exceptions): a list made under other rules is no answer for these.
    std::string rules;
    bool operator==(const SavedCredentials&) const = default;
  };
  void keep_credentials(SavedCredentials credentials);
  // Those saved with the base as loaded; nullopt when the base saved none (or lists no folders).
  std::optional<SavedCredentials> saved_credentials() const;
  // A run's start between processes (watch_changes() called, nothing scanned yet): watches again
  // every folder the base saved with the index lists, so that the caller can then ask the
  // fsmonitor what changed since the base's clock (what changed before is in its answer, what
  // changes after is an event), and scan_changed() takes the folders and special files from the
  // base too. Returns why it cannot, "" when it did: no such list was saved (a gate's turn saved
  // the base, or the watches were not complete), or the watches cannot be (the mounts beneath
  // the workspace changed, a watch could not be placed).
  std::string watch_from_base();
  // The files with another name (st_nlink > 1) as the scans know them: a write through the other
  // name is seen by a look at this one alone, so a later process adds them to scan_changed().
  std::vector<std::string> linked_files() const;

  // How the last scan looked at the workspace.
  struct ScanWay {
    bool walked = true;  // it walked everything (false: it looked where the events said)
    // Why it walked though change events were asked for: "" for the scans before the run's
    // snapshot (they walk by nature) and when watch_changes() was not called.
    std::string reason;
  };
  const ScanWay& last_scan() const;

  // Writes the tree of the index as of the last scan and returns its id: the snapshot. While no
  // scan has changed the index's contents since it was last built (in this run, or saved with
  // the index by the last flush), the same id, without building it again.
  Result<std::string> write_tree();

  // Saves the index, the stat cache that makes the next run's first scan cheap, with the
  // snapshot.ignore patterns it was pruned with and the tree its contents make. An index no scan
  // changed is not written again.
  Status flush();

  // Continues, in this process, a run another process began (the live gate: a turn starts in one
  // hook call and ends in the next). `before_tree` is the snapshot that run wrote before it began,
  // `extra_patterns` its config snapshot.ignore. The index is made to hold exactly that tree (the
  // stat data kept where an entry still names the same content, so the next scan stays warm); the
  // ignore rules are fixed from the tree's own .gitignore files, as they were when the run began
  // and never as it left them; and the scans from now on are the run's later scans: they watch
  // every path the tree holds and take in a new one only where those rules do not ignore it. What
  // a new process cannot know: the modes of folders and of FIFOs, sockets and devices at the
  // start (no tree holds them), so access_changes(), special_changes() and created_folders() say
  // nothing, and a file's whole mode at the start is git's (644/755).
  // REQUIRES: no scan yet on this handle; `before_tree` is in the store (pinned).
  Status resume(const std::string& before_tree, const std::vector<std::string>& extra_patterns);

  // The paths the index holds now (the snapshot's files as of the last scan) that `keep` takes,
  // in path order.
  std::vector<std::string> held_paths(const std::function<bool(std::string_view)>& keep) const;
  // The paths the index holds with the whole mode the scans of this process saw (st_mode; paths
  // no scan looked at are left out) that `keep` takes, in path order.
  std::vector<std::pair<std::string, std::uint32_t>> held_modes(
      const std::function<bool(std::string_view, std::uint32_t)>& keep) const;

  // Fixes the ignore rules for the rest of the run: the .gitignore files as the first scan found
  // them (it copies them right after its walk; not those in folders the others ignore, which git
  // never reads) plus `extra_patterns` (config snapshot.ignore), which replace those given to
  // open(). Entries `extra_patterns` exclude leave the index when the first scan may have taken
  // them in; entries only the .gitignore files ignore stay (see scan()).
  // REQUIRES: called once, right after the run's first scan and before its first write_tree().
  Status freeze_ignore_rules(const std::vector<std::string>& extra_patterns);

  // Paths the scans of this run could not read, sorted, each once: folders end in '/'. Non-empty
  // means the snapshots are incomplete.
  const std::vector<std::string>& unread() const;

  // Scans from now on read no file they have not begun by `deadline` (a large file streamed is
  // given up within a megabyte of it): what they leave goes to unread(), and ran_out_of_time()
  // says so. An unbounded Deadline: none. The walk itself (a stat per file) is not cut short.
  void set_deadline(const Deadline& deadline);
  bool ran_out_of_time() const;

  // Who may do what with a path: its whole mode (type, permission bits, setuid/setgid/sticky) and
  // its owner. git's trees hold only 644/755: a step that makes a file setuid, a folder
  // world-writable or gives the workspace to another user changes nothing git shows.
  struct Access {
    std::uint32_t mode = 0;  // st_mode
    std::uint32_t uid = 0, gid = 0;
    bool operator==(const Access&) const = default;
  };
  struct AccessChange {
    std::string path;      // a folder's ends in '/' (the root is "./")
    Access before, after;  // before.mode 0: the path was not there
  };
  // Files and folders present at the scans before the first write_tree() (the snapshot before the
  // run) and at the latest scan, whose mode or owner differs, in path order.
  std::vector<AccessChange> access_changes() const;
  // Folders the latest full scan listed that those first scans did not.
  std::vector<AccessChange> created_folders() const;
  // FIFOs, sockets and devices (no tree holds them) made, removed or changed since those first
  // scans: `before.mode` 0 for one made, `after.mode` 0 for one gone.
  std::vector<AccessChange> special_changes() const;
  // The access of `path` (a folder's ending in '/') at the latest scan that looked at it, and at
  // the run's first scans; nullopt when not known. access_at_start() of a path that did not exist
  // then is meaningless: ask only for paths that did.
  std::optional<Access> access_now(const std::string& path) const;
  std::optional<Access> access_at_start(const std::string& path) const;
  // Every `.git` (folder, file or link) the full scans met below the root ("vendor/lib/.git"):
  // never walked into, but fingerprinted by the caller as a protected path.
  const std::set<std::string>& nested_git() const;

  // For tests: called by scan() after the walk and before file contents are read, so a test can
  // change the workspace in that window as a racing process could.
  void set_after_walk_hook_for_tests(std::function<void()> hook);

  // The net change from `from_tree` to `to_tree`: added/modified/deleted, sizes, line counts.
  // `steps` and `last_change_seq` are left for the caller to attribute.
  Result<std::vector<Mutation>> diff(const std::string& from_tree, const std::string& to_tree) const;

  // Unified diff text of one path between two trees, for people and the judge. Capped.
  Result<std::string> patch_text(const std::string& from_tree, const std::string& to_tree, const std::string& path,
                                 std::size_t max_bytes) const;

  using TreeFile = snapshot::TreeFile;
  using TreeEntryInfo = snapshot::TreeEntryInfo;
  // `path` in `tree` with its mode; nullopt when the path is not in it.
  Result<std::optional<TreeFile>> read_file(const std::string& tree, const std::string& path) const;
  // What is at `path` in `tree`: nullopt when nothing is. "." is the tree itself.
  Result<std::optional<TreeEntryInfo>> stat(const std::string& tree, const std::string& path) const;

  // Reads and diffs of the snapshot trees (what the methods above go through).
  GitTrees trees() const;

  // Content of `path` in `tree`; nullopt when the path is not in it.
  Result<std::optional<std::string>> read(const std::string& tree, const std::string& path) const;

  // Keeps `tree` reachable under refs/candor/<name>.
  Status pin(const std::string& tree, const std::string& name);

  // Copies into the store the contents of `paths` in each of `trees` that only the workspace's
  // own repository holds (a first snapshot names the blobs its index vouches for without copying
  // them), so the run can still be undone, diffed and judged after that repository is gc'd. A
  // path whose content cannot be found anywhere goes to unread(). Call it with the mutated paths
  // of a run, before and after.
  Status retain(const std::vector<std::string>& trees, const std::vector<std::string>& paths);

  const std::string& repository_path() const { return repo_path_; }

 private:
  struct Impl;
  explicit SnapshotStore(std::unique_ptr<Impl> impl, std::string repo_path);
  // What scan() and scan_changed() share once they know where to look (`named` null: everywhere).
  Result<std::vector<std::string>> look(const std::set<std::string>* named, const std::vector<std::string>& written);
  std::unique_ptr<Impl> impl_;
  std::string repo_path_;
};

// The workspace's own `.git/` and `.candor/` (protected_paths.cc): no step may change them, except
// for the history the git_commit tool records. Capturing only stats (no content is read); comparing
// is pure. The `.git` entries nested below the root are those SnapshotStore::nested_git() names.

// Enough of a stat to tell that an entry changed: a rewrite in place moves mtime/ctime, a
// replacement by rename changes the inode, a chmod moves ctime.
struct StatFingerprint {
  char type = '?';  // 'f' file, 'd' folder, 'l' symlink, 'o' anything else
  std::int64_t size = 0;
  std::uint32_t mode = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  std::uint64_t inode = 0;
  bool operator==(const StatFingerprint&) const = default;
};

struct ProtectedState {
  // Workspace-relative paths: ".git", ".git/HEAD", ".candor/config.json", ... (the roots too).
  // Beneath `.git/objects/` only `info/` is looked at: objects alone change nothing a person
  // sees, and there are many.
  std::map<std::string, StatFingerprint> entries;
  // Paths beneath the protected roots that could not be looked at, sorted.
  std::vector<std::string> unread;
};

// Stats `.git` and `.candor` in `workspace_root` and every entry beneath them, and each of
// `nested_git` (workspace-relative `.git` entries below the root, "vendor/lib/.git": a nested
// repository's config can carry commands that a later `git status` there runs), without following
// symlinks. A missing root is simply absent from `entries`. kIo only when the workspace itself
// cannot be opened.
Result<ProtectedState> capture_protected_state(const std::string& workspace_root,
                                               const std::set<std::string>& nested_git = {});

// One sentence per change between two captures, for a person to act on, in path order:
// "`.candor/config.json` was created during the run", "`.git/hooks/pre-commit` was modified",
// "`.git/config` was deleted during the run". When `history_recorded` (a git_commit step ran), the
// entries that recording a commit changes are allowed: .git/index, .git/logs/**, .git/COMMIT_EDITMSG,
// .git/ORIG_HEAD, .git/refs/heads/**, .git/packed-refs (and the folders holding them).
std::vector<std::string> protected_changes(const ProtectedState& before, const ProtectedState& after,
                                           bool history_recorded);

// The same for a turn of another agent (`candor gate`): beyond a commit's own changes, the history
// its git commands record as a matter of course (fetched refs, FETCH_HEAD, the stash, tags, the
// state of a merge or rebase in progress) is no finding; hooks, config, info/ and the rest still are.
std::vector<std::string> protected_changes_by_agent(const ProtectedState& before, const ProtectedState& after);

// A capture as JSON ({"entries": {path: [type, size, mode, mtime_ns, ctime_ns, inode]}, "unread":
// [...]}), to keep it from one process to the next, and back (a malformed entry is left out).
nlohmann::json to_json(const ProtectedState& state);
ProtectedState protected_state_from_json(const nlohmann::json& j);

// The credentials of a run that has ended (run_credentials.cc), for a later process that renders or
// judges it (`candor report --html`, `candor verify RUN`): that process did not see the run start,
// and the workspace may have changed since. The credential files the run named at its start
// (RunFacts::credential_files) are read back from its pre-run snapshot, which keeps their bytes,
// and from its post-run one when it has one (the values the run or the change wrote are secrets
// too); the variables are this process's own.
//
// Never fails: a file the snapshot does not hold (left out by config `snapshot.ignore`) is said in
// the registry's unread(), its values not masked.
// `also`, when set, adds what no tree holds (a working tree's ignored credential files).
std::shared_ptr<const sandbox::CredentialRegistry> run_credentials(
    const GitTrees& trees, const RunFacts& facts, char** environ_in,
    const std::function<void(sandbox::CredentialRegistry&)>& also = nullptr);

}  // namespace candor::snapshot
