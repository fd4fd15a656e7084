// Git tools through libgit2 on the workspace's own repository (never one above it, one a step
// created, or one whose .git links out): git_status, git_diff and git_log
// read; git_commit records what is in the workspace as a commit. git_commit is the one way a tool
// changes .git: through libgit2's object, index and ref calls only, never by writing files there,
// so hooks and config stay out of reach (shell steps see .git read-only).
#include <climits>
#include <cstdio>
#include <cstdlib>

#include <algorithm>

#include <fmt/format.h>

#include "assertions/workspace_repository.h"
#include "executor/tool.h"
#include "sandbox/credential_registry.h"
#include "snapshot/git_ptr.h"
#include "snapshot/trees.h"

namespace candor::executor {
namespace {

using Buf = git_buf;
using Walk = GitPtr<git_revwalk, git_revwalk_free>;
using SignaturePtr = GitPtr<git_signature, git_signature_free>;

ToolResult git_failure(const std::string& what) { return ToolResult::failure(fmt::format("{}: {}", what, git_last_error())); }

// The workspace's own repository, and only it (assertions/workspace_repository.h says why).
bool open_repo(const ToolContext& ctx, GitRepo& repo, ToolResult& failure) {
  std::string refused = assertions::open_workspace_repository(ctx.workspace, repo);
  if (refused.empty()) return true;
  failure = ToolResult::failure(refused);
  return false;
}

// Whether a path git reports (relative to the repository's folder, which may lie above the
// workspace) is a credential file: by the workspace's filter beneath the workspace, by name above
// it; and beneath it, by what the file there is now (an inode of a credential file of the run's
// start, or its bytes: Workspace::stat and the read's content check), so a renamed or copied one
// is neither staged nor diffed.
class CredentialPaths {
 public:
  CredentialPaths(const ToolContext& ctx, git_repository* repo) : workspace_(ctx.workspace) {
    const char* workdir = git_repository_workdir(repo);
    char real[PATH_MAX];
    if (workdir == nullptr || ::realpath(workdir, real) == nullptr) return;
    std::string top = real;
    const std::string& root = ctx.workspace.root();
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

ToolResult with_output(const std::string& text, const ToolContext& ctx) {
  CappedOutput out(ctx.output_cap);
  out.append(text);
  ToolResult r;
  r.ok = true;
  r.set_output(out);
  return r;
}

class GitStatus final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_status", "list uncommitted changes of the workspace's git repository", {}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json&) const override { return "."; }
  ToolResult run(const nlohmann::json&, const ToolContext& ctx) const override {
    GitRepo repo;
    ToolResult failure;
    if (!open_repo(ctx, repo, failure)) return failure;
    git_status_options opts;
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    GitStatusList list;
    if (git_status_list_new(&list.p, repo.p, &opts) != 0) return git_failure("git status");
    std::string text;
    std::size_t n = git_status_list_entrycount(list.p);
    for (std::size_t i = 0; i < n; ++i) {
      const git_status_entry* e = git_status_byindex(list.p, i);
      const git_diff_delta* d = e->index_to_workdir != nullptr ? e->index_to_workdir : e->head_to_index;
      text += fmt::format("{:<10} {}\n", git_status_word(e->status), d != nullptr ? d->new_file.path : "?");
    }
    if (n == 0) text = "clean: nothing to commit\n";
    return with_output(text, ctx);
  }
};

class GitDiff final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_diff", "the uncommitted changes against HEAD, as a unified diff",
                             {{"path", ArgType::kString, false, "only under this workspace-relative path"}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("path", "."); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    GitRepo repo;
    ToolResult failure;
    if (!open_repo(ctx, repo, failure)) return failure;
    GitTree head;
    git_object* obj = nullptr;
    if (git_revparse_single(&obj, repo.p, "HEAD^{tree}") == 0) head.p = reinterpret_cast<git_tree*>(obj);
    git_diff_options opts;
    git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_SHOW_UNTRACKED_CONTENT | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
    std::string path = args.value("path", "");
    char* spec = path.data();
    if (!path.empty()) {
      opts.pathspec.strings = &spec;
      opts.pathspec.count = 1;
    }
    candor::GitDiff diff;
    if (git_diff_tree_to_workdir_with_index(&diff.p, repo.p, head.p, &opts) != 0) return git_failure("git diff");
    // File by file, so that a credential file's patch is never formatted at all.
    CredentialPaths credential(ctx, repo.p);
    std::string text;
    for (std::size_t i = 0; i < git_diff_num_deltas(diff.p); ++i) {
      const git_diff_delta* d = git_diff_get_delta(diff.p, i);
      if (credential(d->old_file) || credential(d->new_file)) {
        text += fmt::format("diff --git a/{} b/{}\n{}\n", d->old_file.path, d->new_file.path, sandbox::kContentWithheld);
        continue;
      }
      GitPatch patch;
      if (git_patch_from_diff(&patch.p, diff.p, i) != 0) return git_failure("git diff");
      if (patch.p == nullptr) continue;  // unchanged
      Buf buf = GIT_BUF_INIT;
      if (git_patch_to_buf(&buf, patch.p) != 0) return git_failure("git diff");
      text.append(buf.ptr, buf.size);
      git_buf_dispose(&buf);
    }
    return with_output(text.empty() ? "no changes against HEAD\n" : text, ctx);
  }
};

class GitLog final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_log", "the latest commits, newest first",
                             {{"max_count", ArgType::kInteger, false, "how many (default 10)", 1, 1000}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json&) const override { return "HEAD"; }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    GitRepo repo;
    ToolResult failure;
    if (!open_repo(ctx, repo, failure)) return failure;
    Walk walk;
    if (git_revwalk_new(&walk.p, repo.p) != 0) return git_failure("git log");
    git_revwalk_sorting(walk.p, GIT_SORT_TIME);
    if (git_revwalk_push_head(walk.p) != 0) return with_output("no commits yet\n", ctx);
    std::string text;
    git_oid oid;
    for (int n = 0; n < args.value("max_count", 10) && git_revwalk_next(&oid, walk.p) == 0; ++n) {
      candor::GitCommit c;
      if (git_commit_lookup(&c.p, repo.p, &oid) != 0) return git_failure("git log");
      char id[8];
      git_oid_tostr(id, sizeof(id), &oid);
      const git_signature* a = git_commit_author(c.p);
      text += fmt::format("{} {} <{}> {}\n", id, a->name, a->email, git_commit_summary(c.p));
    }
    return with_output(text, ctx);
  }
};

