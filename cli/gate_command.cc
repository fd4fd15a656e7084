// `candor gate`: the live gate over Claude Code's and Codex CLI's turns (app/gate.h). `gate
// claude-code|codex` is the hook command itself: the agent's JSON on stdin, candor's answer on
// stdout, exit 0 whatever happens (exit 2 would block the agent with candor's stderr as the reason).
// `gate install` writes the hooks into the agent's settings; `gate status` says what is installed
// and what the last turns got.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "app/gate.h"
#include "app/gate_checks.h"
#include "app/gate_install.h"
#include "app/gate_status.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"

namespace candor::cli {
namespace {

struct GateArgs {
  app::GateOptions options;
  GateInstallArgs install;
  std::string workspace = ".";
  bool json = false;
  int limit = 10;
};

// The hook's stdin, up to one byte past the limit (a stream of any length costs no more to refuse).
std::string read_stdin() {
  std::string text;
  char buf[65536];
  while (text.size() <= app::kMaxHookInputBytes) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

int hook_command(app::GateAgent agent, const GateArgs& args) {
  std::string answer;
  try {
    app::Session session;
    answer = app::answer_hook(session, agent, read_stdin(), args.options).stdout_text;
  } catch (...) {
    answer = app::render_hook_answer(agent, app::HookEvent::kStop,
                                     {false, "", "warning: candor gate failed inside: nothing was verified"});
  }
  std::fwrite(answer.data(), 1, answer.size(), stdout);
  std::fflush(stdout);
  return 0;  // always: the answer is in the JSON
}

// The running binary's absolute path: what the hooks run.
std::string own_path() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "candor";
  return std::string(buf, static_cast<std::size_t>(n));
}

// The hook's command: this binary, the agent, and the options the hook needs in the agent's
// environment (the store pinned when it is not the one the hook would find there).
std::string hook_command_line(app::GateAgent agent, const GateInstallArgs& args) {
  std::string cmd = app::shell_quote(own_path()) + " gate " + app::to_string(agent);
  if (std::string store = app::hook_store_dir(args.store_dir, nullptr); !store.empty())
    cmd += " --store " + app::shell_quote(store);
  if (!args.llm.empty()) cmd += " --llm " + app::shell_quote(args.llm);
  if (!args.judge.empty()) cmd += " --judge " + args.judge;
  return cmd;
}

// What the gate will check, from the workspace's config as it is now.
void print_checks(const std::string& workspace, const std::string& llm) {
  auto checks = app::workspace_gate_checks(workspace, llm);
  if (!checks.ok()) {
    std::printf("the gate will refuse this workspace's config until it is fixed: %s\n",
                report::terminal_safe(checks.error().message).c_str());
    return;
  }
  std::printf("the gate will check, at every stop of a turn:\n");
  for (const auto& c : *checks) std::printf("  %-10s %s\n", c.what.c_str(), report::terminal_safe(c.text).c_str());
}

}  // namespace

int gate_install_command(const GateInstallArgs& args) {
  auto agent = app::parse_gate_agent(args.agent);
  if (!agent) return report_error(make_error(ErrorCode::kUsage, "--agent must be claude-code or codex"));
  if (Status pinnable = app::check_hook_store(args.store_dir, nullptr); !pinnable.ok())
    return report_error(pinnable.error());
  app::InstallRequest request{.agent = *agent,
                              .user = args.user,
                              .uninstall = args.uninstall,
                              .local = args.local,
                              .project_dir = args.workspace,
                              .command = hook_command_line(*agent, args),
                              .env = nullptr};
  auto result = app::install_gate(request);
  if (!result.ok()) return report_error(result.error());
  for (const auto& f : result->files) {
    std::string path = report::terminal_safe(f.path);
    if (!f.changed) {
      std::printf("%s: nothing to change (%s)\n", path.c_str(), f.unchanged.c_str());
      continue;
    }
    std::printf("wrote %s:\n", path.c_str());
    for (const auto& w : f.what) std::printf("  %s\n", report::terminal_safe(w).c_str());
  }
  for (const auto& n : result->notes) std::printf("note: %s\n", report::terminal_safe(n).c_str());
  if (args.user && !args.uninstall) {
    std::printf(
        "the gate checks each project by its own .candor/config.json (`candor gate status -C DIR` says what)\n");
  } else if (!args.uninstall) {
    print_checks(args.workspace, args.llm);
  }
  return exit_code(app::ExitCategory::kSuccess);
}

namespace {

void print_status(const app::GateStatus& s) {
  auto safe = [](const std::string& t) { return report::terminal_safe(t); };
  std::printf("workspace  %s\n", safe(s.workspace).c_str());
  std::printf("config     %s (%s; a turn uses it as it was when the turn began)\n", safe(s.config_path).c_str(),
              s.config_present ? "as the workspace holds it now" : "none: the defaults");
  if (!s.config_error.empty()) {
    std::printf("  error: %s\n", safe(s.config_error).c_str());
  } else {
    std::string block_on;
    for (const auto& k : s.config["block_on"]) block_on += (block_on.empty() ? "" : ", ") + k.get<std::string>();
    std::printf("  gate.max_blocks %d, gate.block_on [%s], gate.judge %s (asked only with --llm on the hook)\n",
                s.config["max_blocks"].get<int>(), block_on.c_str(), s.config["judge"].get<std::string>().c_str());
    std::printf("  gate.acceptance %s, expect %zu, guard %zu, scope %s\n",
                s.config["acceptance"].get<bool>() ? "given" : "none", s.config["expect"].get<std::size_t>(),
                s.config["guard"].get<std::size_t>(), safe(s.config["scope"].dump()).c_str());
    if (!s.no_expect.empty()) std::printf("  no expectations: %s\n", safe(s.no_expect).c_str());
    for (const auto& c : s.checks) {
      if (c.what == "scans") std::printf("  scans: %s\n", safe(c.text).c_str());
    }
  }
  std::printf("hooks\n");
  for (const auto& i : s.installs) {
    std::string state = i.installed ? "installed" : "not installed";
    if (i.installed) {
      std::string events;
      for (const auto& e : i.events) events += (events.empty() ? "" : ", ") + e;
      state += " (" + events + ")";
    }
    if (!i.trust.empty()) state += "; " + i.trust;
    if (!i.error.empty()) state = "cannot be read: " + i.error;
    std::printf("  %-11s %-7s %s: %s\n", i.agent.c_str(), i.scope.c_str(), safe(i.path).c_str(), safe(state).c_str());
  }
  if (!s.codex_feature.empty()) std::printf("  codex hooks feature: %s\n", s.codex_feature.c_str());
  for (const auto& [agent, why] : s.effective) {
    std::printf("  %-11s %s\n", agent.c_str(),
                why.empty() ? "effective: the hooks will run" : safe("NOT effective: " + why).c_str());
  }
  std::printf(
      "  a turn's start answers within %d s (gate.start_timeout_s); what it could not read then blocks the stop\n",
      s.start_timeout_s);
  std::printf("last turns (store %s%s)\n", safe(s.store_dir).c_str(),
              s.store_from.empty() ? "" : safe(", " + s.store_from).c_str());
  if (!s.store_error.empty()) std::printf("  cannot be read: %s\n", safe(s.store_error).c_str());
  if (s.turns.empty() && s.store_error.empty()) std::printf("  none yet\n");
  for (const auto& t : s.turns) {
    std::printf("  %s  %-11s session %.12s turn %lld  run %s  stops %lld, blocked %lld  %s %s%s\n",
                safe(t.updated_at).c_str(), t.agent.c_str(), safe(t.session).c_str(), static_cast<long long>(t.turn),
                t.run_id.c_str(), static_cast<long long>(t.stops), static_cast<long long>(t.blocks),
                t.decision.empty() ? "(not stopped yet)" : t.decision.c_str(), t.verdict.c_str(),
                t.start.contains("fallback") ? " (no turn start: checked against HEAD)" : "");
  }
}

int status_command(const GateArgs& args) {
  auto status = app::gate_status(
      {.workspace = args.workspace, .store_dir = args.options.store_dir, .turns = args.limit, .env = nullptr});
  if (!status.ok()) return report_error(status.error());
  if (args.json) {
    std::printf("%s\n", app::to_json(*status).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    print_status(*status);
  }
  return exit_code(app::ExitCategory::kSuccess);
}

void add_judge_options(CLI::App* cmd, GateArgs& args) {
  cmd->add_option("--llm", args.options.llm,
                  "the judge's LLM, PROVIDER[:MODEL]; without it no judge is asked (the hook never takes the agent's "
                  "own key from the environment)");
  judge_policy(cmd->add_option("--judge", args.options.judge,
                               "when to ask the judge (default: the config's gate.judge, else auto)"));
}

}  // namespace

Subcommand add_gate_command(CLI::App& app) {
  auto args = std::make_shared<GateArgs>();
  auto* cmd =
      app.add_subcommand("gate", "gate Claude Code's or Codex CLI's turns live: block a stop on evidence of a problem");
  cmd->require_subcommand(1);

  auto* install = cmd->add_subcommand("install", "merge candor's hooks into the agent's settings (idempotent)");
  one_of(install->add_option("--agent", args->install.agent, "claude-code or codex")->required(),
         {"claude-code", "codex"});
  auto* user =
      install->add_flag("--user", args->install.user, "the user's settings (every project) instead of the project's");
  install
      ->add_flag("--local", args->install.local,
                 "Claude Code: the project's .claude/settings.local.json (yours, not committed) instead of "
                 ".claude/settings.json")
      ->excludes(user);
  install->add_flag("--uninstall", args->install.uninstall, "remove candor's hooks, and nothing else");
  install->add_option("-C,--workspace", args->workspace, "the project (default: the current folder)");
  install->add_option("--store", args->options.store_dir,
                      "run store folder the hooks use (default: the one candor finds here; pinned in the hook's "
                      "command when the hook would not find it in the agent's environment)");
  add_judge_options(install, *args);
  install->footer(
      examples("candor gate install --agent claude-code --local", "candor gate install --agent codex --user"));

  auto* status = cmd->add_subcommand("status", "the gate's config, its hooks, and the last turns with their verdicts");
  status->add_option("-C,--workspace", args->workspace, "the project (default: the current folder)");
  status->add_option("--store", args->options.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  status->add_option("--limit", args->limit, "how many turns to list")->check(whole_number(1, 1000, "turns"));
  status->add_flag("--json", args->json, "machine-readable");
  status->footer(examples("candor gate status", "candor gate status --json --limit 50"));

  std::vector<std::pair<CLI::App*, app::GateAgent>> hooks;
  for (app::GateAgent agent : {app::GateAgent::kClaudeCode, app::GateAgent::kCodex}) {
    auto* hook = cmd->add_subcommand(app::to_string(agent),
                                     fmt::format("the hook command {} runs (its JSON on stdin; always exits 0)",
                                                 agent == app::GateAgent::kClaudeCode ? "Claude Code" : "Codex CLI"));
    hook->add_option("--store", args->options.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
    add_judge_options(hook, *args);
    hooks.emplace_back(hook, agent);
  }
  cmd->footer(examples("candor gate install --agent claude-code", "candor gate status"));
  return {cmd,
          [args, install, status, hooks] {
            if (install->parsed()) {
              GateInstallArgs in = args->install;
              in.workspace = args->workspace;
              in.store_dir = args->options.store_dir;
              in.llm = args->options.llm;
              in.judge = args->options.judge;
              return gate_install_command(in);
            }
            if (status->parsed()) return status_command(*args);
            for (const auto& [hook, agent] : hooks) {
              if (hook->parsed()) return hook_command(agent, *args);
            }
            return exit_code(app::ExitCategory::kUsage);
          },
          nullptr};
}

}  // namespace candor::cli
