// The workspace's own repository through libgit2 (workspace_git.h): opened under candor's
// confinement rules; read for git_status, git_diff, git_log and git_clean; written by git_commit
// through libgit2's object, index and ref calls only, never by writing files into .git, so hooks
// and config stay out of reach (shell steps see .git read-only).
#include "snapshot/workspace_git.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sandbox/credential_registry.h"
#include "sandbox/workspace.h"
#include "snapshot/git_ptr.h"
#include "snapshot/trees.h"

namespace candor::snapshot {
namespace {

namespace fs = std::filesystem;

using Buf = git_buf;
using Walk = GitPtr<git_revwalk, git_revwalk_free>;
using SignaturePtr = GitPtr<git_signature, git_signature_free>;

// How many entries of a git folder are looked at for symbolic links before giving up (refusing).
constexpr int kMaxGitEntries = 200000;

Error git_error(ErrorCode code = ErrorCode::kIo) { return make_error(code, git_last_error()); }
// A stage of commit_all() that failed, named.
Error stage_failed(const std::string& what) {
  return make_error(ErrorCode::kIo, fmt::format("{}: {}", what, git_last_error()));
}

bool beneath(const fs::path& path, const fs::path& dir) {
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// A symbolic link in `git_dir` whose target is outside it, as "link -> target"; "" when there is
// none. Loose objects are not looked at one by one (libgit2 writes them by rename, which replaces a
// link rather than following it); their folders are.
std::string link_leading_out(const fs::path& git_dir, std::string& error) {
  std::error_code ec;
  fs::path root = fs::canonical(git_dir, ec);
  if (ec) {
    error = fmt::format("cannot resolve {}: {}", git_dir.string(), ec.message());
    return {};
  }
  int seen = 0;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (++seen > kMaxGitEntries) {
      error = fmt::format("{} has more than {} entries to check", root.string(), kMaxGitEntries);
      return {};
    }
    const fs::path& p = it->path();
    fs::path rel = p.lexically_relative(root);
    if (it.depth() == 1 && rel.begin()->string() == "objects" && rel.filename().string().size() == 2) {
      it.disable_recursion_pending();
    }
    if (!it->is_symlink(ec)) continue;
    fs::path target = fs::weakly_canonical(p.parent_path() / fs::read_symlink(p, ec), ec);
    if (ec || !beneath(target, root)) return fmt::format("{} -> {}", rel.string(), fs::read_symlink(p, ec).string());
  }
  if (ec) error = fmt::format("cannot read {}: {}", root.string(), ec.message());
  return {};
}

// Opens the workspace's own repository into `repo`. Returns "" on success, else a sentence saying
// why it was refused.
std::string open_confined(const sandbox::Workspace& workspace, GitRepo& repo) {
  git_init_once();
  const std::string& root = workspace.root();
  std::string dot_git = root + "/.git";
  struct stat st {};
  if (::lstat(dot_git.c_str(), &st) != 0) {
    return "no git repository at the workspace root (repositories above it are not searched)";
  }
  const auto& at_open = workspace.git_at_open();
  if (!at_open) return "refused: the workspace's .git was created during the run";
  if (at_open->first != st.st_dev || at_open->second != st.st_ino) {
    return "refused: the workspace's .git was replaced during the run";
  }
  if (S_ISLNK(st.st_mode)) return "refused: the workspace's .git is a symbolic link";
  std::string ceiling = fs::path(root).parent_path().string();
  if (git_repository_open_ext(&repo.p, root.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, ceiling.c_str()) != 0) {
    return fmt::format("no git repository at the workspace root ({})", git_last_error());
  }
  const char* workdir = git_repository_workdir(repo.p);
  if (workdir == nullptr || fs::path(workdir).lexically_normal() != fs::path(root + "/").lexically_normal()) {
    return fmt::format("refused: the repository's work tree is {}, not the workspace",
                       workdir ? workdir : "none (bare)");
  }
  for (const char* dir : {git_repository_path(repo.p), git_repository_commondir(repo.p)}) {
    std::string error;
    std::string link = link_leading_out(dir, error);
    if (!error.empty()) return "refused: " + error;
    if (!link.empty()) return fmt::format("refused: the git folder holds a symbolic link leading out of it ({})", link);
  }
  return {};
}

// "untracked", "added", "deleted", "renamed", "conflicted", "type changed" or "modified".
const char* status_word(unsigned flags) {
  if (flags & GIT_STATUS_WT_NEW) return "untracked";
  if (flags & GIT_STATUS_INDEX_NEW) return "added";
  if (flags & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED)) return "deleted";
  if (flags & (GIT_STATUS_WT_RENAMED | GIT_STATUS_INDEX_RENAMED)) return "renamed";
  if (flags & GIT_STATUS_CONFLICTED) return "conflicted";
  if (flags & (GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_INDEX_TYPECHANGE)) return "type changed";
  return "modified";
}

// Whether a path git reports (relative to the repository's folder, which may lie above the
// workspace) is a credential file: by the workspace's filter beneath the workspace, by name above
// it; and beneath it, by what the file there is now (an inode of a credential file of the run's
// start, or its bytes: Workspace::stat and the read's content check), so a renamed or copied one
// is neither staged nor diffed.
class CredentialPaths {
 public:
  CredentialPaths(const sandbox::Workspace& workspace, git_repository* repo) : workspace_(workspace) {
    const char* workdir = git_repository_workdir(repo);
    char real[PATH_MAX];
    if (workdir == nullptr || ::realpath(workdir, real) == nullptr) return;
    std::string top = real;
    const std::string& root = workspace.root();
    if (root.size() > top.size() && root.compare(0, top.size(), top) == 0 && root[top.size()] == '/') {
      prefix_ = root.substr(top.size() + 1) + "/";
    }
  }
  bool operator()(const char* repo_path) const {
    if (repo_path == nullptr) return false;
    std::string_view p(repo_path);
    if (p.substr(0, prefix_.size()) != prefix_) return sandbox::looks_secret(p);
    std::string rel(p.substr(prefix_.size()));
    return workspace_.secrets().refused(rel) || credential_now(rel);
  }
  // A side of a diff: by its path, and by its blob's id when git knows it (HEAD's side): a
  // credential's content committed under any name.
  bool operator()(const git_diff_file& f) const {
    if ((*this)(f.path)) return true;
    const sandbox::CredentialRegistry* credentials = workspace_.credentials();
    if (credentials == nullptr || (f.flags & GIT_DIFF_FLAG_VALID_ID) == 0 || git_oid_is_zero(&f.id)) return false;
    char id[GIT_OID_HEXSZ + 1];
    git_oid_tostr(id, sizeof(id), &f.id);
    return credentials->has_content_id(id);
  }

