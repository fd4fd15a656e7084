// Assertions about the workspace's own git repository, read through snapshot/workspace_git.h
// (never written).
#include <fmt/format.h>

#include "assertions/builtins.h"
#include "snapshot/workspace_git.h"

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
    auto repo = snapshot::WorkspaceGit::open(ctx.workspace);
    if (!repo.ok()) return {false, "the workspace is not in a git repository: " + repo.error().message, under, true};
    auto entries = (*repo)->uncommitted(under);
    if (!entries.ok()) return {false, "git status failed: " + entries.error().message, under, true};
    std::size_t n = entries->size();
    std::string where = under.empty() ? "the worktree" : under;
    if (n == 0) return {true, fmt::format("{} is clean: everything is committed", where), under};
    std::string listed;
    for (std::size_t i = 0; i < n && i < 5; ++i) {
      const auto& e = (*entries)[i];
      listed += fmt::format("{}{} {}", i ? ", " : "", e.word, e.path);
    }
    return {
        false,
        fmt::format("{} has {} uncommitted change{}: {}{}", where, n, n == 1 ? "" : "s", listed, n > 5 ? ", ..." : ""),
        under};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_git_clean() { return std::make_unique<GitClean>(); }

}  // namespace candor::assertions
