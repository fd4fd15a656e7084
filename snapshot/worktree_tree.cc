#include "snapshot/worktree_tree.h"

#include <fcntl.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include <git2/odb.h>
#include <git2/sys/repository.h>

#include "sandbox/step_temp_dir.h"
#include "snapshot/base_tree.h"
#include "snapshot/beneath.h"
#include "snapshot/change_events.h"
#include "snapshot/fsmonitor_start.h"
#include "snapshot/git_names.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_shadow.h"
#include "snapshot/snapshot_objects.h"
#include "snapshot/tree_update.h"
#include "snapshot/trees.h"
#include "snapshot/watchman.h"
#include "snapshot/workdir_walk.h"
#include "snapshot/worktree_cache.h"

namespace candor::snapshot {
namespace {

using Config = GitPtr<git_config, git_config_free>;

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("git: working tree: {}: {}", what, git_last_error()));
}

bool is_gitignore(std::string_view path) {
  constexpr std::string_view kName = ".gitignore";
  return path.size() >= kName.size() && path.substr(path.size() - kName.size()) == kName &&
         (path.size() == kName.size() || path[path.size() - kName.size() - 1] == '/');
}

// BASE's ignore rules, and nothing else's: BASE's .gitignore blobs in a private folder that a
// handle on an empty repository of its own reads as its work tree, with `extra` on top. The
// handle's config is its own file only, its excludes file one that never exists: no info/exclude
// or global rules of the repository being verified (or of the user's home) take part.
class BaseIgnoreRules {
 public:
  static Result<std::unique_ptr<BaseIgnoreRules>> create(git_repository* repo, const BaseTree& base,
                                                         const std::vector<std::string>& extra) {
    auto rules = std::unique_ptr<BaseIgnoreRules>(new BaseIgnoreRules());
    TRY(rules->scratch_, sandbox::StepTempDir::create());
    TRY(rules->shadow_, IgnoreShadow::create(rules->scratch_.path()));
    for (std::size_t i = 0; i < base.size(); ++i) {
      const BaseEntry* e = &base.at(i);
      // git reads no .gitignore that is a symlink; neither does the shadow.
      if (!is_gitignore(e->path) || (e->mode != 0100644 && e->mode != 0100755)) continue;
      GitBlob blob;
      if (git_blob_lookup(blob.out(), repo, &e->id) != 0) return git_failure("read BASE's " + std::string(e->path));
      std::string_view content(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                               static_cast<std::size_t>(git_blob_rawsize(blob.get())));
      if (!rules->shadow_.write(std::string(e->path), content)) {
        return make_error(ErrorCode::kIo,
                          fmt::format("working tree: cannot copy BASE's {} into {}", e->path, rules->shadow_.path()));
      }
    }
    TRY_STATUS(rules->open_handle(extra));
    return rules;
  }

  // `path` is a file, or a folder when it ends in '/'. A path in an ignored folder is ignored.
  bool ignored(const std::string& path) const {
    int ignored = 0;
    return git_ignore_path_is_ignored(&ignored, handle_.get(), path.c_str()) == 0 && ignored == 1;
  }

 private:
  BaseIgnoreRules() = default;

  Status open_handle(const std::vector<std::string>& extra) {
    std::string repo_path = scratch_.path() + "/rules.git";
    git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
    if (git_repository_init_ext(handle_.out(), repo_path.c_str(), &opts) != 0) return git_failure("init " + repo_path);
    Config cfg;
    if (git_config_open_ondisk(cfg.out(), (repo_path + "/config").c_str()) != 0 ||
        git_repository_set_config(handle_.get(), cfg.get()) != 0 ||
        git_config_set_string(cfg.get(), "core.excludesfile", (scratch_.path() + "/no-excludes").c_str()) != 0 ||
        git_config_set_bool(cfg.get(), "core.ignorecase", 0) != 0) {
      return git_failure("configure " + repo_path);
    }
    if (git_repository_set_workdir(handle_.get(), shadow_.path().c_str(), 0) != 0)
      return git_failure("set the rules' work tree");
    std::string text;
    for (const auto& p : extra) text += p + "\n";
    if (!text.empty() && git_ignore_add_rule(handle_.get(), text.c_str()) != 0)
      return git_failure("add snapshot.ignore rules");
    return ok_status();
  }