 private:
  bool credential_now(const std::string& rel) const {
    if (workspace_.credentials() == nullptr) return false;
    auto info = workspace_.stat(rel);
    if (!info.ok() || info->kind != sandbox::EntryKind::kFile) return false;
    if (info->credential) return true;
    if (!workspace_.credentials()->has_size(static_cast<std::uint64_t>(info->size))) return false;
    auto content = workspace_.read_file_flagged(rel, static_cast<std::size_t>(info->size) + 1);
    return content.ok() && content->credential;
  }
  const sandbox::Workspace& workspace_;
  std::string prefix_;  // the workspace's folder within the repository's, "" when they are one
};

struct StageFilter {
  CredentialPaths credential;
  std::vector<std::string> skipped;
  // libgit2's git_index_matched_path_cb: 0 stages the path, > 0 skips it.
  static int skip(const char* path, const char*, void* payload) {
    auto* self = static_cast<StageFilter*>(payload);
    if (!self->credential(path)) return 0;
    if (std::find(self->skipped.begin(), self->skipped.end(), path) == self->skipped.end())
      self->skipped.emplace_back(path);
    return 1;
  }
};

}  // namespace

Result<std::unique_ptr<WorkspaceGit>> WorkspaceGit::open(const sandbox::Workspace& workspace) {
  GitRepo repo;
  std::string refused = open_confined(workspace, repo);
  if (!refused.empty()) {
    ErrorCode code = refused.starts_with("refused") ? ErrorCode::kRefused : ErrorCode::kNotFound;
    return make_error(code, std::move(refused));
  }
  std::unique_ptr<WorkspaceGit> git(new WorkspaceGit(workspace, repo.p));
  repo.p = nullptr;
  return git;
}

WorkspaceGit::~WorkspaceGit() { git_repository_free(repo_); }

Result<std::vector<StatusEntry>> WorkspaceGit::list(const std::string& under, bool exclude_submodules) const {
  git_status_options opts;
  git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  if (exclude_submodules) opts.flags |= GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
  std::string spec_text = under;
  char* spec = spec_text.data();
  if (!spec_text.empty()) {
    opts.pathspec.strings = &spec;
    opts.pathspec.count = 1;
  }
  GitStatusList list;
  if (git_status_list_new(&list.p, repo_, &opts) != 0) return git_error();
  std::vector<StatusEntry> entries;
  std::size_t n = git_status_list_entrycount(list.p);
  entries.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const git_status_entry* e = git_status_byindex(list.p, i);
    const git_diff_delta* d = e->index_to_workdir != nullptr ? e->index_to_workdir : e->head_to_index;
    entries.push_back({status_word(e->status), d != nullptr ? d->new_file.path : "?"});
  }
  return entries;
}

Result<std::vector<StatusEntry>> WorkspaceGit::status() const { return list("", false); }

Result<std::vector<StatusEntry>> WorkspaceGit::uncommitted(const std::string& under) const { return list(under, true); }

