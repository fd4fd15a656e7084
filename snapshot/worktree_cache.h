// What `verify --git BASE..` read of a working tree, kept in candor's store for the next read of
// the same tree (docs/design.md, "Change detection in O(changes)"): every file it took in, with
// its blob id and the stat data that vouch for it (a StatIndex: git's index format), and, with
// config snapshot.fsmonitor "watchman", the clock taken before it looked. The working tree is the
// change and untrusted, and so is the repository's own index; this cache lives in the store,
// outside the workspace, and only candor writes it. One that cannot be read is no cache: the read
// walks and hashes every file, as a first read does.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "snapshot/stat_index.h"

namespace candor::snapshot {

// What the files were read under: the next read may look only where Watchman says when its
// answer is from the same daemon since `clock`, and the ignore rules are the same `rules`.
struct WorktreeCacheBase {
  std::string clock;   // taken before the read looked
  std::string daemon;  // who gave it (watchman_daemon_name)
  std::string rules;   // BASE's ignore rules the read took files in by (worktree_rules_key)
  bool operator==(const WorktreeCacheBase&) const = default;
};

class WorktreeCache {
 public:
  // The cache of the working tree at `root` (absolute) in the store at `store_dir`. Never an error:
  // none, or one that cannot be read, is an empty cache, and why_none() says which.
  static WorktreeCache load(const std::string& store_dir, const std::string& root);

  // The files of the last read, sorted by path; their racy() paths vouch for nothing by stat.
  const StatIndex& files() const { return files_; }
  // The base the files were saved with; none when they were saved without a clock or the two
  // files do not belong together.
  const std::optional<WorktreeCacheBase>& base() const { return base_; }
  const std::string& why_none() const { return why_none_; }

  // Replaces the cache with `files` (none: the files stand as they are) and `base` (none: no clock
  // to look from next time). An error names the file; a cache not saved costs the next read its
  // time, never its answer.
  Status save(std::optional<StatIndex> files, const std::optional<WorktreeCacheBase>& base);

 private:
  std::string dir_;  // <store>/worktrees/<16 hex digits of the root's hash>
  std::string root_;
  StatIndex files_;
  std::optional<WorktreeCacheBase> base_;
  std::string why_none_;
};

// The folder the cache of `root` lives in.
std::string worktree_cache_dir(const std::string& store_dir, const std::string& root);

// How many working trees' caches the store keeps (the most recently saved): an `eval` reads a
// fresh checkout per task, whose cache no later read uses.
inline constexpr std::size_t kWorktreeCachesKept = 8;

}  // namespace candor::snapshot
