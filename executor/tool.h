// Tools the executor runs for a plan's steps, and the registry that lists them. The registry is
// the single source of each tool's arguments and its read_only/effect flags.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "core/arg_schema.h"
#include "core/output_cap.h"
#include "net/http_client.h"
#include "planner/plan.h"
#include "sandbox/process_sandbox.h"
#include "sandbox/workspace.h"
#include "sandbox/workspace_policy.h"

namespace candor::executor {

struct ToolResult {
  bool ok = false;
  std::string output;  // capped; a truncation is said in the text and below
  std::optional<int> exit_code;
  std::string error;  // why !ok, in a sentence
  std::size_t output_bytes = 0;
  bool output_truncated = false;
  bool timed_out = false;  // a deadline ended it: never excused by an exit_code_eq assertion
  // Every workspace path the tool may have changed, when it knows them (candor's own file tools,
  // which write in this process): the scan after the step may then look at these alone, as long as
  // no process has run since the last scan. nullopt: anything may have changed.
  std::optional<std::vector<std::string>> wrote;
  // git_commit: the tree of the commit it made on, and the tree it committed (full hex ids; git's
  // empty tree for a first commit), so the run can count what the commit changed as change.
  std::optional<std::pair<std::string, std::string>> committed;

  static ToolResult failure(std::string error) {
    ToolResult r;
    r.error = std::move(error);
    return r;
  }
  void set_output(const CappedOutput& capped) {
    output = capped.text();
    output_bytes = capped.total_bytes();
    output_truncated = capped.truncated();
  }
};

struct ToolContext {
  const sandbox::Workspace& workspace;
  const net::NetworkPolicy& network;
  std::size_t output_cap = kDefaultOutputCap;
  std::chrono::milliseconds time_left{600000};  // of the run's time budget
  const std::atomic<bool>* cancel = nullptr;    // borrowed; Ctrl-C
  // Borrowed; the process sandbox shell steps run in. Null: the default policy for the workspace.
  const sandbox::SandboxPolicy* process_sandbox = nullptr;
  // How the credential files are found again before a process (sandbox/workspace_policy.h).
  sandbox::SecretRefresh secret_refresh = {};
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const Signature& signature() const = 0;
  virtual bool read_only() const = 0;
  // Counts as a goal action when it completes (shell: only when it changed the workspace).
  virtual bool effect() const = 0;
  // Whether the effect shows in the workspace's files (git_commit's is in .git).
  virtual bool effect_on_files() const { return effect(); }
  // What the step acts on, for people: a path, a command, a URL.
  virtual std::string target(const nlohmann::json& args) const = 0;
  // REQUIRES: `args` was validated against signature().args.
  virtual ToolResult run(const nlohmann::json& args, const ToolContext& context) const = 0;
};

class ToolRegistry {
 public:
  void add(std::unique_ptr<Tool> tool);
  const Tool* find(const std::string& name) const;
  std::vector<Signature> signatures() const;
  std::vector<std::string> names() const;
  const std::vector<std::unique_ptr<Tool>>& tools() const { return tools_; }

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

// The built-in tools of docs/design.md, from one explicit table (tool_registry.cc).
ToolRegistry builtin_tools();

// What a plan may name, from the two registries (borrowed only while building).
planner::Catalog make_catalog(const ToolRegistry& tools, const assertions::Registry& evaluators);

std::unique_ptr<Tool> make_file_read();
std::unique_ptr<Tool> make_file_list();
std::unique_ptr<Tool> make_file_search();
std::unique_ptr<Tool> make_file_write();
std::unique_ptr<Tool> make_file_patch();
std::unique_ptr<Tool> make_file_delete();
std::unique_ptr<Tool> make_shell();
std::unique_ptr<Tool> make_http_get();
std::unique_ptr<Tool> make_git_status();
std::unique_ptr<Tool> make_git_diff();
std::unique_ptr<Tool> make_git_log();
std::unique_ptr<Tool> make_git_commit();

}  // namespace candor::executor
