#include "snapshot/range.h"

#include <filesystem>

#include <fmt/format.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include "snapshot/fsmonitor_start.h"
#include "snapshot/git_ptr.h"
#include "snapshot/snapshot_objects.h"
#include "snapshot/worktree_tree.h"

namespace candor::snapshot {
namespace {

std::string oid_str(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof(buf), oid);
  return buf;
}

Error usage(const std::string& message) { return make_error(ErrorCode::kUsage, message); }

Result<git_oid> commit_of(git_repository* repo, const std::string& rev) {
  if (rev.empty()) return usage("--git: an empty revision");
  GitPtr<git_object, git_object_free> obj;
  if (git_revparse_single(obj.out(), repo, (rev + "^{commit}").c_str()) != 0) {
    return usage(fmt::format("--git: \"{}\" names no commit in this repository ({})", rev, git_last_error()));
  }
  return *git_object_id(obj.get());
}

Result<std::string> tree_of(git_repository* repo, const git_oid& commit_id) {
  GitCommit commit;
  if (git_commit_lookup(commit.out(), repo, &commit_id) != 0) {
    return make_error(ErrorCode::kIo, fmt::format("git: look up commit {}: {}", oid_str(&commit_id), git_last_error()));
  }
  return oid_str(git_commit_tree_id(commit.get()));
}

// An object id, whole or abbreviated: what nobody can move. Hex that a ref is named by is a
// name: git resolves `deadbeef` to the branch of that name before the object.
bool is_commit_id(git_repository* repo, const std::string& rev) {
  if (rev.size() < 7 || rev.size() > GIT_OID_HEXSZ || rev.find_first_not_of("0123456789abcdef") != std::string::npos)
    return false;
  GitReference ref;
  return git_reference_dwim(ref.out(), repo, rev.c_str()) != 0;
}

// Why BASE given as `name` (resolved to `base`) may not be the base the change was made on. A
// name is resolved once, before anything runs, and the commit recorded; a local branch whose
// upstream does not contain that commit may have been moved onto the change itself.
std::vector<std::string> base_warnings(git_repository* repo, const std::string& name, const git_oid& base) {
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "BASE was given as `{}`, a name, and resolved to {} before anything ran; whoever can move that ref can "
      "move what is verified (give a commit id to pin it)",
      name, oid_str(&base).substr(0, 12)));
  GitReference branch;
  if (git_branch_lookup(branch.out(), repo, name.c_str(), GIT_BRANCH_LOCAL) != 0) return out;
  GitReference upstream;
  if (git_branch_upstream(upstream.out(), branch.get()) != 0) return out;
  const git_oid* up = git_reference_target(upstream.get());
  if (up == nullptr || git_oid_equal(up, &base)) return out;
  if (git_graph_descendant_of(repo, up, &base) != 1) {
    out.push_back(fmt::format(
        "`{}` ({}) is not contained in its upstream `{}` ({}): the branch may have been moved onto the change; "
        "verify against the upstream or a commit id",
        name, oid_str(&base).substr(0, 12), git_reference_shorthand(upstream.get()), oid_str(up).substr(0, 12)));
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<GitRepository>> GitRepository::open(const std::string& root) {
  git_init_once();
  std::error_code ec;
  std::string abs = std::filesystem::weakly_canonical(std::filesystem::absolute(root, ec), ec).string();
  if (ec) return make_error(ErrorCode::kInvalidInput, fmt::format("-C {}: {}", root, ec.message()));
  git_repository* found = nullptr;
  if (git_repository_open_ext(&found, abs.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0) {
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("{} is not the root of a git repository (candor looks for no repository above it): {}", abs,
                    git_last_error()));
  }
  std::string git_dir = git_repository_path(found);
  std::string common_dir = git_repository_commondir(found);
  git_repository_free(found);
  // Opened again as bare: no work tree, so nothing in it (a .gitattributes the working copy has,
  // the index) can change what a diff of two commits says, and no file of it is read.
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, git_dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
                              nullptr) != 0) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("cannot open {}: {}", git_dir, git_last_error()));
  }
  // An empty index in memory: libgit2 reads .gitattributes entries of the index for a diff's
  // drivers, and the index is the working copy's (the change's), not BASE's or HEAD's. It would
  // also cost reading the whole index of a large repository.
  GitIndex empty;
  if (git_index_new(empty.out()) != 0 || git_repository_set_index(repo, empty.get()) != 0) {
    git_repository_free(repo);
    return make_error(ErrorCode::kIo, "git: cannot set an empty index: " + git_last_error());
  }
  return std::unique_ptr<GitRepository>(new GitRepository(repo, abs, git_dir, common_dir));
}

GitRepository::~GitRepository() { git_repository_free(repo_); }

