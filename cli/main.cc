#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/version.h"  // generated: CANDOR_VERSION, from project() in meson.build

namespace {

// Overwrites, in candor's own argv (what /proc/<pid>/cmdline shows every process on the machine,
// a sandboxed step included), the value given to `option`, as "--option VALUE" or
// "--option=VALUE", wherever it occurs (over-wiping is harmless: CLI11 has already copied every
// argument). The length still shows; the text does not.
void wipe_option_value(int argc, char** argv, std::string_view option) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    char* value = nullptr;
    if (arg == option && i + 1 < argc) {
      value = argv[++i];
    } else if (arg.size() > option.size() && arg.substr(0, option.size()) == option && arg[option.size()] == '=') {
      value = argv[i] + option.size() + 1;
    }
    if (value != nullptr) std::memset(value, '*', std::strlen(value));
  }
}

}  // namespace

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest of `names` to `word`, when it is close enough to be a likely typo; "" otherwise.
std::string closest(const std::string& word, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_d = 0;
  for (const auto& n : names) {
    std::size_t d = edit_distance(word, n);
    if (best.empty() || d < best_d) best = n, best_d = d;
  }
  std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, word.size() / 2));
  return !best.empty() && best_d <= limit ? best : "";
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "candor: %s\n", message.c_str());
  return candor::cli::kExitUsage;
}

// A whole number from lo to hi; the error says what was expected, not just "not in range".
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
      "INT", "whole number");
}

std::string examples(const std::string& a, const std::string& b) { return "\nExamples:\n  " + a + "\n  " + b + "\n"; }

std::vector<std::string> option_names(const CLI::App* cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd->get_options()) {
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
    for (const auto& s : o->get_snames()) out.push_back("-" + s);
  }
  return out;
}

