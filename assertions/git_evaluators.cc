// Assertions about the workspace's own git repository, read through libgit2 (never written).
#include <fmt/format.h>

#include "assertions/builtins.h"
#include "assertions/workspace_repository.h"
#include "snapshot/git_ptr.h"

namespace candor::assertions {
namespace {

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
    std::string under = json_str(a, "path");
    GitRepo repo;
    if (std::string refused = open_workspace_repository(ctx.workspace, repo); !refused.empty()) {
      return {false, "the workspace is not in a git repository: " + refused, under, true};
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
    GitStatusList list;
    if (git_status_list_new(&list.p, repo.p, &opts) != 0) {
      return {false, "git status failed: " + git_last_error(), under, true};
    }
    std::size_t n = git_status_list_entrycount(list.p);
    std::string where = under.empty() ? "the worktree" : under;
    if (n == 0) return {true, fmt::format("{} is clean: everything is committed", where), under};
    std::string listed;
    for (std::size_t i = 0; i < n && i < 5; ++i) {
      const git_status_entry* e = git_status_byindex(list.p, i);
      const git_diff_delta* d = e->index_to_workdir != nullptr ? e->index_to_workdir : e->head_to_index;
      listed += fmt::format("{}{} {}", i ? ", " : "", git_status_word(e->status), d != nullptr ? d->new_file.path : "?");
    }
    return {false, fmt::format("{} has {} uncommitted change{}: {}{}", where, n, n == 1 ? "" : "s", listed, n > 5 ? ", ..." : ""),
            under};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_git_clean() { return std::make_unique<GitClean>(); }

}  // namespace candor::assertions
