// The workspace's own git repository, as the git tools (executor/git_tools.cc) and the git_clean
// assertion see it. libgit2 runs in candor itself, unsandboxed, so what is opened must be the
// user's repository and nothing a step arranged: only a repository whose work tree is the
// workspace root (no search upward: with the workspace a folder of a larger repository,
// `git_commit` would stage `../.env` into it), whose .git is the one that was there when the run
// started, and whose git folder holds no symbolic link leading out of it (a reflog linked to a
// file elsewhere would be appended to). Credential files (the workspace's filter, and by what the
// file is now: sandbox/credential_registry.h) are never staged, and their patches never formatted.
// snapshot/'s public face, with store.h, trees.h, range.h and gc.h; this header includes no
// libgit2 header.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

struct git_repository;

namespace candor::sandbox {
class Workspace;
}  // namespace candor::sandbox

namespace candor::snapshot {

// One entry of `git status`.
struct StatusEntry {
  // "untracked", "added", "deleted", "renamed", "conflicted", "type changed" or "modified".
  std::string word;
  std::string path;  // relative to the repository's folder; "?" when git names none
};

// One commit of `git log`.
struct LogEntry {
  std::string short_id;  // the first 7 hex digits
  std::string author_name;
  std::string author_email;
  std::string summary;  // the message's first paragraph, on one line
};

// What commit_all() made.
struct CommitMade {
  std::string short_id;  // the first 7 hex digits of the commit
  std::string author_name;
  std::string author_email;
  std::string parent_tree;            // full id of the tree of the commit it made on; kEmptyTree for a first commit
  std::string tree;                   // full id of the tree it committed
  std::vector<std::string> left_out;  // credential files left unstaged (repository paths), in the order met
};

class WorkspaceGit {
 public:
  // Opens the workspace's own repository under the rules above. On refusal, the error's message is
  // a sentence saying why ("no git repository at the workspace root ...", "refused: ...").
  // Borrows `workspace`, which must outlive the result.
  static Result<std::unique_ptr<WorkspaceGit>> open(const sandbox::Workspace& workspace);
  ~WorkspaceGit();
  WorkspaceGit(const WorkspaceGit&) = delete;
  WorkspaceGit& operator=(const WorkspaceGit&) = delete;

  // Errors of status(), uncommitted(), diff_against_head() and log() carry libgit2's message alone
  // (the caller names the operation); commit_all()'s name the stage that failed.

  // Uncommitted changes, index and work tree, untracked files listed one by one.
  Result<std::vector<StatusEntry>> status() const;
  // What the git_clean assertion counts: as status(), without submodules, and only under `under`
  // (a pathspec; "" for everything). Empty when the working tree is clean.
  Result<std::vector<StatusEntry>> uncommitted(const std::string& under) const;

  // The unified diff of the work tree (untracked files included, through the index) against
  // HEAD's tree (the empty tree before a first commit), only under `path` when it is not empty. A
  // file whose either side is a credential file appears only as "diff --git a/… b/…" and
  // sandbox::kContentWithheld: its patch is never formatted. "" when nothing changed.
  Result<std::string> diff_against_head(const std::string& path) const;

  // At most `max_count` commits from HEAD, newest first (by time); nullopt when HEAD names no
  // commit yet.
  Result<std::optional<std::vector<LogEntry>>> log(int max_count) const;

  // Stages every change (new, modified, deleted; .gitignore respected) but credential files, writes
  // the index, and commits it on HEAD with the repository's default identity (else
  // candor <candor@localhost>). Only through libgit2's object, index and ref calls: nothing else is
  // written into .git. A tree equal to HEAD's is refused ("nothing to commit: the workspace matches
  // HEAD").
  Result<CommitMade> commit_all(const std::string& message) const;

 private:
  WorkspaceGit(const sandbox::Workspace& workspace, git_repository* repo) : workspace_(workspace), repo_(repo) {}
  Result<std::vector<StatusEntry>> list(const std::string& under, bool exclude_submodules) const;

  const sandbox::Workspace& workspace_;
  git_repository* repo_;  // owned
};

}  // namespace candor::snapshot
