// Assertions about the workspace's own git repository, read through libgit2 (never written).
#include <git2.h>

#include <fmt/format.h>

#include "assertions/builtins.h"

namespace candor::assertions {
namespace {

struct Repo {
  git_repository* p = nullptr;
  ~Repo() { git_repository_free(p); }
};
struct StatusList {
  git_status_list* p = nullptr;
  ~StatusList() { git_status_list_free(p); }
};

std::string git_error_text() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

const char* describe(unsigned flags) {
  if (flags & GIT_STATUS_WT_NEW) return "untracked";
  if (flags & (GIT_STATUS_INDEX_NEW)) return "added";
  if (flags & (GIT_STATUS_WT_DELETED | GIT_STATUS_INDEX_DELETED)) return "deleted";
  if (flags & (GIT_STATUS_WT_RENAMED | GIT_STATUS_INDEX_RENAMED)) return "renamed";
  if (flags & GIT_STATUS_CONFLICTED) return "conflicted";
  if (flags & (GIT_STATUS_WT_TYPECHANGE | GIT_STATUS_INDEX_TYPECHANGE)) return "type changed";
  return "modified";
}

class GitClean final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_clean",
                             "the workspace's git repository has nothing uncommitted (no modified, staged or untracked "
                             "files that .gitignore does not ignore)",
                             {{"path", ArgType::kString, false, "only under this workspace-relative path"}}};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    static const int initialised = git_libgit2_init();
    (void)initialised;
    std::string under = json_str(a, "path");
    Repo repo;
    if (git_repository_open_ext(&repo.p, ctx.workspace.root().c_str(), 0, nullptr) != 0) {
      return {false, fmt::format("the workspace is not in a git repository ({})", git_error_text()), under, true};
    }
    git_status_options opts;
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    char* spec = under.data();
    if (!under.empty()) {
      opts.pathspec.strings = &spec;
      opts.pathspec.count = 1;
    }
    StatusList list;
    if (git_status_list_new(&list.p, repo.p, &opts) != 0) {
      return {false, "git status failed: " + git_error_text(), under, true};
    }
    std::size_t n = git_status_list_entrycount(list.p);
    std::string where = under.empty() ? "the worktree" : under;
    if (n == 0) return {true, fmt::format("{} is clean: everything is committed", where), under};
    std::string listed;
    for (std::size_t i = 0; i < n && i < 5; ++i) {
      const git_status_entry* e = git_status_byindex(list.p, i);
      const git_diff_delta* d = e->index_to_workdir != nullptr ? e->index_to_workdir : e->head_to_index;
      listed += fmt::format("{}{} {}", i ? ", " : "", describe(e->status), d != nullptr ? d->new_file.path : "?");
    }
    return {false, fmt::format("{} has {} uncommitted change{}: {}{}", where, n, n == 1 ? "" : "s", listed, n > 5 ? ", ..." : ""),
            under};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_git_clean() { return std::make_unique<GitClean>(); }

}  // namespace candor::assertions