class GitCommit final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_commit",
                             "stage every change in the workspace (new, modified, deleted; .gitignore respected) and commit it",
                             {{"message", ArgType::kString, true, "the commit message"}}};
    return s;
  }
  bool read_only() const override { return false; }
  bool effect() const override { return true; }
  bool effect_on_files() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("message", ""); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    std::string message = args.at("message").get<std::string>();
    if (message.find_first_not_of(" \n\t") == std::string::npos) return ToolResult::failure("the commit message is empty");
    GitRepo repo;
    ToolResult failure;
    if (!open_repo(ctx, repo, failure)) return failure;
    GitIndex index;
    if (git_repository_index(&index.p, repo.p) != 0) return git_failure("git index");
    char star[] = "*";
    char* all = star;
    git_strarray everything{&all, 1};
    // Credential files stay out of the index: once in .git, a shell step could read them back.
    StageFilter filter{CredentialPaths(ctx, repo.p), {}};
    if (git_index_add_all(index.p, &everything, GIT_INDEX_ADD_DEFAULT, &StageFilter::skip, &filter) != 0 ||
        git_index_update_all(index.p, &everything, &StageFilter::skip, &filter) != 0 || git_index_write(index.p) != 0) {
      return git_failure("staging the changes");
    }
    git_oid tree_id, commit_id;
    if (git_index_write_tree(&tree_id, index.p) != 0) return git_failure("writing the tree");
    GitTree tree;
    if (git_tree_lookup(&tree.p, repo.p, &tree_id) != 0) return git_failure("reading the tree");
    candor::GitCommit parent;
    git_object* head = nullptr;
    if (git_revparse_single(&head, repo.p, "HEAD^{commit}") == 0) parent.p = reinterpret_cast<git_commit*>(head);
    if (parent.p != nullptr && git_oid_equal(git_commit_tree_id(parent.p), &tree_id)) {
      return ToolResult::failure("nothing to commit: the workspace matches HEAD");
    }
    SignaturePtr sig;
    if (git_signature_default(&sig.p, repo.p) != 0 && git_signature_now(&sig.p, "candor", "candor@localhost") != 0) {
      return git_failure("the commit author");
    }
    const git_commit* parents[1] = {parent.p};
    if (git_commit_create(&commit_id, repo.p, "HEAD", sig.p, sig.p, nullptr, message.c_str(), tree.p, parent.p ? 1 : 0,
                          parents) != 0) {
      return git_failure("git commit");
    }
    char id[8];
    git_oid_tostr(id, sizeof(id), &commit_id);
    char from[GIT_OID_HEXSZ + 1], to[GIT_OID_HEXSZ + 1];
    git_oid_tostr(to, sizeof(to), &tree_id);
    if (parent.p != nullptr) {
      git_oid_tostr(from, sizeof(from), git_commit_tree_id(parent.p));
    } else {
      std::snprintf(from, sizeof(from), "%s", snapshot::kEmptyTree);
    }
    std::string left_out;
    for (const auto& p : filter.skipped) left_out += (left_out.empty() ? "" : ", ") + p;
    ToolResult done = with_output(fmt::format("committed {} \"{}\" as {} <{}>\n{}", id, message.substr(0, message.find('\n')),
                                              sig.p->name, sig.p->email,
                                              left_out.empty() ? "" : "credential files left unstaged: " + left_out + "\n"),
                                  ctx);
    done.committed = std::make_pair(std::string(from), std::string(to));
    return done;
  }

 private:
  struct StageFilter {
    CredentialPaths credential;
    std::vector<std::string> skipped;
    // libgit2's git_index_matched_path_cb: 0 stages the path, > 0 skips it.
    static int skip(const char* path, const char*, void* payload) {
      auto* self = static_cast<StageFilter*>(payload);
      if (!self->credential(path)) return 0;
      if (std::find(self->skipped.begin(), self->skipped.end(), path) == self->skipped.end()) self->skipped.emplace_back(path);
      return 1;
    }
  };
};

}  // namespace

std::unique_ptr<Tool> make_git_status() { return std::make_unique<GitStatus>(); }
std::unique_ptr<Tool> make_git_diff() { return std::make_unique<GitDiff>(); }
std::unique_ptr<Tool> make_git_log() { return std::make_unique<GitLog>(); }
std::unique_ptr<Tool> make_git_commit() { return std::make_unique<GitCommit>(); }

}  // namespace candor::executor
