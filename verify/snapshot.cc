#include "verify/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string_view>
#include <thread>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "core/git_ptr.h"
#include "verify/workdir_walk.h"

namespace candor::verify {
namespace {

void init_once() { git_init_once(); }

Error git_failure(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, git_last_error()));
}


using Repo = GitRepo;
using Index = GitIndex;
using Tree = GitTree;
using Diff = GitDiff;
using Patch = GitPtr<git_patch, git_patch_free>;
using Blob = GitPtr<git_blob, git_blob_free>;
using TreeEntry = GitPtr<git_tree_entry, git_tree_entry_free>;
using Reference = GitPtr<git_reference, git_reference_free>;

std::string oid_str(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), &oid);
  return buf;
}

Result<git_oid> parse_oid(const std::string& s) {
  git_oid oid;
  if (git_oid_fromstr(&oid, s.c_str()) != 0) return make_error(ErrorCode::kInvalidInput, "snapshot: bad tree id \"" + s + "\"");
  return oid;
}

// Raw bytes in, raw bytes out: no end-of-line conversion or filters from the workspace's
// .gitattributes, so a snapshot is what was on disk. info/attributes outranks .gitattributes.
constexpr const char* kAttributes = "* -text -eol -ident -filter\n";
constexpr const char* kExclude = "/.candor/\n.candor-tmp-*\n";

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

struct SnapshotStore::Impl {
  Repo repo;
  Index index;
  std::string workdir;
  std::string skip_dir;        // the store itself, when it lies inside the workspace ("dir/")
  std::set<std::string> racy;  // paths whose stat cannot prove them unchanged
};

SnapshotStore::SnapshotStore(std::unique_ptr<Impl> impl, std::string repo_path)
    : impl_(std::move(impl)), repo_path_(std::move(repo_path)) {}
SnapshotStore::~SnapshotStore() = default;

Result<std::unique_ptr<SnapshotStore>> SnapshotStore::open(const std::string& store_dir, const std::string& workspace_root) {
  init_once();
  git_oid name_hash;
  git_odb_hash(&name_hash, workspace_root.data(), workspace_root.size(), GIT_OBJECT_BLOB);
  std::string repo_path = fmt::format("{}/snapshots/{}.git", store_dir, oid_str(name_hash).substr(0, 16));

  auto impl = std::make_unique<Impl>();
  if (git_repository_open_bare(impl->repo.out(), repo_path.c_str()) != 0) {
    git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
    opts.description = "candor snapshots";
    if (git_repository_init_ext(impl->repo.out(), repo_path.c_str(), &opts) != 0) return git_failure("init " + repo_path);
    try {
      write_text(std::filesystem::path(repo_path) / "info" / "attributes", kAttributes);
      write_text(std::filesystem::path(repo_path) / "info" / "exclude", kExclude);
      write_text(std::filesystem::path(repo_path) / "candor-workspace", workspace_root + "\n");
    } catch (const std::exception& e) {
      return make_error(ErrorCode::kIo, fmt::format("snapshot: cannot write {}: {}", repo_path, e.what()));
    }
    GitPtr<git_config, git_config_free> cfg;
    if (git_repository_config(cfg.out(), impl->repo.get()) == 0) {
      git_config_set_bool(cfg.get(), "core.autocrlf", 0);
      git_config_set_bool(cfg.get(), "core.filemode", 1);
      git_config_set_bool(cfg.get(), "core.symlinks", 1);
    }
  }
  // Point the store's repository at the workspace without writing a gitlink into it.
  if (git_repository_set_workdir(impl->repo.get(), workspace_root.c_str(), 0) != 0) return git_failure("set workdir");
  if (git_repository_index(impl->index.out(), impl->repo.get()) != 0) return git_failure("open index");
  impl->workdir = workspace_root;
  std::error_code ec;
  auto store_abs = std::filesystem::weakly_canonical(store_dir, ec).string();
  if (!ec && store_abs.rfind(workspace_root + "/", 0) == 0) impl->skip_dir = store_abs.substr(workspace_root.size() + 1) + "/";
  // Entries saved no earlier than the index file itself are racy: their stat cannot prove them
  // unchanged (git's rule), so the first scan re-hashes them.
  struct stat index_stat{};
  if (::stat((repo_path + "/index").c_str(), &index_stat) == 0) {
    for (std::size_t i = 0; i < git_index_entrycount(impl->index.get()); ++i) {
      const git_index_entry* e = git_index_get_byindex(impl->index.get(), i);
      if (e->mtime.seconds >= index_stat.st_mtim.tv_sec - 1) impl->racy.insert(e->path);
    }
  }
  return std::unique_ptr<SnapshotStore>(new SnapshotStore(std::move(impl), repo_path));
}

