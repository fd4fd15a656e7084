#include "executor/command_evidence.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "core/command_coverage.h"
#include "sandbox/step_temp_dir.h"
#include "sandbox/workspace.h"
#include "sandbox/workspace_policy.h"

namespace candor::executor {
namespace {

ProgramRun not_run(std::string why) {
  ProgramRun r;
  r.error = true;
  r.message = std::move(why);
  return r;
}

// Makes the file at `path` (absolute, written by the checkout: a regular file, never a link) empty.
Status truncate_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kIo, fmt::format("cannot empty {}: {}", path, std::strerror(errno)));
  ::close(fd);
  return ok_status();
}

constexpr unsigned kGitLink = 0120000;

}  // namespace

ProgramRun CommandEvidence::run_on(const nlohmann::json& assertion, const assertions::StepView* step,
                                   const std::string& tree, const std::string& emptied) const {
  if (in_.deadline && std::chrono::steady_clock::now() >= *in_.deadline)
    return not_run("not run: the run's time budget ran out");
  auto folder = sandbox::StepTempDir::create();
  if (!folder.ok()) return not_run("not run: " + folder.error().message);
  if (Status written = in_.trees.checkout(tree, folder->path()); !written.ok()) {
    return not_run("not run: the checkout could not be written: " + written.error().message);
  }
  if (!emptied.empty()) {
    if (Status st = truncate_file(folder->path() + "/" + emptied); !st.ok())
      return not_run("not run: " + st.error().message);
  }
  auto workspace =
      sandbox::Workspace::open(folder->path(), {.force_fallback = false, .protected_dirs = {}, .secrets = in_.secrets});
  if (!workspace.ok()) return not_run("not run: " + workspace.error().message);
  sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**workspace, in_.sandbox);
  // The process sees credential files empty; the checkout need not hold their bytes either.
  for (const auto& secret : policy.secret_files) {
    if (Status st = truncate_file(secret); !st.ok()) return not_run("not run: " + st.error().message);
  }
  assertions::Context ctx{.workspace = **workspace,
                          .network = in_.network,
                          .step = step,
                          .baseline = {},
                          .process_sandbox = &policy,
                          .registry = nullptr,
                          .files = nullptr,
                          .credential_seen = nullptr,
                          .deadline = in_.deadline};
  assertions::Outcome o = in_.evaluators.evaluate(assertion, ctx);
  ProgramRun run{.passed = o.passed && !o.error,
                 .error = o.error,
                 .exit_code = o.exit_code,
                 .output = o.output,
                 .message = o.message,
                 .tests = o.tests};
  if (in_.mask) {
    in_.mask(run.output);
    in_.mask(run.message);
  }
  return run;
}

void CommandEvidence::add(AssertionRecord& r, const assertions::StepView* step,
                          const std::function<Result<std::string>()>& after_tree,
                          const std::vector<std::string>& changed) {
  if (!r.passed) return;
  nlohmann::json key = r.assertion;
  if (key.is_object()) key.erase("covers");  // the same command, whatever it is said to cover
  auto [before, fresh] = before_runs_.try_emplace(key.dump());
  if (fresh) before->second = run_on(r.assertion, step, before_tree_, "");
  r.before = before->second;
  // A test the change made pass: it failed before, and its runner's summaries show tests ran and
  // passed after, no fewer and with no more skipped (core/command_coverage.h, test_count_gap).
  r.discriminating =
      !r.before->passed && !r.before->error && test_count_gap(r.assertion, r.tests, r.before->tests).empty();
  if (!*r.discriminating) return;

  std::set<std::string> candidates;
  for (const auto& path : changed) {
    if (command_may_cover(r.assertion, path)) candidates.insert(path);
  }
  if (candidates.empty()) return;
  auto tree = after_tree();
  for (const auto& path : candidates) {
    if (r.emptied.size() == kMaxEmptiedRuns) break;
    auto was = in_.trees.stat(before_tree_, path);
    if (!was.ok() || was->has_value()) continue;  // not added (or unknown: then not covered)
    if (!tree.ok()) {
      r.emptied.push_back(
          {path, not_run("not run: the state it passed on could not be written as a tree: " + tree.error().message)});
      continue;
    }
    auto now = in_.trees.stat(*tree, path);
    if (!now.ok() || !now->has_value() || (*now)->directory || (*now)->mode == kGitLink) continue;
    r.emptied.push_back({path, run_on(r.assertion, step, *tree, path)});
  }
}

}  // namespace candor::executor