// What the parsed subcommand did not take (allow_extras): an unknown option, or words of an
// unquoted goal.
int extras_error(const CLI::App* cmd, const std::vector<std::string>& extras, const std::string& first_positional) {
  for (const auto& e : extras) {
    if (e.size() > 1 && e[0] == '-') {
      std::string flag = e.substr(0, e.find('='));
      std::string near = closest(flag, option_names(cmd));
      return usage_error(fmt::format("{}: unknown option {}{}; see candor {} --help", cmd->get_name(), flag,
                                     near.empty() ? "" : fmt::format(" (did you mean {}?)", near), cmd->get_name()));
    }
  }
  std::string words;
  for (const auto& e : extras) words += " " + e;
  if (cmd->get_name() == "run") {
    return usage_error(fmt::format("the goal is one argument: quote it, as in\n  candor run \"{}{}\"",
                                   first_positional, words));
  }
  return usage_error(fmt::format("{}: unexpected argument{}:{}; see candor {} --help", cmd->get_name(),
                                 extras.size() > 1 ? "s" : "", words, cmd->get_name()));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace candor::cli;
  CLI::App app{"candor: run modification goals over a workspace and say honestly whether they were achieved", "candor"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", "candor " CANDOR_VERSION);
  // llm::choose_provider's rule, for the --llm help texts.
  const std::string llm_default =
      "default: $CANDOR_LLM, else anthropic if $ANTHROPIC_API_KEY is set, else openai if $OPENAI_API_KEY or $OPENAI_BASE_URL is";

  // The options `run` and `exec` share: where, what is stored, the goal-level checks, budgets.
  auto add_session_options = [](CLI::App* cmd, SessionArgs& s) {
    cmd->add_option("-C,--workspace", s.workspace, "workspace folder (default: .)");
    cmd->add_option("--store", s.store_dir, "run store folder (default: $CANDOR_HOME, else $XDG_STATE_HOME/candor, else ~/.local/state/candor)");
    cmd->add_option("--expect", s.expects, "goal-level assertion JSON, checked at the end (repeatable)");
    cmd->add_option("--guard", s.guards,
                    "assertion JSON that must still hold (\"the tests still pass\"): its failure makes the run partial; it never "
                    "decides success (repeatable)");
    cmd->add_flag("--trust-config", s.trust_config, "use a .candor/config.json that a recorded run's step wrote (refused otherwise)");
    cmd->add_option("--max-steps", s.max_steps, "step budget (default 50)")->check(whole_number(1, 100000, "steps"));
    cmd->add_option("--timeout", s.timeout_s, "time budget in seconds (default 600)")->check(whole_number(1, 604800, "seconds"));
    cmd->add_flag("--allow-network", s.allow_network, "let shell steps use the network (closed by default)");
    cmd->add_flag("--require-sandbox", s.require_sandbox, "refuse to run unless every sandbox protection is available");
    cmd->add_option("--acceptance", s.acceptance_file, "acceptance spec JSON: checkpoints the run's trajectory must hit (DESIGN.md)");
    cmd->add_option("--kind", s.kind, "the goal kind, fixed before any plan: modify (asks for a change) or inspect (asks a question)")
        ->check(CLI::IsMember({"modify", "inspect"}));
    cmd->add_flag("-q,--quiet", s.quiet, "no progress on stderr while running");
    cmd->add_option("--pass-env", s.pass_env, "an environment variable shell steps may see although it looks like a credential (repeatable)");
    cmd->add_option("--scope", s.scope, "GLOB: a path the run may change (repeatable; with config scope); a change elsewhere blocks success");
  };

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "plan, execute and verify a goal with an LLM planner");
  run_cmd->add_option("goal", run.goal, "the goal, in words")->required();
  run_cmd->add_option("--llm", run.llm, "PROVIDER[:MODEL]: anthropic, openai, script:FILE, command:PROG (" + llm_default + ")");
  add_session_options(run_cmd, run.session);
  run_cmd->add_option("--max-replans", run.session.max_replans, "replan budget (default 3)")->check(whole_number(0, 1000, "replans"));
  run_cmd->add_option("--max-tokens", run.session.max_tokens, "token budget (default 200000)")
      ->check(whole_number(1, 1LL << 40, "tokens"));
  run_cmd->add_option("--judge", run.judge, "tier 2: auto (when tier 1 is ambiguous), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  run_cmd->add_option("--criterion", run.criterion, "a criterion the worker never sees, checked by an independent reviewer");
  run_cmd->add_option("--criterion-file", run.criterion_file, "the reviewer's criterion, from a file");
  run_cmd->add_option("--max-goal-attempts", run.max_goal_attempts, "reviews before giving up (default 5)")->check(whole_number(1, 100, "attempts"));
  run_cmd->add_flag("--json", run.json, "print the report as JSON");

  ExecArgs exec;
  auto* exec_cmd = app.add_subcommand("exec", "execute a given plan, then verify (no planner, no replans)");
  exec_cmd->add_option("plan", exec.plan_file, "plan JSON file (DESIGN.md: Plan)")->required();
  exec_cmd->add_option("--goal", exec.goal, "the goal text to record (default: exec PLAN)");
  add_session_options(exec_cmd, exec.session);
  exec_cmd->add_option("--llm", exec.llm, "PROVIDER[:MODEL] for the tier-2 judge (" + llm_default + "; with none, no judge)");
  exec_cmd->add_option("--judge", exec.judge, "tier 2: auto (when tier 1 is ambiguous), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  exec_cmd->add_flag("--json", exec.json, "print the report as JSON");

  RunsArgs runs;
  auto* runs_cmd = app.add_subcommand("runs", "recorded runs, newest first");
  runs_cmd->add_option("--store", runs.store_dir, "run store folder");
  runs_cmd->add_option("--limit", runs.limit, "how many runs (default 20)")->check(whole_number(1, 1000000, "runs"));
  runs_cmd->add_option("--verdict", runs.verdict, "only runs with this verdict")->check(CLI::IsMember({"success", "partial", "fail"}));
  runs_cmd->add_option("--since", runs.since, "only runs newer than this: 2d, 12h, 30m, or an RFC 3339 time");
  runs_cmd->add_flag("--json", runs.json, "print JSON");

  ReportArgs report;
  auto* report_cmd = app.add_subcommand("report", "a run's report (default: the latest)");
  report_cmd->add_option("run", report.run, "run id, a unique prefix or suffix (the random part), or last");
  report_cmd->add_option("--store", report.store_dir, "run store folder");
  report_cmd->add_flag("--json", report.json, "print the report JSON");
  report_cmd->add_flag("--markdown", report.markdown, "print Markdown for a pull-request comment");
  report_cmd->add_option("--html", report.html_file, "write one self-contained HTML file");
  report_cmd->add_option("--junit", report.junit_file, "write JUnit XML");
  report_cmd->add_flag("-v,--verbose", report.verbose, "add every step with its capped output");

  VerifyArgs verify;
  auto* verify_cmd = app.add_subcommand("verify", "recompute the verdict of a recorded run (no planner)");
  verify_cmd->add_option("run", verify.run, "run id, a unique prefix or suffix (the random part), or last");
  verify_cmd->add_option("--store", verify.store_dir, "run store folder");
  verify_cmd->add_option("--judge", verify.judge, "tier 2: auto, always, never (default: the policy the run was recorded with; never for runs recorded before it was kept)")->check(CLI::IsMember({"auto", "always", "never"}));
  verify_cmd->add_option("--llm", verify.llm, "PROVIDER[:MODEL] for the judge (" + llm_default + ")");
  verify_cmd->add_flag("--json", verify.json, "print the report JSON");
  verify_cmd->add_flag("-q,--quiet", verify.quiet, "no progress on stderr while the judge is asked");
  verify_cmd->add_option("--acceptance", verify.acceptance_file, "check the run (or the trajectory) against this acceptance spec");
  verify_cmd->add_option("--trajectory", verify.trajectory_file, "verify another agent's transcript instead of a recorded run");
  verify_cmd->add_option("--format", verify.format, "the transcript's format: claude-code, swe-agent, openhands, codex")
      ->check(CLI::IsMember({"claude-code", "swe-agent", "openhands", "codex"}));
  verify_cmd->add_option("--git", verify.git_range,
                         "verify a change made elsewhere: A..B, A...B (from the merge base), one commit C, or BASE.. (BASE to the "
                         "uncommitted working tree, with BASE's ignore rules)");
  verify_cmd->add_option("-C,--repo", verify.repo, "with --git: the repository's root (default: .)");
  verify_cmd->add_option("--goal", verify.goal, "with --git: the goal the change was made for");
  verify_cmd->add_option("--goal-file", verify.goal_file, "with --git: the goal, from a file (an issue's text)");
  verify_cmd->add_option("--kind", verify.kind, "with --git: modify (default) or inspect")->check(CLI::IsMember({"modify", "inspect"}));
  verify_cmd->add_option("--expect", verify.expects, "with --git: assertion JSON checked on the change's result (repeatable)");
  verify_cmd->add_option("--guard", verify.guards,
                         "with --git: assertion JSON that must still hold on the change's result; never evidence of the goal (repeatable)");
  verify_cmd->add_option("--question", verify.questions, "with --git: a yes/no question for the judge (repeatable; default: the goal decomposed)");
  verify_cmd->add_option("--scope", verify.scope, "with --git: GLOB, a path the change may touch (repeatable); a change elsewhere blocks success");
  verify_cmd->add_flag("--markdown", verify.markdown, "with --git: print the report as Markdown, for a pull-request comment");
  verify_cmd->add_option("--criterion", verify.criterion, "with --git: a criterion an independent reviewer checks on the change's files");
  verify_cmd->add_option("--criterion-file", verify.criterion_file, "with --git: the reviewer's criterion, from a file");

  CheckArgs check;
  auto* check_cmd = app.add_subcommand("check", "validate an acceptance spec without running anything");
  check_cmd->add_option("spec", check.spec_file, "acceptance spec JSON")->required();
  check_cmd->add_option("--format", check.format, "check against this agent's tools instead of candor's: claude-code, swe-agent, openhands, codex")
      ->check(CLI::IsMember({"claude-code", "swe-agent", "openhands", "codex"}));

  UndoArgs undo;
  auto* undo_cmd = app.add_subcommand("undo", "restore the workspace files a run changed, from its snapshot");
  undo_cmd->add_option("run", undo.run, "run id, a unique prefix or suffix (the random part), or last")->required();
  undo_cmd->add_option("--store", undo.store_dir, "run store folder");
  undo_cmd->add_flag("--force", undo.force, "restore even files that changed after the run");

  EvaluatorsArgs evaluators;
  auto* evaluators_cmd = app.add_subcommand("evaluators", "the assertion types available, with their arguments");
  evaluators_cmd->add_option("-C,--workspace", evaluators.workspace, "include this workspace's external evaluators (default: .)");
  evaluators_cmd->add_flag("--json", evaluators.json, "print JSON");

  AssertArgs assert_args;
  auto* assert_cmd = app.add_subcommand("assert", "check assertions against a workspace, without a run (exit 0 only if all pass)");
  assert_cmd->add_option("assertion", assert_args.assertions, "assertion JSON, e.g. '{\"type\": \"file_exists\", \"path\": \"a\"}'")
      ->required();
  assert_cmd->add_option("-C,--workspace", assert_args.workspace, "workspace folder (default: .)");
  assert_cmd->add_flag("--allow-network", assert_args.allow_network, "let commands use the network");
  assert_cmd->add_flag("--json", assert_args.json, "print JSON");

  DoctorArgs doctor;
  auto* doctor_cmd = app.add_subcommand("doctor", "which sandbox protections this machine gives shell steps, and the run store's size");
  doctor_cmd->add_option("--store", doctor.store_dir, "run store folder");
  doctor_cmd->add_flag("--json", doctor.json, "print JSON");

  GcArgs gc;
  auto* gc_cmd = app.add_subcommand("gc", "remove old runs and the snapshots only they used (one of --keep, --older-than is required)");
  gc_cmd->add_option("--keep", gc.keep, "keep the newest N runs, remove the others")->check(whole_number(0, 100000000, "runs"));
  gc_cmd->add_option("--older-than", gc.older_than, "remove runs older than this: 90d, 12h, 30m (with --keep: only those both remove)");
  gc_cmd->add_flag("--dry-run", gc.dry_run, "say what would be removed; remove nothing");
  gc_cmd->add_option("--store", gc.store_dir, "run store folder");
  gc_cmd->add_flag("--json", gc.json, "print JSON");

  run_cmd->footer(examples("candor run \"Change the background to dark green\" -C ./site",
                           "candor run \"Fix the failing test\" --llm openai:qwen2.5-coder --timeout 300"));
  exec_cmd->footer(examples("candor exec plan.json -C ./site", "candor exec plan.json -C ./site --json --expect '{\"type\": \"file_exists\", \"path\": \"index.html\"}'"));
  runs_cmd->footer(examples("candor runs", "candor runs --verdict partial --since 2d --json"));
  report_cmd->footer(examples("candor report", "candor report a89108 --html report.html"));
  verify_cmd->footer(examples("candor verify last",
                              "candor verify --git main...HEAD --goal-file issue.md --expect '{\"type\": \"file_contains\", \"path\": \"README.md\", \"text\": \"Install\"}'"));
  check_cmd->footer(examples("candor check spec.json", "candor check spec.json --format swe-agent"));
  undo_cmd->footer(examples("candor undo last", "candor undo a89108 --force"));
  evaluators_cmd->footer(examples("candor evaluators", "candor evaluators -C ./site --json"));
  assert_cmd->footer(examples("candor assert '{\"type\": \"file_exists\", \"path\": \"index.html\"}' -C ./site",
                              "candor assert '{\"type\": \"command_succeeds\", \"command\": \"make test\"}' --json"));
  doctor_cmd->footer(examples("candor doctor", "candor doctor --json"));
  gc_cmd->footer(examples("candor gc --older-than 90d --dry-run", "candor gc --keep 50 --json"));

  std::vector<std::string> commands;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->allow_extras();
    commands.push_back(sub->get_name());
  }
  if (argc >= 2) {
    std::string first = argv[1];
    bool known = std::find(commands.begin(), commands.end(), first) != commands.end() || first == "-h" || first == "--help" ||
                 first == "--version" || first == "-V";
    if (!known) {
      std::string list;
      for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
      if (first == "version" || first == "-v") return usage_error(fmt::format("unknown command \"{}\" (did you mean candor --version?)", first));
      if (first == "help") return usage_error("unknown command \"help\" (did you mean candor --help?)");
      if (first.size() > 1 && first[0] == '-') {
        std::string near = closest(first, {"--help", "--version"});
        return usage_error(fmt::format("unknown option {}{}; a command comes first: {}", first,
                                       near.empty() ? "" : fmt::format(" (did you mean {}?)", near), list));
      }
      std::string near = closest(first, commands);
      return usage_error(fmt::format("unknown command \"{}\"{}; the commands are: {}", first,
                                     near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near), list));
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (run_cmd->parsed() && !run.criterion.empty()) wipe_option_value(argc, argv, "--criterion");
  if (verify_cmd->parsed() && !verify.criterion.empty()) wipe_option_value(argc, argv, "--criterion");
  for (CLI::App* sub : app.get_subcommands()) {
    std::vector<std::string> extras = sub->remaining();
    if (!extras.empty()) return extras_error(sub, extras, sub == run_cmd ? run.goal : "");
  }
  try {
    if (run_cmd->parsed()) return run_command(run);
    if (exec_cmd->parsed()) return exec_command(exec);
    if (runs_cmd->parsed()) return runs_command(runs);
    if (report_cmd->parsed()) return report_command(report);
    if (evaluators_cmd->parsed()) return evaluators_command(evaluators);
    if (assert_cmd->parsed()) return assert_command(assert_args);
    if (verify_cmd->parsed()) {
      verify.judge_given = verify_cmd->get_option("--judge")->count() > 0;
      return verify.git_range.empty() ? verify_command(verify) : verify_git_command(verify);
    }
    if (undo_cmd->parsed()) return undo_command(undo);
    if (doctor_cmd->parsed()) return doctor_command(doctor);
    if (gc_cmd->parsed()) return gc_command(gc);
    if (check_cmd->parsed()) return check_command(check);
  } catch (const std::exception& e) {
    return report_error(candor::make_error(candor::ErrorCode::kInternal, std::string("internal error: ") + e.what()));
  }
  return kExitUsage;
}
