// Assertions that run a program in the process sandbox: command_succeeds and external evaluators.
#include <fmt/format.h>

#include "assertions/builtins.h"
#include "assertions/external.h"
#include "core/json_text.h"
#include "core/run_record.h"
#include "sandbox/process.h"
#include "sandbox/refusals.h"
#include "sandbox/workspace_policy.h"

namespace candor::assertions {
namespace {

// How much of a process's output a message quotes (the record keeps kOutputTail of it).
constexpr std::size_t kMessageTail = 300;
// How much of a command's output is kept to read its test runner's summary from: every summary a
// long `cargo test` prints, one per test binary. Past it, the summary is read from the last
// CappedOutput::kTailBytes (where the final summary of the other runners stands).
constexpr std::size_t kSummaryOutputCap = 4 * 1024 * 1024;

// The run's sandbox policy with the credential files found again now; an error when they cannot
// all be (the program must not run).
Result<sandbox::SandboxPolicy> policy_for(const Context& ctx, bool workspace_writable) {
  sandbox::SandboxPolicy policy =
      ctx.process_sandbox != nullptr ? *ctx.process_sandbox : sandbox::make_sandbox_policy(ctx.workspace);
  TRY_STATUS(sandbox::refresh_secret_files_for(ctx.workspace, policy, ctx.secret_refresh));
  policy.workspace_writable = workspace_writable;
  return policy;
}

constexpr const char* kNoTimeLeft = "the run's time budget ran out";

// `covers`: the paths a user's pass is evidence for, when it failed before the change (docs/design.md,
// Commands as evidence). The user's to give: the planner's prompt leaves it out.
ArgSpec covers_arg() {
  ArgSpec a{"covers", ArgType::kGlobs, false,
            "globs of the paths a pass covers when the command failed before the change (a user's assertion only)"};
  a.user_only = true;
  return a;
}

// `"tests_of_record": false`: the goal changes behaviour the command's tests pin (a refactor, a
// release), so the change's edits to them are the change's to make: no run on record.
ArgSpec tests_of_record_arg() {
  ArgSpec a{"tests_of_record", ArgType::kBoolean, false,
            "false when the goal changes behaviour its tests pin, so the change may edit them: the command is not run "
            "again with the tests as they were (a user's assertion only; default true)"};
  a.user_only = true;
  return a;
}

// A declared-discriminating external evaluator's arguments take `covers` too (candor's, whatever
// the config declared under that name).
std::vector<ArgSpec> with_covers(std::vector<ArgSpec> args, bool discriminating) {
  if (!discriminating) return args;
  std::erase_if(args, [](const ArgSpec& a) { return a.name == "covers" || a.name == "tests_of_record"; });
  args.push_back(covers_arg());
  args.push_back(tests_of_record_arg());
  return args;
}

class CommandSucceeds final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{
        .name = "command_succeeds",
        .description = "a /bin/sh command, run sandboxed in the workspace (e.g. the test suite), exits 0",
        .args = {{"command", ArgType::kString, true, "shell command"},
                 {"timeout_s", ArgType::kInteger, false, "seconds before it is killed (default 120)", 1, 3600},
                 covers_arg(),
                 tests_of_record_arg()},
        .command_evidence = true};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string command = a.at("command").get<std::string>();
    auto policy = policy_for(ctx, true);
    if (!policy.ok()) return {false, "could not run `" + command + "`: " + policy.error().message, "", true};
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", command};
    spec.cwd = ctx.workspace.root();
    const std::chrono::milliseconds own = std::chrono::seconds(a.value("timeout_s", 120));
    auto timeout = bounded_timeout(own, ctx);
    if (!timeout) return {false, fmt::format("`{}` was not run: {}", command, kNoTimeLeft), "", true};
    spec.timeout = *timeout;
    spec.sandbox = &*policy;
    spec.output_cap = kSummaryOutputCap;
    auto run = sandbox::run_process(spec);
    if (!run.ok()) return {false, "could not run `" + command + "`: " + run.error().message, "", true};
    if (!run->protected_created.empty()) {
      return {
          false,
          fmt::format("`{}` created {}, which no command may create; removed", command, run->protected_created.front()),
          "", true};
    }
    if (run->timed_out && *timeout < own) {
      return {false, fmt::format("`{}` was stopped after {:.1f} s: {}", command, run->elapsed_s, kNoTimeLeft), "",
              true};
    }
    if (run->timed_out) {
      return {false, fmt::format("`{}` did not finish within {} s and was killed", command, a.value("timeout_s", 120)),
              "", true};
    }
    Outcome out;
    out.output = run->output.tail(kOutputTail);
    out.summary_text = run->output.truncated() ? run->output.tail(CappedOutput::kTailBytes) : run->output.text();
    if (run->signal != 0) {
      out.message =
          fmt::format("`{}` was killed by signal {}: {}", command, run->signal, run->output.tail(kMessageTail));
      return out;
    }
    out.exit_code = run->exit_code;
    out.passed = run->exit_code == 0;
    if (out.passed) {
      out.message = fmt::format("`{}` exited 0 after {:.1f} s", command, run->elapsed_s);
      return out;
    }
    out.sandbox_refused = sandbox::refused_paths(out.summary_text, *policy);
    out.message = fmt::format(
        "`{}` exited {} after {:.1f} s: {}{}", command, run->exit_code, run->elapsed_s,
        out.sandbox_refused.empty() ? std::string() : sandbox::refusal_sentence(out.sandbox_refused) + "; it printed: ",
        run->output.tail(kMessageTail));
    return out;
  }
};