namespace {

// The index's entries, sorted by path (libgit2 keeps them so), for lookups from walker threads.
class IndexView {
 public:
  explicit IndexView(git_index* index) {
    std::size_t n = git_index_entrycount(index);
    entries_.reserve(n);
    paths_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      entries_.push_back(git_index_get_byindex(index, i));
      paths_.emplace_back(entries_.back()->path);
    }
  }
  // Position of the entry for `path`, or npos.
  std::size_t find(std::string_view path) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), path);
    return it != paths_.end() && *it == path ? static_cast<std::size_t>(it - paths_.begin()) : npos;
  }
  // Whether any entry lies beneath `dir` ("a/b/"). Paths sharing a prefix are contiguous.
  bool has_prefix(std::string_view dir) const {
    auto it = std::lower_bound(paths_.begin(), paths_.end(), dir);
    return it != paths_.end() && it->substr(0, dir.size()) == dir;
  }
  const git_index_entry* at(std::size_t i) const { return entries_[i]; }
  std::size_t size() const { return entries_.size(); }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  std::vector<const git_index_entry*> entries_;
  std::vector<std::string_view> paths_;  // views of entries_' paths, sorted as the index is
};

// git's stat comparison: what the index remembers against what the file is now.
bool stat_matches(const git_index_entry& e, const FileStat& f) {
  return e.mode == f.mode && e.file_size == static_cast<std::uint32_t>(f.size) &&
         e.mtime.seconds == static_cast<std::int32_t>(f.mtime_s) &&
         e.mtime.nanoseconds == static_cast<std::uint32_t>(f.mtime_ns) &&
         e.ctime.seconds == static_cast<std::int32_t>(f.ctime_s) &&
         e.ctime.nanoseconds == static_cast<std::uint32_t>(f.ctime_ns) && e.ino == static_cast<std::uint32_t>(f.ino) &&
         e.uid == f.uid && e.gid == f.gid;
}

}  // namespace