Result<GitRange> GitRepository::resolve(const std::string& spec) const {
  GitRange r;
  r.spec = spec;
  std::size_t three = spec.find("...");
  std::size_t two = spec.find("..");
  if (three != std::string::npos) {
    TRY(git_oid a, commit_of(repo_, spec.substr(0, three)));
    TRY(git_oid b, commit_of(repo_, spec.substr(three + 3)));
    git_oid base;
    if (git_merge_base(&base, repo_, &a, &b) != 0) {
      return usage(fmt::format("--git {}: the two commits have no common ancestor", spec));
    }
    r.base_commit = oid_str(&base);
    r.head_commit = oid_str(&b);
  } else if (two != std::string::npos) {
    TRY(git_oid a, commit_of(repo_, spec.substr(0, two)));
    r.base_commit = oid_str(&a);
    if (two + 2 == spec.size()) {
      r.worktree = true;  // BASE..: the working tree, read by read_worktree()
      TRY(r.base_tree, tree_of(repo_, a));
    } else {
      TRY(git_oid b, commit_of(repo_, spec.substr(two + 2)));
      r.head_commit = oid_str(&b);
    }
  } else {
    TRY(git_oid c, commit_of(repo_, spec));
    r.head_commit = oid_str(&c);
    GitCommit commit;
    if (git_commit_lookup(commit.out(), repo_, &c) != 0) return make_error(ErrorCode::kIo, "git: " + git_last_error());
    if (git_commit_parentcount(commit.get()) > 0) r.base_commit = oid_str(git_commit_parent_id(commit.get(), 0));
  }
  // The BASE part as written ("" for `C`, whose base is its parent).
  std::string base_rev = three != std::string::npos ? spec.substr(0, three)
                         : two != std::string::npos ? spec.substr(0, two)
                                                    : "";
  if (!base_rev.empty() && !r.base_commit.empty() && !is_commit_id(repo_, base_rev)) {
    r.base_name = base_rev;
    TRY(git_oid named, commit_of(repo_, base_rev));
    r.base_name_commit = oid_str(&named);
    r.warnings = base_warnings(repo_, base_rev, named);
  }
  if (r.worktree) return r;
  git_oid head;
  git_oid_fromstr(&head, r.head_commit.c_str());
  TRY(r.head_tree, tree_of(repo_, head));
  if (r.base_commit.empty()) {
    r.base_tree = kEmptyTree;  // a root commit: everything in it was added
  } else {
    git_oid base;
    git_oid_fromstr(&base, r.base_commit.c_str());
    TRY(r.base_tree, tree_of(repo_, base));
  }
  return r;
}

std::string GitRepository::base_moved(const GitRange& range) const {
  if (range.base_name.empty()) return "";
  auto now = commit_of(repo_, range.base_name);
  std::string now_id = now.ok() ? oid_str(&*now) : std::string("nothing");
  if (now_id == range.base_name_commit) return "";
  return fmt::format(
      "BASE `{}` moved while candor worked (it named {} and now names {}); the change was verified against {}",
      range.base_name, range.base_name_commit.substr(0, 12), now_id.substr(0, 12),
      range.base_name_commit.substr(0, 12));
}

// A database of its own for the repository: a memory backend above everything, which every write
// lands in, and the repository's objects beneath it as a read-only view that refuses even the
// mtime refresh libgit2 gives an object it finds it already has. So reading the working tree
// writes nothing into the repository's folder.
Status GitRepository::keep_writes_in_memory() {
  if (writes_in_memory_) return ok_status();
  GitOdb odb;
  if (git_odb_new(odb.out()) != 0) return make_error(ErrorCode::kIo, "git: new object database: " + git_last_error());
  git_odb_backend* memory = nullptr;
  if (git_mempack_new(&memory) != 0) return make_error(ErrorCode::kIo, "git: memory backend: " + git_last_error());
  if (git_odb_add_backend(odb.get(), memory, 1000) != 0) {
    memory->free(memory);
    return make_error(ErrorCode::kIo, "git: add the memory backend: " + git_last_error());
  }
  if (!attach_workspace_objects(odb.get(), common_dir_)) {
    return make_error(ErrorCode::kIo, fmt::format("git: cannot read the objects of {}", common_dir_));
  }
  if (git_repository_set_odb(repo_, odb.get()) != 0)
    return make_error(ErrorCode::kIo, "git: use the object database: " + git_last_error());
  writes_in_memory_ = true;
  return ok_status();
}

Result<WorktreeRead> GitRepository::read_worktree(GitRange& range, const WorktreeOptions& options) {
  TRY_STATUS(keep_writes_in_memory());
  WorktreeSource source{.root = root_,
                        .index_file = git_dir_ + "/index",
                        .base_tree = range.base_tree,
                        .extra_ignore = options.extra_ignore,
                        .skip_dir = options.skip_dir,
                        .store_dir = options.store_dir,
                        .watchman = options.watchman,
                        .watchman_timeout = kWatchmanTimeout};
  TRY(WorktreeRead read, snapshot::read_worktree(repo_, source));
  range.head_tree = read.tree;
  return read;
}

}  // namespace candor::snapshot
