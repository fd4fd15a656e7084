#include "cli/options.h"

#include <fmt/format.h>

namespace candor::cli {

std::string llm_default() {
  return "default: $CANDOR_LLM, else anthropic if $ANTHROPIC_API_KEY is set, else openai if $OPENAI_API_KEY or "
         "$OPENAI_BASE_URL is";
}

CLI::Option* one_of(CLI::Option* option, const std::vector<std::string>& names) {
  std::string shown;
  for (const auto& n : names) shown += (shown.empty() ? "" : "|") + n;
  return option->check(CLI::IsMember(names).description(""))->type_name(shown);
}

CLI::Option* judge_policy(CLI::Option* option) { return one_of(option, app::judge_policy_names()); }

CLI::Validator whole_number(long long lo, long long hi, const std::string& unit) {
  return CLI::Validator(
      [=](std::string& v) -> std::string {
        bool digits = !v.empty() && v.size() < 18 && v.find_first_not_of("0123456789") == std::string::npos;
        if (digits) {
          long long n = std::stoll(v);
          if (n >= lo && n <= hi) return "";
        }
        return fmt::format("expected a whole number of {} from {} to {}, got \"{}\"", unit, lo, hi, v);
      },
      "", "whole number");
}

std::string examples(const std::string& a, const std::string& b) { return "\nExamples:\n  " + a + "\n  " + b + "\n"; }

void add_workspace_options(CLI::App* cmd, app::WorkspaceOptions& s, bool& quiet) {
  cmd->add_option("-C,--workspace", s.workspace, "workspace folder (default: .)");
  cmd->add_option("--store", s.store_dir,
                  "run store folder (default: $CANDOR_HOME, else $XDG_STATE_HOME/candor, else ~/.local/state/candor)");
  cmd->add_option("--expect", s.expects, "goal-level assertion JSON, checked at the end (repeatable)");
  cmd->add_option(
      "--guard", s.guards,
      "assertion JSON that must still hold (\"the tests still pass\"): its failure makes the run partial; it never "
      "decides success (repeatable)");
  cmd->add_flag("--trust-config", s.trust_config,
                "use a .candor/config.json that a recorded run's step wrote (refused otherwise)");
  cmd->add_option("--max-steps", s.max_steps, "step budget (1 to 100000; default 50)")
      ->check(whole_number(1, 100000, "steps"))
      ->type_name("N");
  cmd->add_option("--timeout", s.timeout_s, "time budget in seconds (1 to 604800; default 600)")
      ->check(whole_number(1, 604800, "seconds"))
      ->type_name("SECONDS");
  cmd->add_flag("--allow-network", s.allow_network, "let shell steps use the network (closed by default)");
  cmd->add_flag("--require-sandbox", s.require_sandbox, "refuse to run unless every sandbox protection is available");
  cmd->add_option("--acceptance", s.acceptance_file,
                  "acceptance spec JSON: checkpoints the run's trajectory must hit (docs/design.md)");
  one_of(cmd->add_option("--kind", s.kind,
                         "the goal kind, fixed before any plan: modify (asks for a change) or inspect (asks a "
                         "question)"),
         {"modify", "inspect"});
  cmd->add_flag("-q,--quiet", quiet, "no progress on stderr while running");
  cmd->add_option("--pass-env", s.pass_env,
                  "an environment variable shell steps may see although it looks like a credential (repeatable)");
  cmd->add_option("--scope", s.scope,
                  "GLOB: a path the run may change (repeatable; with config scope); a change elsewhere blocks success");
}

}  // namespace candor::cli
