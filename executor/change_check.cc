#include "executor/change_check.h"

#include <memory>

#include <fmt/format.h>

#include "assertions/empty_file_source.h"
#include "core/events.h"
#include "evidence/test_runners.h"
#include "executor/command_evidence.h"
#include "executor/runner_logs.h"
#include "executor/snapshot_files.h"
#include "sandbox/step_temp_dir.h"
#include "sandbox/workspace.h"
#include "sandbox/workspace_policy.h"

namespace candor::executor {
namespace {

AssertionRecord failed_record(const nlohmann::json& a, const std::string& why) {
  AssertionRecord r;
  r.type = json_str(a, "type");
  r.assertion = a;
  r.message = why;
  r.by = Provenance::kUser;
  return r;
}

}  // namespace

ChangeCheck check_change(const ChangeCheckInputs& in, const std::vector<nlohmann::json>& expects_only,
                         Trajectory& trajectory, const std::vector<nlohmann::json>& guards) {
  ChangeCheck out;
  std::vector<nlohmann::json> expects = expects_only;
  expects.insert(expects.end(), guards.begin(), guards.end());
  bool runs_programs = false;
  for (const auto& a : expects) runs_programs |= !in.evaluators.reads_files(a);

  // The folder assertions see as the workspace: HEAD's files when a program needs them, else an
  // empty one (file assertions read the trees through `files`).
  // A step temporary folder: a candor killed meanwhile leaves it for the next start to remove.
  sandbox::StepTempDir folder;
  std::unique_ptr<sandbox::Workspace> workspace;
  std::string setup_error;
  if (auto made = sandbox::StepTempDir::create(); made.ok()) {
    folder = std::move(made.value());
    Status written = runs_programs ? in.trees.checkout(in.head_tree, folder.path()) : ok_status();
    auto opened = written.ok()
                      ? sandbox::Workspace::open(folder.path(),
                                                 {.force_fallback = false, .protected_dirs = {}, .secrets = in.secrets})
                      : Result<std::unique_ptr<sandbox::Workspace>>(written.error());
    if (opened.ok()) {
      workspace = std::move(opened.value());
    } else {
      setup_error = opened.error().message;
    }
  } else {
    setup_error = made.error().message;
  }

  sandbox::SandboxPolicy policy;
  if (workspace && runs_programs) {
    link_inputs(*workspace, in.inputs.get());
    for (const auto& path : in.withheld) {
      if (workspace->lstat(path).ok()) (void)workspace->write_file(path, "");
    }
  }
  if (workspace) policy = sandbox::make_sandbox_policy(*workspace, in.sandbox);
  if (runs_programs) {
    for (const auto& input : in.inputs.get()) policy.read_paths.push_back(input.source);
  }
  if (workspace && runs_programs) out.sandbox = sandbox::expected_protections(policy).to_json();
  SnapshotFiles head(in.trees, in.head_tree, in.secrets, "in the change's result (HEAD)");
  SnapshotFiles base(in.trees, in.base_tree, in.secrets, "before the change (BASE)");
  std::function<void(std::string&)> mask;
  if (in.masker != nullptr) mask = [&](std::string& text) { in.masker->mask_in_place(text); };
  CommandEvidence commands({.trees = in.trees,
                            .evaluators = in.evaluators,
                            .secrets = in.secrets,
                            .network = in.network,
                            .sandbox = in.sandbox,
                            .deadline = in.deadline,
                            .mask = mask,
                            .inputs = in.inputs,
                            .withheld = in.withheld},
                           in.base_tree);

  for (std::size_t i = 0; i < expects.size(); ++i) {
    const nlohmann::json& a = expects[i];
    AssertionRecord r;
    if (!workspace) {
      r = failed_record(a, "could not be checked: " + setup_error);
    } else {
      assertions::Context ctx{*workspace, in.network, nullptr,
                              [&](const std::string& path) { return in.trees.read(in.base_tree, path); }, &policy};
      ctx.files = &head;
      ctx.deadline = in.deadline;
      const auto started = std::chrono::system_clock::now();
      assertions::Outcome o = in.evaluators.evaluate(a, ctx);
      r.type = json_str(a, "type");
      r.assertion = a;
      assertions::record_outcome(r, o);
      r.by = Provenance::kUser;
      r.reads_step = in.evaluators.reads_step(a);
      if (mask) {
        mask(r.message);
        mask(r.output);
      }
      if (in.evaluators.command_evidence(a)) {
        evidence::RunCounts counts = evidence::read_run_counts(a, o.summary_text, runner_logs(folder.path(), started));
        r.tests = counts.runner;
        r.frameworks = counts.frameworks;
        r.runner = evidence::runner_name(a);
      }
      bool guard = i >= expects_only.size();
      auto head_state = [&]() -> Result<std::string> { return in.head_tree; };
      if (o.passed && guard && o.path.empty() && in.evaluators.command_evidence(a)) {
        commands.add_record(r, nullptr, head_state, in.changed_paths);
      } else if (o.passed && !guard && o.path.empty() && in.evaluators.command_evidence(a)) {
        commands.add(r, nullptr, head_state, in.changed_paths, /*after_on_checkout=*/false);
      } else if (o.passed && !o.path.empty() && in.evaluators.reads_files(a)) {
        ctx.files = &base;
        assertions::Outcome before = in.evaluators.evaluate(a, ctx);
        r.discriminating = !before.passed && !before.error;
        if (*r.discriminating) {
          // Positive evidence: the same check on HEAD's files with an empty file at its path.
          assertions::EmptyFileAt empty(o.path, &head, *workspace);
          ctx.files = &empty;
          assertions::Outcome on_empty = in.evaluators.evaluate(a, ctx);
          r.positive = in.evaluators.proves_content(a) && !on_empty.passed && !on_empty.error;
        }
      }
    }
    r.guard = i >= expects_only.size();
    nlohmann::json event = to_json(r);
    event.erase("seq");
    r.seq = trajectory.record(event::kAssertion, event).seq;
    out.assertions.push_back(std::move(r));
  }
  return out;
}

Review review_change(const ChangeCheckInputs& in, llm::Provider& provider, const ToolRegistry& tools,
                     const std::string& criterion, const std::string& goal, Trajectory& trajectory) {
  Review none;
  none.validation.verdict = ReviewVerdict::kNone;
  auto folder = sandbox::StepTempDir::create();
  if (!folder.ok()) {
    none.validation.reason = "the reviewer could not be given the change: " + folder.error().message;
    return none;
  }
  Status written = in.trees.checkout(in.head_tree, folder->path());
  auto workspace = written.ok()
                       ? sandbox::Workspace::open(
                             folder->path(), {.force_fallback = false, .protected_dirs = {}, .secrets = in.secrets})
                       : Result<std::unique_ptr<sandbox::Workspace>>(written.error());
  if (!workspace.ok()) {
    none.validation.reason = "the reviewer could not be given the change: " + workspace.error().message;
    return none;
  }
  Reviewer reviewer(provider, tools, **workspace, in.network, trajectory, ReviewerOptions{criterion, 8, 16 * 1024});
  return reviewer.review(1, goal, std::nullopt, in.deadline.within(std::chrono::minutes(5)));
}

}  // namespace candor::executor
