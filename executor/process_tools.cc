// Tools that reach beyond the workspace files: shell (a process) and http_get (the network).
#include <algorithm>

#include <fmt/format.h>

#include "executor/tool.h"
#include "sandbox/process.h"
#include "sandbox/workspace_policy.h"

namespace candor::executor {
namespace {

// A step that created .git or .candor: they are gone (the sandbox removed them), and the step fails.
std::string protected_refusal(const std::vector<std::string>& created) {
  std::string names;
  for (const auto& c : created) names += (names.empty() ? "" : ", ") + c;
  return fmt::format("created {}, which no step may create (the next run would read it as its own); removed", names);
}

class Shell final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{
        "shell",
        "run a /bin/sh command in the workspace; fails on a non-zero exit, a signal or a timeout "
        "(unless the step asserts exit_code_eq)",
        {{"command", ArgType::kString, true, "shell command"},
         {"timeout_s", ArgType::kInteger, false, "seconds before the process group is killed (default 60)", 1, 86400}}};
    return s;
  }
  bool read_only() const override { return false; }
  bool effect() const override { return false; }  // only when it changed the workspace: observed, not claimed
  std::string target(const nlohmann::json& args) const override { return args.value("command", ""); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    sandbox::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", args.at("command").get<std::string>()};
    spec.cwd = ctx.workspace.root();
    std::chrono::milliseconds asked(args.value("timeout_s", 60) * 1000LL);
    spec.timeout = std::max(std::chrono::milliseconds(1), std::min(asked, ctx.time_left));
    spec.output_cap = ctx.output_cap;
    spec.cancel = ctx.cancel;
    sandbox::SandboxPolicy policy =
        ctx.process_sandbox != nullptr ? *ctx.process_sandbox : sandbox::make_sandbox_policy(ctx.workspace);
    if (Status masked = sandbox::refresh_secret_files_for(ctx.workspace, policy, ctx.secret_refresh); !masked.ok()) {
      return ToolResult::failure(masked.error().message);
    }
    spec.sandbox = &policy;
    auto run = sandbox::run_process(spec);
    if (!run.ok()) return ToolResult::failure(run.error().message);
    ToolResult r;
    r.set_output(run->output);
    r.exit_code = run->exit_code;
    r.timed_out = run->timed_out;
    if (!run->protected_created.empty()) {
      r.error = protected_refusal(run->protected_created);
    } else if (run->cancelled) {
      r.error = "cancelled (Ctrl-C); the process group was killed";
    } else if (run->timed_out) {
      bool budget = spec.timeout < asked;
      r.error = fmt::format("timed out after {:.1f} s{}; the process group was killed", run->elapsed_s,
                            budget ? " (the run's time budget)" : "");
    } else if (run->signal != 0) {
      r.error = fmt::format("killed by signal {}", run->signal);
    } else if (run->exit_code != 0) {
      r.error = fmt::format("exited with status {}", run->exit_code);
    }
    r.ok = r.error.empty();
    return r;
  }
};

class HttpGet final : public Tool {
 public:
  const Signature& signature() const override {
    static const Signature s{"http_get",
                             "GET a URL (loopback only unless the config allows the host)",
                             {{"url", ArgType::kString, true, "http(s) URL"}}};
    return s;
  }
  bool read_only() const override { return true; }
  bool effect() const override { return false; }
  std::string target(const nlohmann::json& args) const override { return args.value("url", ""); }
  ToolResult run(const nlohmann::json& args, const ToolContext& ctx) const override {
    net::HttpRequest req;
    req.url = args.at("url").get<std::string>();
    req.max_body_bytes = ctx.output_cap;
    req.total_timeout_ms = std::clamp<long>(static_cast<long>(ctx.time_left.count()), 1, 30000);
    auto resp = net::http_request(req, ctx.network);
    if (!resp.ok()) return ToolResult::failure(resp.error().message);
    CappedOutput out(ctx.output_cap + 64);
    out.append(fmt::format("HTTP {}\n", resp->status));
    out.append(resp->body);
    ToolResult r;
    r.ok = true;
    r.set_output(out);
    if (resp->body_bytes_total > resp->body.size()) {
      r.output += fmt::format("\n[output truncated: {} bytes in total, the first {} shown]", resp->body_bytes_total,
                              resp->body.size());
      r.output_truncated = true;
      r.output_bytes = resp->body_bytes_total;
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> make_shell() { return std::make_unique<Shell>(); }
std::unique_ptr<Tool> make_http_get() { return std::make_unique<HttpGet>(); }

}  // namespace candor::executor