  sandbox::StepTempDir scratch_;
  IgnoreShadow shadow_;
  GitRepo handle_;  // last: closed before the folders it reads are removed
};

// Every path BASE or the index tracks, sorted: the folders the walk enters in parallel. Views of
// the indexes' own paths (both sorted already), so neither may change while this lives.
class TrackedPaths {
 public:
  TrackedPaths(const BaseTree& base, const StatIndex& index) {
    std::vector<std::string_view> a(base.size()), b(index.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = base.at(i).path;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = index.at(i).path;
    paths_.reserve(a.size() + b.size());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(paths_));
  }
  const std::vector<std::string_view>& paths() const { return paths_; }
  // Whether anything tracked lies beneath `dir` ("a/b/"). Thread-safe.
  bool has_prefix(std::string_view dir) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), dir);
    return it != paths_.end() && it->substr(0, dir.size()) == dir;
  }

 private:
  std::vector<std::string_view> paths_;
};

struct Walked {
  std::vector<FileStat> files;
  std::vector<std::string> unread;
};

// Whether the walk enters `dir` ("a/b/"), nothing tracked beneath it: not a submodule of BASE's,
// not candor's store, not ignored by BASE's rules (nor inside a folder they ignore).
bool enters_untracked(const std::string& dir, const BaseTree& base, const BaseIgnoreRules& rules,
                      const std::string& skip_dir) {
  const BaseEntry* link = base.find(std::string_view(dir).substr(0, dir.size() - 1));
  return !((link != nullptr && link->mode == kGitlinkMode) || dir == skip_dir || rules.ignored(dir));
}

// Every regular file and symlink beneath `start` ("" the root, or "a/b/") that git could show:
// folders with something tracked are walked in parallel; the others are entered only when
// enters_untracked() says so.
Walked walk(const BeneathRoot& root, const std::string& start, const TrackedPaths& tracked, const BaseTree& base,
            const BaseIgnoreRules& rules, const std::string& skip_dir) {
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<std::vector<FileStat>> buckets(threads);
  FileVisitor visit = [&](unsigned t, const FileStat& f) { buckets[t].push_back(f); };
  WalkOptions everything{.skip_candor_files = false};
  WalkResult first = walk_workdir(
      root, start, [&](std::string_view dir) { return tracked.has_prefix(dir); }, visit, threads, everything);
  Walked out;
  out.unread = std::move(first.unread);
  std::deque<std::string> dirs(first.untracked_dirs.begin(), first.untracked_dirs.end());
  while (!dirs.empty()) {
    std::string dir = dirs.front();
    dirs.pop_front();
    if (!enters_untracked(dir, base, rules, skip_dir)) continue;
    WalkResult inner = walk_workdir(
        root, dir, [](std::string_view) { return false; }, visit, 1, everything);
    out.unread.insert(out.unread.end(), inner.unread.begin(), inner.unread.end());
    dirs.insert(dirs.end(), inner.untracked_dirs.begin(), inner.untracked_dirs.end());
  }
  for (auto& b : buckets) std::move(b.begin(), b.end(), std::back_inserter(out.files));
  return out;
}

// Whether `path` lies in (or is) something the walk could not read.
bool hidden_by_unread(const std::vector<std::string>& unread, std::string_view path) {
  for (const auto& u : unread) {
    bool folder = u.back() == '/';
    if (u == "./" || (folder ? path.starts_with(u) : (path == u || (path.starts_with(u) && path[u.size()] == '/'))))
      return true;
  }
  return false;
}

// Whether a walk could meet `path` (a file, or a folder "a/b/") at all: not inside a `.git`, a
// submodule of BASE's or candor's store. A file where BASE has a submodule is met (it took the
// submodule's place); a folder there is the submodule's, and not entered, unless the index tracks
// something beneath it (the walk enters every folder holding something tracked).
bool walk_meets(std::string_view path, const BaseTree& base, const TrackedPaths& tracked, const std::string& skip_dir) {
  if (!skip_dir.empty() && path.starts_with(skip_dir)) return false;
  for (std::size_t from = 0; from < path.size();) {
    std::size_t slash = path.find('/', from);
    std::size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (path.substr(from, end - from) == ".git") return false;
    from = end + 1;
  }
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
    const BaseEntry* e = base.find(path.substr(0, slash));
    if (e != nullptr && e->mode == kGitlinkMode && !tracked.has_prefix(path.substr(0, slash + 1))) return false;
  }
  return true;
}