Result<std::vector<std::string>> SnapshotStore::scan() {
  git_index* index = impl_->index.get();
  git_repository* repo = impl_->repo.get();
  // A file whose mtime is this close to the moment we look at it could change again within the
  // same timestamp tick without its stat changing: such "racy" files are re-hashed next time.
  std::int64_t racy_from = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count() - 2;
  auto is_ignored = [&](const std::string& path) {
    int ignored = 0;
    return git_ignore_path_is_ignored(&ignored, repo, path.c_str()) == 0 && ignored == 1;
  };

  // 1. Stat every file in tracked directories against the stat cache, in parallel. Each thread
  //    writes only its own bucket and its own bytes of `seen`.
  struct Bucket {
    std::vector<std::string> candidates;  // tracked paths whose content must be looked at
    std::vector<std::string> unknown;     // paths not in the index (ignored or untracked)
    std::vector<std::string> racy;
  };
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<Bucket> buckets(threads);
  std::vector<std::string> untracked, deleted;
  std::set<std::string> next_racy;
  {
    IndexView view(index);
    std::vector<std::uint8_t> seen(view.size(), 0);
    const std::set<std::string>& racy = impl_->racy;
    FileVisitor visit = [&](unsigned t, const FileStat& f) {
      Bucket& b = buckets[t];
      if (f.mtime_s >= racy_from || f.ctime_s >= racy_from) b.racy.push_back(f.path);
      std::size_t pos = view.find(f.path);
      if (pos == IndexView::npos) {
        b.unknown.push_back(f.path);
        return;
      }
      seen[pos] = 1;
      if (!stat_matches(*view.at(pos), f) || racy.count(f.path) != 0) b.candidates.push_back(f.path);
    };
    auto walked = walk_workdir(impl_->workdir, "", [&view](std::string_view dir) { return view.has_prefix(dir); }, visit,
                               threads);
    if (!walked.ok()) return walked.error().wrap("snapshot");
    for (std::size_t i = 0; i < view.size(); ++i) {
      if (!seen[i]) deleted.push_back(view.at(i)->path);
    }
    // 2. Directories with nothing tracked: enter those not ignored, one level at a time.
    std::deque<std::string> dirs(walked->untracked_dirs.begin(), walked->untracked_dirs.end());
    FileVisitor collect = [&](unsigned, const FileStat& f) {
      if (f.mtime_s >= racy_from || f.ctime_s >= racy_from) buckets[0].racy.push_back(f.path);
      buckets[0].unknown.push_back(f.path);
    };
    while (!dirs.empty()) {
      std::string dir = dirs.front();
      dirs.pop_front();
      if (dir == impl_->skip_dir || is_ignored(dir)) continue;
      auto inner = walk_workdir(impl_->workdir, dir, [](std::string_view) { return false; }, collect, 1);
      if (!inner.ok()) continue;  // vanished meanwhile
      dirs.insert(dirs.end(), inner->untracked_dirs.begin(), inner->untracked_dirs.end());
    }
  }
  std::vector<std::string> candidates;
  for (auto& b : buckets) {
    candidates.insert(candidates.end(), b.candidates.begin(), b.candidates.end());
    for (auto& p : b.unknown) {
      if (!is_ignored(p)) untracked.push_back(std::move(p));
    }
    next_racy.insert(b.racy.begin(), b.racy.end());
  }

  // 3. Update the index: hash what may have changed; a stat-only change (touch) is no change.
  std::set<std::string> changed;
  for (const auto& path : candidates) {
    const git_index_entry* old = git_index_get_bypath(index, path.c_str(), 0);
    git_oid old_id = old->id;
    std::uint32_t old_mode = old->mode;
    if (git_index_add_bypath(index, path.c_str()) != 0) {
      // Vanished or unreadable between the stat and the read.
      if (git_index_remove_bypath(index, path.c_str()) != 0) return git_failure("update index for " + path);
      changed.insert(path);
      continue;
    }
    const git_index_entry* now = git_index_get_bypath(index, path.c_str(), 0);
    if (now == nullptr || !git_oid_equal(&now->id, &old_id) || now->mode != old_mode) changed.insert(path);
  }
  for (const auto& path : untracked) {
    if (git_index_add_bypath(index, path.c_str()) == 0) changed.insert(path);
  }
  for (const auto& path : deleted) {
    if (git_index_remove_bypath(index, path.c_str()) != 0) return git_failure("remove " + path + " from index");
    changed.insert(path);
  }
  impl_->racy = std::move(next_racy);

  // The index stays in memory between scans: rewriting a 100,000-entry index file (or its tree)
  // after every step would cost more than the scan. write_tree() and flush() are for the ends.
  return std::vector<std::string>(changed.begin(), changed.end());
}

Result<std::string> SnapshotStore::write_tree() {
  git_oid tree;
  if (git_index_write_tree(&tree, impl_->index.get()) != 0) return git_failure("write tree");
  return oid_str(tree);
}

Status SnapshotStore::flush() {
  if (git_index_write(impl_->index.get()) != 0) return git_failure("write index");
  return ok_status();
}

namespace {

// The diff between two trees; `path` limits it to one path when not empty.
Status diff_trees(git_repository* repo, const std::string& from_tree, const std::string& to_tree,
                  const std::string& path, git_diff** out) {
  TRY(git_oid from_id, parse_oid(from_tree));
  TRY(git_oid to_id, parse_oid(to_tree));
  Tree from, to;
  if (git_tree_lookup(from.out(), repo, &from_id) != 0) return git_failure("look up tree " + from_tree);
  if (git_tree_lookup(to.out(), repo, &to_id) != 0) return git_failure("look up tree " + to_tree);
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
  char* spec[] = {const_cast<char*>(path.c_str())};
  if (!path.empty()) {
    opts.pathspec = {spec, 1};
    opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  }
  if (git_diff_tree_to_tree(out, repo, from.get(), to.get(), &opts) != 0) return git_failure("diff");
  return ok_status();
}

}  // namespace