Result<std::string> WorkspaceGit::diff_against_head(const std::string& path) const {
  GitTree head;
  git_object* obj = nullptr;
  if (git_revparse_single(&obj, repo_, "HEAD^{tree}") == 0) head.p = reinterpret_cast<git_tree*>(obj);
  git_diff_options opts;
  git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_SHOW_UNTRACKED_CONTENT | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
  std::string spec_text = path;
  char* spec = spec_text.data();
  if (!spec_text.empty()) {
    opts.pathspec.strings = &spec;
    opts.pathspec.count = 1;
  }
  GitDiff diff;
  if (git_diff_tree_to_workdir_with_index(&diff.p, repo_, head.p, &opts) != 0) return git_error();
  // File by file, so that a credential file's patch is never formatted at all.
  CredentialPaths credential(workspace_, repo_);
  std::string text;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.p); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.p, i);
    if (credential(d->old_file) || credential(d->new_file)) {
      text += fmt::format("diff --git a/{} b/{}\n{}\n", d->old_file.path, d->new_file.path, sandbox::kContentWithheld);
      continue;
    }
    GitPatch patch;
    if (git_patch_from_diff(&patch.p, diff.p, i) != 0) return git_error();
    if (patch.p == nullptr) continue;  // unchanged
    Buf buf = GIT_BUF_INIT;
    if (git_patch_to_buf(&buf, patch.p) != 0) return git_error();
    text.append(buf.ptr, buf.size);
    git_buf_dispose(&buf);
  }
  return text;
}

Result<std::optional<std::vector<LogEntry>>> WorkspaceGit::log(int max_count) const {
  Walk walk;
  if (git_revwalk_new(&walk.p, repo_) != 0) return git_error();
  git_revwalk_sorting(walk.p, GIT_SORT_TIME);
  if (git_revwalk_push_head(walk.p) != 0) return std::optional<std::vector<LogEntry>>();
  std::vector<LogEntry> entries;
  git_oid oid;
  for (int n = 0; n < max_count && git_revwalk_next(&oid, walk.p) == 0; ++n) {
    GitCommit c;
    if (git_commit_lookup(&c.p, repo_, &oid) != 0) return git_error();
    char id[8];
    git_oid_tostr(id, sizeof(id), &oid);
    const git_signature* a = git_commit_author(c.p);
    const char* summary = git_commit_summary(c.p);
    entries.push_back({id, a->name, a->email, summary != nullptr ? summary : ""});
  }
  return std::optional<std::vector<LogEntry>>(std::move(entries));
}

Result<CommitMade> WorkspaceGit::commit_all(const std::string& message) const {
  GitIndex index;
  if (git_repository_index(&index.p, repo_) != 0) return stage_failed("git index");
  char star[] = "*";
  char* all = star;
  git_strarray everything{&all, 1};
  // Credential files stay out of the index: once in .git, a shell step could read them back.
  StageFilter filter{CredentialPaths(workspace_, repo_), {}};
  if (git_index_add_all(index.p, &everything, GIT_INDEX_ADD_DEFAULT, &StageFilter::skip, &filter) != 0 ||
      git_index_update_all(index.p, &everything, &StageFilter::skip, &filter) != 0 || git_index_write(index.p) != 0) {
    return stage_failed("staging the changes");
  }
  git_oid tree_id, commit_id;
  if (git_index_write_tree(&tree_id, index.p) != 0) return stage_failed("writing the tree");
  GitTree tree;
  if (git_tree_lookup(&tree.p, repo_, &tree_id) != 0) return stage_failed("reading the tree");
  GitCommit parent;
  git_object* head = nullptr;
  if (git_revparse_single(&head, repo_, "HEAD^{commit}") == 0) parent.p = reinterpret_cast<git_commit*>(head);
  if (parent.p != nullptr && git_oid_equal(git_commit_tree_id(parent.p), &tree_id)) {
    return make_error(ErrorCode::kRefused, "nothing to commit: the workspace matches HEAD");
  }
  SignaturePtr sig;
  if (git_signature_default(&sig.p, repo_) != 0 && git_signature_now(&sig.p, "candor", "candor@localhost") != 0) {
    return stage_failed("the commit author");
  }
  const git_commit* parents[1] = {parent.p};
  if (git_commit_create(&commit_id, repo_, "HEAD", sig.p, sig.p, nullptr, message.c_str(), tree.p, parent.p ? 1 : 0,
                        parents) != 0) {
    return stage_failed("git commit");
  }
  char id[8];
  git_oid_tostr(id, sizeof(id), &commit_id);
  char to[GIT_OID_HEXSZ + 1];
  git_oid_tostr(to, sizeof(to), &tree_id);
  std::string from = kEmptyTree;
  if (parent.p != nullptr) {
    char parent_tree[GIT_OID_HEXSZ + 1];
    git_oid_tostr(parent_tree, sizeof(parent_tree), git_commit_tree_id(parent.p));
    from = parent_tree;
  }
  return CommitMade{id, sig.p->name, sig.p->email, std::move(from), to, std::move(filter.skipped)};
}

}  // namespace candor::snapshot
