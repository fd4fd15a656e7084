#include "verify/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <git2.h>

namespace candor::verify {
namespace {

void init_once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

Error git_failure(const std::string& what) {
  const ::git_error* e = git_error_last();
  return make_error(ErrorCode::kIo, fmt::format("snapshot: {}: {}", what, e && e->message ? e->message : "unknown libgit2 error"));
}

template <typename T, void (*Free)(T*)>
struct GitPtr {
  T* p = nullptr;
  GitPtr() = default;
  GitPtr(const GitPtr&) = delete;
  GitPtr& operator=(const GitPtr&) = delete;
  ~GitPtr() {
    if (p != nullptr) Free(p);
  }
  T** out() { return &p; }
  T* get() const { return p; }
};

using Repo = GitPtr<git_repository, git_repository_free>;
using Index = GitPtr<git_index, git_index_free>;
using Tree = GitPtr<git_tree, git_tree_free>;
using Diff = GitPtr<git_diff, git_diff_free>;
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
  return std::unique_ptr<SnapshotStore>(new SnapshotStore(std::move(impl), repo_path));
}

Result<Scan> SnapshotStore::scan() {
  git_index* index = impl_->index.get();
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_TYPECHANGE |
               GIT_DIFF_UPDATE_INDEX;
  Diff diff;
  if (git_diff_index_to_workdir(diff.out(), impl_->repo.get(), index, &opts) != 0) return git_failure("compare with workspace");

  std::set<std::string> changed;
  std::size_t n = git_diff_num_deltas(diff.get());
  for (std::size_t i = 0; i < n; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    std::string path = d->new_file.path ? d->new_file.path : d->old_file.path;
    int rc = 0;
    if (d->status == GIT_DELTA_DELETED) {
      rc = git_index_remove_bypath(index, path.c_str());
    } else {
      rc = git_index_add_bypath(index, path.c_str());
      // A path that vanished or became unreadable between the walk and the add is a deletion.
      if (rc != 0) rc = git_index_remove_bypath(index, path.c_str());
    }
    if (rc != 0) return git_failure("update index for " + path);
    changed.insert(path);
  }
  if (git_index_write(index) != 0) return git_failure("write index");
  git_oid tree;
  if (git_index_write_tree(&tree, index) != 0) return git_failure("write tree");
  return Scan{oid_str(tree), std::vector<std::string>(changed.begin(), changed.end())};
}

Result<std::vector<Mutation>> SnapshotStore::diff(const std::string& from_tree, const std::string& to_tree) const {
  TRY(git_oid from_id, parse_oid(from_tree));
  TRY(git_oid to_id, parse_oid(to_tree));
  Tree from, to;
  if (git_tree_lookup(from.out(), impl_->repo.get(), &from_id) != 0) return git_failure("look up tree " + from_tree);
  if (git_tree_lookup(to.out(), impl_->repo.get(), &to_id) != 0) return git_failure("look up tree " + to_tree);
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
  Diff diff;
  if (git_diff_tree_to_tree(diff.out(), impl_->repo.get(), from.get(), to.get(), &opts) != 0) return git_failure("diff");

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
  TRY(git_oid from_id, parse_oid(from_tree));
  TRY(git_oid to_id, parse_oid(to_tree));
  Tree from, to;
  if (git_tree_lookup(from.out(), impl_->repo.get(), &from_id) != 0) return git_failure("look up tree " + from_tree);
  if (git_tree_lookup(to.out(), impl_->repo.get(), &to_id) != 0) return git_failure("look up tree " + to_tree);
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  char* spec[] = {const_cast<char*>(path.c_str())};
  opts.pathspec = {spec, 1};
  opts.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;
  Diff diff;
  if (git_diff_tree_to_tree(diff.out(), impl_->repo.get(), from.get(), to.get(), &opts) != 0) return git_failure("diff");
  git_buf buf = GIT_BUF_INIT;
  if (git_diff_to_buf(&buf, diff.get(), GIT_DIFF_FORMAT_PATCH) != 0) return git_failure("format patch");
  std::string text(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  if (text.size() > max_bytes) {
    text = text.substr(0, max_bytes) + fmt::format("\n[diff truncated: {} bytes in total]\n", text.size());
  }
  return text;
}

Result<std::optional<std::string>> SnapshotStore::read(const std::string& tree_id, const std::string& path) const {
  TRY(git_oid id, parse_oid(tree_id));
  Tree tree;
  if (git_tree_lookup(tree.out(), impl_->repo.get(), &id) != 0) return git_failure("look up tree " + tree_id);
  TreeEntry entry;
  if (git_tree_entry_bypath(entry.out(), tree.get(), path.c_str()) != 0) return std::optional<std::string>();
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::optional<std::string>();
  Blob blob;
  if (git_blob_lookup(blob.out(), impl_->repo.get(), git_tree_entry_id(entry.get())) != 0) return git_failure("read " + path);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  return std::optional<std::string>(std::string(data, static_cast<std::size_t>(git_blob_rawsize(blob.get()))));
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
