#include "snapshot/worktree_tree.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <string_view>
#include <thread>
#include <unordered_set>

#include <fmt/format.h>

#include <git2/sys/repository.h>

#include "sandbox/step_temp_dir.h"
#include "snapshot/beneath.h"
#include "snapshot/git_ptr.h"
#include "snapshot/ignore_shadow.h"
#include "snapshot/snapshot_objects.h"
#include "snapshot/trees.h"
#include "snapshot/workdir_walk.h"

namespace candor::snapshot {
namespace {

using Config = GitPtr<git_config, git_config_free>;

constexpr std::uint32_t kGitlink = 0160000;

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("git: working tree: {}: {}", what, git_last_error()));
}

bool is_gitignore(std::string_view path) {
  constexpr std::string_view kName = ".gitignore";
  return path.size() >= kName.size() && path.substr(path.size() - kName.size()) == kName &&
         (path.size() == kName.size() || path[path.size() - kName.size() - 1] == '/');
}

// BASE's tree as an in-memory index: what BASE tracks, with its ids and modes. Building the
// working tree's tree from it lets libgit2 reuse every subtree nothing changed in.
Status read_base(git_repository* repo, const std::string& tree_id, git_index* index) {
  git_oid oid;
  if (git_oid_fromstr(&oid, tree_id.c_str()) != 0)
    return make_error(ErrorCode::kInvalidInput, "git: bad tree id \"" + tree_id + "\"");
  GitTree tree;
  if (git_tree_lookup(tree.out(), repo, &oid) != 0) {
    if (tree_id == kEmptyTree) return ok_status();  // a root commit's "parent": nothing tracked
    return git_failure("look up BASE's tree " + tree_id);
  }
  if (git_index_read_tree(index, tree.get()) != 0) return git_failure("read BASE's tree");
  return ok_status();
}

// BASE's ignore rules, and nothing else's: BASE's .gitignore blobs in a private folder that a
// handle on an empty repository of its own reads as its work tree, with `extra` on top. The
// handle's config is its own file only, its excludes file one that never exists: no info/exclude
// or global rules of the repository being verified (or of the user's home) take part.
class BaseIgnoreRules {
 public:
  static Result<std::unique_ptr<BaseIgnoreRules>> create(git_repository* repo, git_index* base,
                                                         const std::vector<std::string>& extra) {
    auto rules = std::unique_ptr<BaseIgnoreRules>(new BaseIgnoreRules());
    TRY(rules->scratch_, sandbox::StepTempDir::create());
    TRY(rules->shadow_, IgnoreShadow::create(rules->scratch_.path()));
    for (std::size_t i = 0; i < git_index_entrycount(base); ++i) {
      const git_index_entry* e = git_index_get_byindex(base, i);
      // git reads no .gitignore that is a symlink; neither does the shadow.
      if (!is_gitignore(e->path) || (e->mode != 0100644 && e->mode != 0100755)) continue;
      GitBlob blob;
      if (git_blob_lookup(blob.out(), repo, &e->id) != 0) return git_failure(std::string("read BASE's ") + e->path);
      std::string_view content(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                               static_cast<std::size_t>(git_blob_rawsize(blob.get())));
      if (!rules->shadow_.write(e->path, content)) {
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
  TrackedPaths(git_index* base, const StatIndex& index) {
    std::vector<std::string_view> a = paths_of(base), b(index.size());
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = index.at(i).path;
    paths_.reserve(a.size() + b.size());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(paths_));
  }
  // Whether anything tracked lies beneath `dir` ("a/b/"). Thread-safe.
  bool has_prefix(std::string_view dir) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), dir);
    return it != paths_.end() && it->substr(0, dir.size()) == dir;
  }

 private:
  static std::vector<std::string_view> paths_of(git_index* index) {
    std::vector<std::string_view> out(git_index_entrycount(index));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = git_index_get_byindex(index, i)->path;
    std::sort(out.begin(), out.end());  // git's order is this byte order already; set_union relies on it
    return out;
  }
  std::vector<std::string_view> paths_;
};

struct Walked {
  std::vector<FileStat> files;
  std::vector<std::string> unread;
};

// Every regular file and symlink beneath the root that git could show: folders with something
// tracked are walked in parallel; the others are entered only when BASE's rules do not ignore them.
Walked walk(const BeneathRoot& root, const TrackedPaths& tracked, git_index* base, const BaseIgnoreRules& rules,
            const std::string& skip_dir) {
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<std::vector<FileStat>> buckets(threads);
  FileVisitor visit = [&](unsigned t, const FileStat& f) { buckets[t].push_back(f); };
  WalkOptions everything{.skip_candor_files = false};
  WalkResult first = walk_workdir(
      root, "", [&](std::string_view dir) { return tracked.has_prefix(dir); }, visit, threads, everything);
  Walked out;
  out.unread = std::move(first.unread);
  std::deque<std::string> dirs(first.untracked_dirs.begin(), first.untracked_dirs.end());
  while (!dirs.empty()) {
    std::string dir = dirs.front();
    dirs.pop_front();
    const git_index_entry* link = git_index_get_bypath(base, dir.substr(0, dir.size() - 1).c_str(), 0);
    if ((link != nullptr && link->mode == kGitlink) || dir == skip_dir || rules.ignored(dir)) continue;
    WalkResult inner = walk_workdir(
        root, dir, [](std::string_view) { return false; }, visit, 1, everything);
    out.unread.insert(out.unread.end(), inner.unread.begin(), inner.unread.end());
    dirs.insert(dirs.end(), inner.untracked_dirs.begin(), inner.untracked_dirs.end());
  }
  for (auto& b : buckets) std::move(b.begin(), b.end(), std::back_inserter(out.files));
  return out;
}

