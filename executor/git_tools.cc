// Git tools on the workspace's own repository (never one above it, one a step created, or one
// whose .git links out: snapshot/workspace_git.h): git_status, git_diff and git_log read;
// git_commit records what is in the workspace as a commit. git_commit is the one way a tool
// changes .git: through libgit2's object, index and ref calls only, never by writing files there,
// so hooks and config stay out of reach (shell steps see .git read-only). libgit2 itself is
// snapshot/'s; this file formats what it returns.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "executor/tool.h"
#include "snapshot/workspace_git.h"

namespace candor::executor {
namespace {

ToolResult git_failure(const std::string& what, const Error& error) {
  return ToolResult::failure(fmt::format("{}: {}", what, error.message));
}

// The workspace's own repository, and only it (snapshot/workspace_git.h says why).
std::unique_ptr<snapshot::WorkspaceGit> open_repo(const ToolContext& ctx, ToolResult& failure) {
  auto git = snapshot::WorkspaceGit::open(ctx.workspace);
  if (git.ok()) return std::move(git).value();
  failure = ToolResult::failure(git.error().message);
  return nullptr;
}

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
    ToolResult failure;
    auto repo = open_repo(ctx, failure);
    if (repo == nullptr) return failure;
    auto entries = repo->status();
    if (!entries.ok()) return git_failure("git status", entries.error());
    std::string text;
    for (const auto& e : *entries) text += fmt::format("{:<10} {}\n", e.word, e.path);
    if (entries->empty()) text = "clean: nothing to commit\n";
    return with_output(text, ctx);
  }
};

class GitDiff final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_diff",
                             "the uncommitted changes against HEAD, as a unified diff",
                             {{"path", ArgType::kString, false, "only under this workspace-relative path"}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("path", "."); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    ToolResult failure;
    auto repo = open_repo(ctx, failure);
    if (repo == nullptr) return failure;
    auto text = repo->diff_against_head(args.value("path", ""));
    if (!text.ok()) return git_failure("git diff", text.error());
    return with_output(text->empty() ? "no changes against HEAD\n" : *text, ctx);
  }
};

class GitLog final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"git_log",
                             "the latest commits, newest first",
                             {{"max_count", ArgType::kInteger, false, "how many (default 10)", 1, 1000}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json&) const override { return "HEAD"; }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    ToolResult failure;
    auto repo = open_repo(ctx, failure);
    if (repo == nullptr) return failure;
    auto log = repo->log(args.value("max_count", 10));
    if (!log.ok()) return git_failure("git log", log.error());
    if (!log->has_value()) return with_output("no commits yet\n", ctx);
    std::string text;
    for (const auto& c : **log)
      text += fmt::format("{} {} <{}> {}\n", c.short_id, c.author_name, c.author_email, c.summary);
    return with_output(text, ctx);
  }
};

class GitCommit final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{
        "git_commit",
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
    if (message.find_first_not_of(" \n\t") == std::string::npos)
      return ToolResult::failure("the commit message is empty");
    ToolResult failure;
    auto repo = open_repo(ctx, failure);
    if (repo == nullptr) return failure;
    auto made = repo->commit_all(message);
    if (!made.ok()) return ToolResult::failure(made.error().message);
    std::string left_out;
    for (const auto& p : made->left_out) left_out += (left_out.empty() ? "" : ", ") + p;
    ToolResult done =
        with_output(fmt::format("committed {} \"{}\" as {} <{}>\n{}", made->short_id,
                                message.substr(0, message.find('\n')), made->author_name, made->author_email,
                                left_out.empty() ? "" : "credential files left unstaged: " + left_out + "\n"),
                    ctx);
    done.committed = std::make_pair(made->parent_tree, made->tree);
    return done;
  }
};

}  // namespace

std::unique_ptr<Tool> make_git_status() { return std::make_unique<GitStatus>(); }
std::unique_ptr<Tool> make_git_diff() { return std::make_unique<GitDiff>(); }
std::unique_ptr<Tool> make_git_log() { return std::make_unique<GitLog>(); }
std::unique_ptr<Tool> make_git_commit() { return std::make_unique<GitCommit>(); }

}  // namespace candor::executor
