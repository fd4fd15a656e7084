// The snapshot store's index: for every path of the last snapshot, its blob id and mode and the
// stat data that vouch for them. Saved in git's index format (version 2), so git and libgit2 read
// the file, but loaded with one read and one allocation for all entries: libgit2 allocates each
// entry, which at 100,000 files cost ~120 ms on every run's critical path.
#pragma once

#include <sys/stat.h>

#include <git2/oid.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "snapshot/large_pages.h"
#include "snapshot/workdir_walk.h"

namespace candor::snapshot {

// One entry, its numbers truncated to 32 bits as git truncates them.
struct StatEntry {
  std::uint32_t ctime_s = 0, ctime_ns = 0, mtime_s = 0, mtime_ns = 0;
  std::uint32_t dev = 0, ino = 0, mode = 0, uid = 0, gid = 0, size = 0;
  git_oid id{};
  std::string_view path;  // owned by the StatIndex holding the entry (or by the caller, before put)
  // The file's whole st_mode (type, permission bits, setuid/setgid/sticky) as last seen by a scan
  // of this process; 0 when none has looked yet (an entry loaded from a file, or seeded). Not saved:
  // git's format holds only `mode`, and a run's first scan sees every file anyway.
  std::uint32_t full_mode = 0;
};

// The entry for what `st` describes, holding `id`, at `path` (not copied).
StatEntry stat_entry(const struct stat& st, const git_oid& id, std::string_view path);

// git's stat comparison: what the index remembers of a file against what the file is now. A match
// (outside the racy set) lets the entry's id stand for the content without reading it. As in git,
// a size of 0 matches only for the empty blob: git zeroes the size of an entry it "smudged".
bool stat_matches(const StatEntry& e, const FileStat& f);

class StatIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Reads `file` (git's index format, versions 2 and 3; its checksum checked; extensions skipped).
  // Left out: entries of a merge conflict and those git does not compare with the file
  // (assume-valid, skip-worktree, intent-to-add). No such file: an empty index. kInvalidInput, naming the file and what
  // is wrong, for one that is not an index (truncated, a bad checksum, entries out of order).
  // `mapped`: the file is mapped rather than read into fresh memory (on a virtual machine a fresh
  // page costs a fault in the host too: ~45 ms for a 100,000-entry index), and the paths are
  // copied out of it before it is unmapped. Only for a file candor alone writes (the store's own
  // index): a file another process truncates while it is mapped kills this one (SIGBUS).
  static Result<StatIndex> load(const std::string& file, bool mapped = false);
  // Writes the index to `file` in version 2 through `file`.lock (created exclusively, as git and
  // libgit2 do: a writer that finds one fails), renamed over `file`.
  Status write(const std::string& file);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const StatEntry& at(std::size_t i) const { return entries_[i]; }
  // Position of the entry for `path`, or npos.
  std::size_t find(std::string_view path) const;
  // Position of the first entry not sorted before `path` (size() when there is none).
  std::size_t lower_bound(std::string_view path) const;
  // Whether any entry lies beneath `dir` ("a/b/"). Paths sharing a prefix are contiguous.
  bool has_prefix(std::string_view dir) const;
  // The positions [first, second) of the entries beneath `dir` ("a/b/", or "" for all): find_in()
  // looks a path of that folder up among them alone, as a scan does file after file of a folder.
  std::pair<std::size_t, std::size_t> prefix_range(std::string_view dir) const;
  std::size_t find_in(std::string_view path, std::pair<std::size_t, std::size_t> range) const;

  // Records the whole st_mode a scan saw for the entry at `pos`. Entries are distinct memory, so
  // walker threads may each set their own entries while nothing adds or removes any.
  void set_full_mode(std::size_t pos, std::uint32_t full_mode) { entries_[pos].full_mode = full_mode; }
  // Adds `e`, or replaces the entry at its path; the path is copied.
  void put(const StatEntry& e);
  // put() for many: `entries` sorted by path, no path twice. One merge, not one move per entry.
  void put_sorted(const std::vector<StatEntry>& entries);
  // False when there was no entry at `path`.
  bool remove(std::string_view path);
  // remove() for many, in one pass.
  void remove_all(std::vector<std::string_view> paths);
  void clear();

  // Keep only the entries `keep` says to.
  void keep_if(const std::function<bool(const StatEntry&)>& keep);
  // The paths whose stat data cannot vouch for their content (git's racy rule): entries saved no
  // earlier than a second before the file load() read them from was written. None when the index
  // was not read from a file (or forget_file() was called).
  std::vector<std::string_view> racy() const;
  // Copies the paths of the entries read from the file into a buffer of their own size and frees
  // the file's: a git index is ~4 times its paths (at 1,000,000 entries, ~100 MB against ~25 MB),
  // and an index is held for the whole run.
  void release_file();
  // release_file() for the entries whose paths lie in [from, to).
  void copy_paths_from(const char* from, const char* to);
  // Forget the file the index was read from (an index read from elsewhere, to be saved here).
  void forget_file() {
    checksum_.clear();
    file_mtime_s_.reset();
  }

  // The checksum (hex) at the end of the file this index was last read from or written to; ""
  // when neither happened.
  const std::string& checksum() const { return checksum_; }

 private:
  std::string_view own(std::string_view path);

  std::vector<StatEntry, LargePageAllocator<StatEntry>> entries_;  // sorted by path, as git sorts (bytes, unsigned)
  LargeBuffer file_;               // the file as read: the loaded entries' paths point into it
  std::deque<std::string> added_;  // paths put since (a deque: its strings never move)
  std::string checksum_;
  std::optional<std::int64_t> file_mtime_s_;  // of the file load() read
};

}  // namespace candor::snapshot