// Whether `path` lies in (or is) something the walk could not read.
bool hidden_by_unread(const std::vector<std::string>& unread, const std::string& path) {
  for (const auto& u : unread) {
    bool folder = u.back() == '/';
    if (u == "./" || (folder ? path.rfind(u, 0) == 0 : (path == u || path.rfind(u + "/", 0) == 0))) return true;
  }
  return false;
}

struct Content {
  Entry::Kind kind = Entry::Kind::kGone;
  git_oid id{};
  std::uint32_t mode = 0;
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
  if (git_odb_write(&c.id, odb, bytes.data(), bytes.size(), GIT_OBJECT_BLOB) != 0) return git_failure("write " + path);
  return c;
}

}  // namespace

Result<WorktreeRead> read_worktree(git_repository* repo, const WorktreeSource& source) {
  GitIndex base;
  StatIndex cache;
  if (git_index_new(base.out()) != 0) return git_failure("new index");
  TRY_STATUS(read_base(repo, source.base_tree, base.get()));
  // The index says which paths are tracked (a file staged but not in BASE is never ignored); its
  // ids and stat cache are not used. The change is untrusted, and so is an index it may have
  // written: an entry forged with a modified file's stat and the old id would hide the edit.
  std::set<std::string> racy_unused;
  seed_from_index(cache, source.index_file, racy_unused, [](std::string_view) { return true; });
  TRY(auto rules, BaseIgnoreRules::create(repo, base.get(), source.extra_ignore));
  auto root = BeneathRoot::open(source.root);
  if (!root.ok()) return root.error().wrap("working tree");
  GitOdb odb;
  if (git_repository_odb(odb.out(), repo) != 0) return git_failure("open the object database");

  Walked walked;
  {
    TrackedPaths tracked(base.get(), cache);
    walked = walk(*root, tracked, base.get(), *rules, source.skip_dir);
  }
  if (std::find(walked.unread.begin(), walked.unread.end(), "./") != walked.unread.end()) {
    return make_error(ErrorCode::kIo, "working tree: cannot list " + source.root);
  }
  WorktreeRead out;
  std::unordered_set<std::string_view> seen;  // views of walked.files' paths
  for (const FileStat& f : walked.files) {
    const git_index_entry* in_base = git_index_get_bypath(base.get(), f.path.c_str(), 0);
    const bool in_index = cache.find(f.path) != StatIndex::npos;
    if (in_base == nullptr && !in_index && rules->ignored(f.path)) continue;
    TRY(Content c, read_content(*root, odb.get(), f.path));
    if (c.kind == Entry::Kind::kGone) continue;  // vanished since the walk: not there
    if (c.kind == Entry::Kind::kUnreadable) {
      out.unread.push_back(f.path);
      continue;
    }
    ++out.hashed;
    seen.insert(f.path);
    if (in_base != nullptr && in_base->mode == c.mode && git_oid_equal(&in_base->id, &c.id)) continue;
    git_index_entry entry{};
    entry.mode = c.mode;
    entry.id = c.id;
    entry.path = f.path.c_str();
    // A name git cannot hold in a tree (`.GIT`, say) is not silently left out: it is unread.
    if (git_index_add(base.get(), &entry) != 0) out.unread.push_back(f.path);
  }
  out.unread.insert(out.unread.end(), walked.unread.begin(), walked.unread.end());
  // What BASE tracked and the walk did not meet is deleted, unless it was out of sight.
  std::vector<std::string> gone;
  for (std::size_t i = 0; i < git_index_entrycount(base.get()); ++i) {
    const git_index_entry* e = git_index_get_byindex(base.get(), i);
    if (e->mode == kGitlink || seen.count(std::string_view(e->path)) != 0 || hidden_by_unread(out.unread, e->path))
      continue;
    gone.emplace_back(e->path);
  }
  for (const auto& path : gone) {
    if (git_index_remove_bypath(base.get(), path.c_str()) != 0) return git_failure("remove " + path);
  }
  git_oid tree;
  if (git_index_write_tree_to(&tree, base.get(), repo) != 0) return git_failure("write the tree");
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &tree);
  out.tree = hex;
  std::sort(out.unread.begin(), out.unread.end());
  return out;
}

}  // namespace candor::snapshot