// The rules a read takes files in by, as one id: BASE's .gitignore files and submodules, config
// snapshot.ignore and the store's folder. A read saved under other rules took other files in, and
// Watchman names no change to the files those rules now let in.
std::string rules_key(const BaseTree& base, const WorktreeSource& source) {
  std::string text = "skip " + source.skip_dir + "\n";
  for (const auto& p : source.extra_ignore) text += "ignore " + p + "\n";
  char hex[GIT_OID_HEXSZ + 1];
  for (std::size_t i = 0; i < base.size(); ++i) {
    const BaseEntry& e = base.at(i);
    if (!is_gitignore(e.path) && e.mode != kGitlinkMode) continue;
    git_oid_tostr(hex, sizeof hex, &e.id);
    text += fmt::format("{} {:o} {}\n", e.path, e.mode, hex);
  }
  git_oid id;
  git_odb_hash(&id, text.data(), text.size(), GIT_OBJECT_BLOB);
  git_oid_tostr(hex, sizeof hex, &id);
  return hex;
}

struct Content {
  Entry::Kind kind = Entry::Kind::kGone;
  git_oid id{};
  std::uint32_t mode = 0;
  struct stat st {};  // the file's, from its descriptor before it was read: what the cache keeps
};

// Reads `path` through a descriptor beneath the root into the object database: a file's bytes, a
// symlink's target (never followed).
Result<Content> read_content(const BeneathRoot& root, git_odb* odb, const std::string& path) {
  Entry e = root.look(path);
  Content c{e.kind};
  if (e.kind == Entry::Kind::kGone || e.kind == Entry::Kind::kUnreadable) return c;
  std::string bytes;
  if (e.kind == Entry::Kind::kSymlink) {
    bytes = std::move(e.target);
  } else if (!read_to_end(e.fd.get(), bytes)) {
    c.kind = Entry::Kind::kUnreadable;
    return c;
  }
  c.mode = git_file_mode(e.st);
  c.st = e.st;
  if (git_odb_write(&c.id, odb, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) != 0) return git_failure("write " + path);
  return c;
}

// What Watchman says of the working tree since the earlier read's clock, when the read may look
// by it alone; else why it walks, and the clock taken before it does.
struct WatchmanLook {
  std::optional<std::set<std::string>> changed;
  std::string clock;  // to save with this read ("": none)
  std::string daemon;
  std::string reason;
};

WatchmanLook ask_watchman(const WorktreeSource& source, const std::optional<WorktreeCache>& cache,
                          const std::string& rules) {
  WatchmanLook out;
  // Watchman hears of no mount made over a folder or taken away, nor of what another machine or a
  // FUSE daemon changes beneath one: with a mount beneath, the read walks and saves no clock, so
  // the next walks too (and sees what the mount covered, if it is gone).
  if (auto mounts = mounts_beneath_now(source.root); !mounts || !mounts->empty()) {
    out.reason = mounts ? "a file system is mounted beneath the working tree (" + *mounts->begin() + ")"
                        : "the mounts beneath the working tree cannot be read (/proc/self/mountinfo)";
    return out;
  }
  auto watchman = Watchman::connect(source.root, source.watchman_timeout);
  if (!watchman.ok()) {
    out.reason = watchman.error().message;
    return out;
  }
  out.daemon = watchman_daemon_name(watchman->daemon());
  if (!cache) {
    out.reason = "candor's store lies inside the working tree, where the change could write an earlier read";
  } else if (!cache->base()) {
    out.reason = cache->why_none();
  } else if (cache->base()->daemon != out.daemon) {
    out.reason = "the clock saved with the earlier read is another Watchman's (it restarted)";
  } else if (cache->base()->rules != rules) {
    out.reason = "BASE's ignore rules or submodules are not those the earlier read took files in by";
  } else if (auto changes = watchman->changes_since(cache->base()->clock, watchman->daemon()); !changes.ok()) {
    out.reason = changes.error().message;
  } else {
    out.changed = std::move(changes->paths);
    out.clock = std::move(changes->clock);
    return out;
  }
  // Taken before the walk looks: whatever changes while it walks, the next answer names.
  if (auto fresh = watchman->clock(); fresh.ok()) out.clock = *fresh;
  return out;
}

