// Owning handles for libgit2 objects, and its last error as text. Private to snapshot/ (and its
// tests): the only folder that uses libgit2. Header-only, so only the files that use libgit2
// include <git2.h>.
#pragma once

#include <git2.h>

#include <mutex>
#include <string>

namespace candor {

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

using GitRepo = GitPtr<git_repository, git_repository_free>;
using GitIndex = GitPtr<git_index, git_index_free>;
using GitTree = GitPtr<git_tree, git_tree_free>;
using GitCommit = GitPtr<git_commit, git_commit_free>;
using GitDiff = GitPtr<git_diff, git_diff_free>;
using GitStatusList = GitPtr<git_status_list, git_status_list_free>;
using GitOdb = GitPtr<git_odb, git_odb_free>;
using GitBlob = GitPtr<git_blob, git_blob_free>;
using GitReference = GitPtr<git_reference, git_reference_free>;
using GitTreeEntry = GitPtr<git_tree_entry, git_tree_entry_free>;
using GitPatch = GitPtr<git_patch, git_patch_free>;

// libgit2 needs one git_libgit2_init() per process before any call.
inline void git_init_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // Objects, refs and indexes libgit2 writes are fsynced before they are renamed into place
    // (docs/design.md, Durability): a power loss never leaves a ref naming an object not on disk.
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
  });
}

inline std::string git_last_error() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

}  // namespace candor