class External final : public Evaluator {
 public:
  explicit External(ExternalEvaluatorSpec spec)
      : spec_(std::move(spec)),
        signature_{.name = spec_.type,
                   .description = spec_.description.empty() ? fmt::format("external: {}", spec_.command.front())
                                                            : spec_.description,
                   .args = with_covers(spec_.args, spec_.discriminating),
                   .open_args = spec_.open_args,
                   .reads_files = spec_.discriminating,
                   .command_evidence = spec_.discriminating} {}
  const Signature& signature() const override { return signature_; }

  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    auto failed = [&](const std::string& why) {
      return Outcome{false, fmt::format("external evaluator {} ({}) {}", spec_.type, spec_.command.front(), why),
                     path_of(a), true};
    };
    // On another file source (the pre-run snapshot) the program is told a read-only copy of the
    // path as its `workspace`. It still runs from the workspace (its own files may live there); one
    // that ignores `workspace` and reads from its working folder sees the current content and so
    // passes twice: not discriminating, which is the safe way to be wrong.
    std::unique_ptr<MaterializedFiles> copy;
    auto checked = policy_for(ctx, false);  // a checker does not change what it checks
    if (!checked.ok()) return failed("could not be started: " + checked.error().message);
    sandbox::SandboxPolicy policy = std::move(*checked);
    std::string root = ctx.workspace.root();
    if (ctx.files != nullptr) {
      auto made = ctx.files->materialize(path_of(a).empty() ? "." : path_of(a));
      if (!made.ok()) return failed("could not be given the pre-run copy: " + made.error().message);
      copy = std::move(made.value());
      root = copy->root();
      policy.read_paths.push_back(root);
    }
    nlohmann::json input = {{"assertion", a}, {"workspace", root}, {"step", nullptr}};
    if (ctx.step != nullptr) {
      input["step"] = {
          {"id", ctx.step->id},
          {"tool", ctx.step->tool},
          {"output", ctx.step->output},
          {"exit_code", ctx.step->exit_code ? nlohmann::json(*ctx.step->exit_code) : nlohmann::json(nullptr)}};
    }
    sandbox::ProcessSpec spec;
    spec.argv = spec_.command;
    spec.cwd = ctx.workspace.root();
    const auto own = std::chrono::duration_cast<std::chrono::milliseconds>(spec_.timeout);
    auto timeout = bounded_timeout(own, ctx);
    if (!timeout) return failed(std::string("was not run: ") + kNoTimeLeft);
    spec.timeout = *timeout;
    spec.stdin_data = input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    spec.merge_stderr = false;
    spec.output_cap = kMaxExternalOutput;
    spec.sandbox = &policy;
    auto run = sandbox::run_process(spec);
    if (!run.ok()) return failed("could not be started: " + run.error().message);
    std::string err = run->errors.tail(200);
    if (run->timed_out && *timeout < own)
      return failed(fmt::format("was stopped after {:.1f} s: {}", run->elapsed_s, kNoTimeLeft));
    if (run->timed_out) return failed(fmt::format("timed out after {:.1f} s and was killed", run->elapsed_s));
    if (run->signal != 0)
      return failed(fmt::format("crashed (signal {}){}", run->signal, err.empty() ? "" : ": " + err));
    if (run->exit_code != 0)
      return failed(fmt::format("exited with status {}{}", run->exit_code, err.empty() ? "" : ": " + err));
    if (run->output.truncated()) {
      return failed(fmt::format("printed {} bytes, over the {} an answer may have", run->output.total_bytes(),
                                kMaxExternalOutput));
    }
    auto reply = parse_json_text(run->output.text(), "its output");
    if (!reply.ok()) return failed("printed invalid JSON: " + reply.error().message);
    if (!reply->is_object() || !reply->contains("passed") || !(*reply)["passed"].is_boolean()) {
      return failed(fmt::format("printed {} without a boolean \"passed\"", json_excerpt(*reply)));
    }
    if (reply->contains("message") && !(*reply)["message"].is_string())
      return failed("printed a \"message\" that is not a string");
    std::string message = json_str(*reply, "message");
    return {(*reply)["passed"].get<bool>(), message.empty() ? fmt::format("{} said nothing more", spec_.type) : message,
            path_of(a)};
  }

 private:
  static std::string path_of(const nlohmann::json& a) {
    std::string p = json_str(a, "path");
    return p.empty() ? p : normalize_relative_path(p);
  }
  ExternalEvaluatorSpec spec_;
  Signature signature_;
};

}  // namespace

std::optional<std::chrono::milliseconds> bounded_timeout(std::chrono::milliseconds own, const Context& ctx) {
  std::chrono::milliseconds left = ctx.deadline.left_or(own);
  if (left <= std::chrono::milliseconds(0)) return std::nullopt;
  return left;
}

std::unique_ptr<Evaluator> make_command_succeeds() { return std::make_unique<CommandSucceeds>(); }

std::unique_ptr<Evaluator> make_external_evaluator(ExternalEvaluatorSpec spec) {
  return std::make_unique<External>(std::move(spec));
}

Status add_external_evaluators(Registry& registry, const std::vector<ExternalEvaluatorSpec>& specs,
                               const std::string& where) {
  for (const auto& spec : specs) {
    if (registry.find(spec.type) != nullptr) {
      return make_error(
          ErrorCode::kInvalidInput,
          fmt::format("{}: evaluators.{}: \"{}\" is a built-in assertion type; an external evaluator cannot "
                      "replace it (choose another name)",
                      where, spec.type, spec.type));
    }
    TRY_STATUS(registry.add(make_external_evaluator(spec)));
  }
  return ok_status();
}

}  // namespace candor::assertions