Result<std::vector<Mutation>> SnapshotStore::diff(const std::string& from_tree, const std::string& to_tree) const {
  Diff diff;
  TRY_STATUS(diff_trees(impl_->repo.get(), from_tree, to_tree, "", diff.out()));

  std::vector<Mutation> out;
  std::size_t n = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < n; ++i) {
    Patch patch;
    if (git_patch_from_diff(patch.out(), diff.get(), i) != 0) return git_failure("patch");
    const git_diff_delta* d = git_patch_get_delta(patch.get());
    Mutation m;
    m.path = d->new_file.path ? d->new_file.path : d->old_file.path;
    switch (d->status) {
      case GIT_DELTA_ADDED: m.change = "added"; break;
      case GIT_DELTA_DELETED: m.change = "deleted"; break;
      default: m.change = "modified"; break;
    }
    m.bytes_before = d->status == GIT_DELTA_ADDED ? 0 : static_cast<std::int64_t>(d->old_file.size);
    m.bytes_after = d->status == GIT_DELTA_DELETED ? 0 : static_cast<std::int64_t>(d->new_file.size);
    m.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
    std::size_t context = 0, adds = 0, dels = 0;
    git_patch_line_stats(&context, &adds, &dels, patch.get());
    m.lines_added = static_cast<int>(adds);
    m.lines_removed = static_cast<int>(dels);
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::string> SnapshotStore::patch_text(const std::string& from_tree, const std::string& to_tree,
                                              const std::string& path, std::size_t max_bytes) const {
  Diff diff;
  TRY_STATUS(diff_trees(impl_->repo.get(), from_tree, to_tree, path, diff.out()));
  git_buf buf = GIT_BUF_INIT;
  if (git_diff_to_buf(&buf, diff.get(), GIT_DIFF_FORMAT_PATCH) != 0) return git_failure("format patch");
  std::string text(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  if (text.size() > max_bytes) {
    text = text.substr(0, max_bytes) + fmt::format("\n[diff truncated: {} bytes in total]\n", text.size());
  }
  return text;
}

Result<std::optional<SnapshotStore::TreeFile>> SnapshotStore::read_file(const std::string& tree_id, const std::string& path) const {
  TRY(git_oid id, parse_oid(tree_id));
  Tree tree;
  if (git_tree_lookup(tree.out(), impl_->repo.get(), &id) != 0) return git_failure("look up tree " + tree_id);
  TreeEntry entry;
  if (git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) != 0) return std::optional<TreeFile>();
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::optional<TreeFile>();
  Blob blob;
  if (git_blob_lookup(blob.out(), impl_->repo.get(), git_tree_entry_id(entry.get())) != 0) return git_failure("read " + path);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  TreeFile f{std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob.get()))),
             static_cast<unsigned>(git_tree_entry_filemode(entry.get()))};
  return std::optional<TreeFile>(std::move(f));
}

Result<std::optional<SnapshotStore::TreeEntryInfo>> SnapshotStore::stat(const std::string& tree_id,
                                                                        const std::string& path) const {
  TRY(git_oid id, parse_oid(tree_id));
  Tree tree;
  if (git_tree_lookup(tree.out(), impl_->repo.get(), &id) != 0) return git_failure("look up tree " + tree_id);
  if (path.empty() || path == ".") return std::optional<TreeEntryInfo>(TreeEntryInfo{});
  TreeEntry entry;
  if (git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) != 0) return std::optional<TreeEntryInfo>();
  TreeEntryInfo info;
  info.mode = static_cast<unsigned>(git_tree_entry_filemode(entry.get()));
  info.directory = git_tree_entry_type(entry.get()) == GIT_OBJECT_TREE;
  if (git_tree_entry_type(entry.get()) == GIT_OBJECT_BLOB) {
    git_object_size_t size = 0;
    git_object_t type{};
    GitPtr<git_odb, git_odb_free> odb;
    if (git_repository_odb(odb.out(), impl_->repo.get()) != 0 ||
        git_odb_read_header(&size, &type, odb.get(), git_tree_entry_id(entry.get())) != 0) {
      return git_failure("read " + path);
    }
    info.size = static_cast<std::int64_t>(size);
  }
  return std::optional<TreeEntryInfo>(info);
}

Result<std::optional<std::string>> SnapshotStore::read(const std::string& tree_id, const std::string& path) const {
  TRY(auto file, read_file(tree_id, path));
  if (!file) return std::optional<std::string>();
  return std::optional<std::string>(std::move(file->content));
}

Status SnapshotStore::pin(const std::string& tree, const std::string& name) {
  TRY(git_oid id, parse_oid(tree));
  Reference ref;
  std::string refname = "refs/candor/" + name;
  if (git_reference_create(ref.out(), impl_->repo.get(), refname.c_str(), &id, 1, "candor snapshot") != 0) {
    return git_failure("pin " + refname);
  }
  return ok_status();
}

}  // namespace candor::verify