// The files the read takes in: those to look at now, and those the cache vouches for unread.
struct Takes {
  std::vector<FileStat> looked;
  std::vector<const StatEntry*> vouched;
  std::vector<std::string> unread;
};

// The read by Watchman's answer: the earlier read's files, but for those it names (and what is
// tracked that the earlier read did not take in, which it has no reason to name) looked at again.
Takes by_answer(const BeneathRoot& root, const std::set<std::string>& changed, const StatIndex& earlier,
                const TrackedPaths& tracked, const BaseTree& base, const BaseIgnoreRules& rules,
                const std::string& skip_dir, const std::function<bool(const StatEntry&)>& vouches) {
  Takes out;
  // What is looked at again: the files named, and a file or link the record holds where a folder
  // is named (it may have taken the file's place: Watchman names the folder alone).
  std::set<std::string, std::less<>> named;
  std::vector<std::string> folders;
  for (const auto& path : changed) {
    const std::string p = path == "/" ? "" : path;
    if (!walk_meets(p, base, tracked, skip_dir)) continue;
    if (!p.empty() && p.back() != '/') {
      named.insert(p);
      continue;
    }
    folders.push_back(p);
    if (!p.empty() && earlier.find(std::string_view(p).substr(0, p.size() - 1)) != StatIndex::npos)
      named.insert(p.substr(0, p.size() - 1));
  }
  for (std::size_t k = 0; std::string_view t : tracked.paths()) {  // both sorted: one pass
    while (k < earlier.size() && earlier.at(k).path < t) ++k;
    if ((k == earlier.size() || earlier.at(k).path != t) && walk_meets(t, base, tracked, skip_dir)) named.emplace(t);
  }
  std::vector<std::string> names(named.begin(), named.end());
  for (std::size_t i = 0; i < earlier.size(); ++i) {
    const StatEntry& e = earlier.at(i);
    if (named.count(e.path) != 0) continue;
    if (vouches(e))
      out.vouched.push_back(&e);
    else
      names.emplace_back(e.path);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  WalkOptions everything{.skip_candor_files = false};
  PathsLooked looked = look_at_paths(
      root, names, [&](unsigned, const FileStat& f) { out.looked.push_back(f); }, everything);
  out.unread = std::move(looked.result.unread);
  auto entered = [&](const std::string& dir) {
    return dir.empty() || tracked.has_prefix(dir) || enters_untracked(dir, base, rules, skip_dir);
  };
  for (const auto& dir : looked.folders_now) {
    if (!walk_meets(dir, base, tracked, skip_dir) || !entered(dir)) continue;
    Walked inner = walk(root, dir, tracked, base, rules, skip_dir);
    std::move(inner.files.begin(), inner.files.end(), std::back_inserter(out.looked));
    out.unread.insert(out.unread.end(), inner.unread.begin(), inner.unread.end());
  }
  // A folder that changed and can no longer be listed is unread, as the walk would find it.
  for (const auto& dir : folders) {
    if (!entered(dir)) continue;
    Opened opened = root.open(dir.empty() ? dir : dir.substr(0, dir.size() - 1), O_RDONLY | O_DIRECTORY);
    if (!opened.fd.valid() && !is_gone(opened.error)) out.unread.push_back(dir.empty() ? "./" : dir);
  }
  std::sort(out.looked.begin(), out.looked.end(), [](const FileStat& a, const FileStat& b) { return a.path < b.path; });
  out.looked.erase(std::unique(out.looked.begin(), out.looked.end(),
                               [](const FileStat& a, const FileStat& b) { return a.path == b.path; }),
                   out.looked.end());
  // What is looked at again, or out of sight now, the earlier read does not vouch for.
  std::erase_if(out.vouched, [&](const StatEntry* e) {
    auto it = std::lower_bound(out.looked.begin(), out.looked.end(), e->path,
                               [](const FileStat& f, std::string_view p) { return f.path < p; });
    return (it != out.looked.end() && it->path == e->path) || hidden_by_unread(out.unread, e->path);
  });
  return out;
}

// One read of a working tree, phase by phase: read() is the list of them.
class WorktreeReader {
 public:
  static Result<std::unique_ptr<WorktreeReader>> open(git_repository* repo, const WorktreeSource& source) {
    auto r = std::unique_ptr<WorktreeReader>(new WorktreeReader(repo, source));
    TRY(r->base_, BaseTree::read(repo, source.base_tree));
    // The index says which paths are tracked (a file staged but not in BASE is never ignored); its
    // ids and stat cache are not used. The change is untrusted, and so is an index it may have
    // written: an entry forged with a modified file's stat and the old id would hide the edit.
    seed_from_index(r->index_, source.index_file, nullptr, [](std::string_view) { return true; });
    TRY(r->rules_, BaseIgnoreRules::create(repo, r->base_, source.extra_ignore));
    auto root = BeneathRoot::open(source.root);
    if (!root.ok()) return root.error().wrap("working tree");
    r->root_.emplace(std::move(*root));
    if (git_repository_odb(r->odb_.out(), repo) != 0) return git_failure("open the object database");
    r->tracked_.emplace(r->base_, r->index_);  // views of base_ and index_, which stay put
    return r;
  }

  Result<WorktreeRead> read() {
    ask_where_to_look();
    TRY_STATUS(find_files());
    TRY_STATUS(read_files());
    compare_with_base();
    TRY_STATUS(write_tree());
    keep_record();
    return std::move(out_);
  }

 private:
  WorktreeReader(git_repository* repo, const WorktreeSource& source) : repo_(repo), source_(source) {}

  // candor's own record of the earlier read, in its store (never one the change could write), and
  // with Watchman, whether its answer since that read's clock can stand for a walk.
  void ask_where_to_look() {
    if (!source_.store_dir.empty() && source_.skip_dir.empty())
      cache_ = WorktreeCache::load(source_.store_dir, source_.root);
    rules_id_ = rules_key(base_, source_);
    if (!source_.watchman) return;
    look_ = ask_watchman(source_, cache_, rules_id_);
    out_.looked = look_.changed ? "watchman" : "walk";
    out_.reason = look_.reason;
  }

  // The files to take in: where Watchman's answer says, or by a walk.
  Status find_files() {
    if (look_.changed) {
      takes_ = by_answer(*root_, *look_.changed, cache_->files(), *tracked_, base_, *rules_, source_.skip_dir,
                         [this](const StatEntry& e) {
                           const BaseEntry* in_base = base_.find(e.path);
                           return taken(e.path, in_base) && at_hand(e, in_base);
                         });
    } else {
      Walked walked = walk(*root_, "", *tracked_, base_, *rules_, source_.skip_dir);
      takes_.looked = std::move(walked.files);
      takes_.unread = std::move(walked.unread);
    }
    if (std::find(takes_.unread.begin(), takes_.unread.end(), "./") != takes_.unread.end())
      return make_error(ErrorCode::kIo, "working tree: cannot list " + source_.root);
    return ok_status();
  }

  // Each file found read into the object database, or vouched for by the record; kept_ holds them
  // all, sorted by path.
  Status read_files() {
    if (cache_) {
      for (std::string_view p : cache_->files().racy()) racy_.insert(p);
    }
    record_changed_ = !cache_.has_value();
    GitNameCheck names;
    for (const FileStat& f : takes_.looked) {
      if (!taken(f.path, base_.find(f.path))) continue;
      if (const StatEntry* e = stat_vouches(f)) {
        takes_.vouched.push_back(e);
        continue;
      }
      // A name git cannot hold in a tree (`.GIT`, say) is not silently left out: it is unread.
      if (!names.holds(f.path)) {
        out_.unread.push_back(f.path);
        continue;
      }
      TRY(Content c, read_content(*root_, odb_.get(), f.path));
      if (c.kind == Entry::Kind::kGone) continue;  // vanished since the walk: not there
      if (c.kind == Entry::Kind::kUnreadable) {
        out_.unread.push_back(f.path);
        continue;
      }
      ++out_.hashed;
      kept_.push_back(stat_entry(c.st, c.id, f.path));
      note_read(kept_.back());
    }
    out_.reused = takes_.vouched.size();
    out_.unread.insert(out_.unread.end(), takes_.unread.begin(), takes_.unread.end());
    std::sort(out_.unread.begin(), out_.unread.end());
    out_.unread.erase(std::unique(out_.unread.begin(), out_.unread.end()), out_.unread.end());
    // Those read, sorted, merged with those vouched for (in the record's order when Watchman
    // answered: most of them): no sort of the whole.
    const auto read_count = static_cast<std::ptrdiff_t>(kept_.size());
    std::sort(kept_.begin(), kept_.end(), by_path);
    for (const StatEntry* e : takes_.vouched) kept_.push_back(*e);
    if (!std::is_sorted(kept_.begin() + read_count, kept_.end(), by_path))
      std::sort(kept_.begin() + read_count, kept_.end(), by_path);
    std::inplace_merge(kept_.begin(), kept_.begin() + read_count, kept_.end(), by_path);
    return ok_status();
  }

  // Against BASE, in one pass over both sorted lists: what is not BASE's is a path whose folders
  // are written again; what BASE tracked and the read did not meet is deleted, unless it was out
  // of sight, when BASE's entry stands (as every submodule of BASE's does) where no file took its
  // place.
  void compare_with_base() {
    for (std::size_t i = 0, j = 0; i < kept_.size() || j < base_.size();) {
      const BaseEntry* b = j < base_.size() ? &base_.at(j) : nullptr;
      if (i == kept_.size() || (b != nullptr && b->path < kept_[i].path)) {
        if ((b->mode == kGitlinkMode || hidden_by_unread(out_.unread, b->path)) && !taken_place_of(b->path))
          base_stands(*b);
        else
          changed_.emplace(b->path);
        ++j;
      } else if (b == nullptr || kept_[i].path < b->path) {
        changed_.emplace(kept_[i++].path);
      } else {
        if (b->mode != kept_[i].mode || !git_oid_equal(&b->id, &kept_[i].id)) changed_.emplace(b->path);
        ++i;
        ++j;
      }
    }
  }

  // Only the folders holding a changed path are written; the others are BASE's trees.
  Status write_tree() {
    if (standing_.empty()) {
      tree_index_.put_sorted(kept_);
    } else {
      std::vector<StatEntry> all;
      std::merge(kept_.begin(), kept_.end(), standing_.begin(), standing_.end(), std::back_inserter(all), by_path);
      tree_index_.put_sorted(all);
    }
    git_oid base_id;
    git_oid_fromstr(&base_id, source_.base_tree.c_str());
    TreeSink sink = odb_tree_sink(repo_);
    auto built = update_tree(repo_, tree_index_, base_id, changed_, sink);
    if (!built.ok() && built.error().code == ErrorCode::kNotFound) built = build_tree(repo_, tree_index_, sink);
    if (!built.ok()) return built.error().wrap("working tree");
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &*built);
    out_.tree = hex;
    return ok_status();
  }

  // The record of this read, for the next; a clock only with a read that saw everything (what it
  // could not read, no answer names later).
  void keep_record() {
    if (!cache_) return;
    std::optional<WorktreeCacheBase> saved;
    if (!look_.clock.empty() && out_.unread.empty()) saved = WorktreeCacheBase{look_.clock, look_.daemon, rules_id_};
    std::optional<StatIndex> files;
    if (record_changed_ || kept_.size() != cache_->files().size()) {
      files.emplace();
      if (standing_.empty()) {
        *files = std::move(tree_index_);
      } else {
        files->put_sorted(kept_);
      }
    }
    if (auto saving = cache_->save(std::move(files), saved); !saving.ok()) out_.warning = saving.error().message;
  }

  static bool by_path(const StatEntry& a, const StatEntry& b) { return a.path < b.path; }

  // Whether a walk would meet `path`: every folder above it entered. It enters no untracked folder
  // BASE's rules ignore, whatever a negation says of a file in it (git's rule); a read by
  // Watchman's answer meets paths without a walk, and asks.
  bool reached(std::string_view path) {
    for (std::size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
      auto [it, fresh] = entered_.try_emplace(std::string(path.substr(0, slash + 1)), true);
      if (fresh)
        it->second = tracked_->has_prefix(it->first) || enters_untracked(it->first, base_, *rules_, source_.skip_dir);
      if (!it->second) return false;
    }
    return true;
  }

  // Whether the file at `path` (BASE's entry there: `in_base`) is taken into the tree.
  bool taken(std::string_view path, const BaseEntry* in_base) {
    if (in_base != nullptr || index_.find(path) != StatIndex::npos) return true;
    return !rules_->ignored(std::string(path)) && (!look_.changed || reached(path));
  }

  // The record's id stands for the content when the blob is at hand: BASE's, or in the repository.
  bool at_hand(const StatEntry& e, const BaseEntry* in_base) const {
    return (in_base != nullptr && git_oid_equal(&in_base->id, &e.id)) || git_odb_exists(odb_.get(), &e.id) == 1;
  }

  // A file whose stat is what the earlier read saw is what it read (git's rule, racy ones aside).
  const StatEntry* stat_vouches(const FileStat& f) const {
    if (!cache_ || racy_.count(f.path) != 0) return nullptr;
    std::size_t pos = cache_->files().find(f.path);
    if (pos == StatIndex::npos) return nullptr;
    const StatEntry& e = cache_->files().at(pos);
    return stat_matches(e, f) && at_hand(e, base_.find(e.path)) ? &e : nullptr;
  }

  // Whether the record must be written again: a file read that it lacks, or holds otherwise, or
  // holds racily (written again now, its stat vouches next time).
  void note_read(const StatEntry& now) {
    if (record_changed_) return;
    std::size_t pos = cache_->files().find(now.path);
    if (pos == StatIndex::npos || racy_.count(now.path) != 0) {
      record_changed_ = true;
      return;
    }
    const StatEntry& e = cache_->files().at(pos);
    record_changed_ = !git_oid_equal(&e.id, &now.id) ||
                      std::tie(e.mode, e.size, e.mtime_s, e.mtime_ns, e.ctime_s, e.ctime_ns, e.ino, e.dev, e.uid,
                               e.gid) != std::tie(now.mode, now.size, now.mtime_s, now.mtime_ns, now.ctime_s,
                                                  now.ctime_ns, now.ino, now.dev, now.uid, now.gid);
  }

  // Whether a file taken in holds the place of `path` or of a folder above it: then BASE's entry
  // there cannot stand (a submodule replaced by a folder of files, or by a file).
  bool taken_place_of(std::string_view path) const {
    const std::string folder = std::string(path) + "/";
    auto beneath = std::lower_bound(kept_.begin(), kept_.end(), folder,
                                    [](const StatEntry& e, const std::string& p) { return e.path < p; });
    if (beneath != kept_.end() && beneath->path.starts_with(folder)) return true;
    for (std::size_t slash = path.find('/'); slash != std::string_view::npos; slash = path.find('/', slash + 1)) {
      std::string_view above = path.substr(0, slash);
      auto at = std::lower_bound(kept_.begin(), kept_.end(), above,
                                 [](const StatEntry& e, std::string_view p) { return e.path < p; });
      if (at != kept_.end() && at->path == above) return true;
    }
    return false;
  }

  void base_stands(const BaseEntry& b) {
    StatEntry e;
    e.path = b.path;
    e.id = b.id;
    e.mode = b.mode;
    standing_.push_back(e);
  }

  git_repository* repo_;
  const WorktreeSource& source_;
  BaseTree base_;
  StatIndex index_;
  std::unique_ptr<BaseIgnoreRules> rules_;
  std::optional<BeneathRoot> root_;
  GitOdb odb_;
  std::optional<TrackedPaths> tracked_;
  std::optional<WorktreeCache> cache_;
  std::string rules_id_;
  WatchmanLook look_;
  std::unordered_map<std::string, bool> entered_;  // by folder ("a/b/"): files of one folder ask once
  std::unordered_set<std::string_view> racy_;
  Takes takes_;
  std::vector<StatEntry> kept_;  // every file taken in (paths: views of takes_' and the record's)
  bool record_changed_ = false;
  std::set<std::string> changed_;
  std::vector<StatEntry> standing_;
  StatIndex tree_index_;
  WorktreeRead out_;
};

}  // namespace

Result<WorktreeRead> read_worktree(git_repository* repo, const WorktreeSource& source) {
  TRY(auto reader, WorktreeReader::open(repo, source));
  return reader->read();
}

}  // namespace candor::snapshot
