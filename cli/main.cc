#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/version.h"  // generated: CANDOR_VERSION, from project() in meson.build
#include "report/report.h"

namespace candor::cli {

// Overwrites, in candor's own argv (what /proc/<pid>/cmdline shows every process on the machine,
// a sandboxed step included), the value given to `option`, as "--option VALUE" or
// "--option=VALUE", wherever it occurs (over-wiping is harmless: CLI11 has already copied every
// argument). The length still shows; the text does not.
void wipe_option_value(int argc, char** argv, const std::string& option_name) {
  std::string_view option = option_name;
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

}  // namespace candor::cli

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
  return candor::cli::exit_code(candor::app::ExitCategory::kUsage);
}

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
    return usage_error(
        fmt::format("the goal is one argument: quote it, as in\n  candor run \"{}{}\"", first_positional, words));
  }
  return usage_error(fmt::format("{}: unexpected argument{}:{}; see candor {} --help", cmd->get_name(),
                                 extras.size() > 1 ? "s" : "", words, cmd->get_name()));
}

// What `candor --help` ends with, and the man page's EXIT STATUS, ENVIRONMENT and FILES sections
// (scripts/help_docs.py reads them from here): the exit codes are app::ExitCategory's.
constexpr const char* kTopFooter = R"(
Exit status:
  0                           success: the goal is verified done (for gate hooks: always 0, the answer is in their JSON)
  1                           partial: not shown done (unverified, incomplete, a guard failed, a budget ran out)
  2                           fail: shown not done, or evidence of tampering
  3                           success, but the acceptance spec did not pass
  64                          usage: an unknown command or option, a bad value, a run of another workspace without --yes
  65                          invalid input: a malformed plan, config, spec, transcript or LLM reply; a run not found
  69                          unavailable: the LLM provider did not answer (after its retries)
  70                          internal: a bug in candor
  73                          exists: init would replace a .candor/config.json (--force replaces it)
  77                          refused: --require-sandbox and a protection is missing
  130                         cancelled (Ctrl-C): the run was still verified, recorded and reported

Environment:
  CANDOR_HOME                 the run store folder (default: $XDG_STATE_HOME/candor, else ~/.local/state/candor)
  CANDOR_LLM                  the LLM provider when --llm is not given: PROVIDER[:MODEL] or script:FILE
  ANTHROPIC_API_KEY           chooses anthropic when CANDOR_LLM is not set; ANTHROPIC_BASE_URL its server
  OPENAI_API_KEY              chooses openai when neither is set; OPENAI_BASE_URL its server
  CANDOR_SANDBOX_DISABLE      landlock,namespaces,seccomp,cgroup: protections to pretend this kernel lacks
  NO_COLOR                    no colour with --color auto; TERM=dumb too
  CLAUDE_CONFIG_DIR           Claude Code's user settings folder, read by gate status and checked by the gate
  CODEX_HOME                  Codex CLI's user settings folder, likewise

Files:
  .candor/config.json         the workspace's config: expect, guard, scope, sandbox, gate (docs/exec.md)
  .claude/settings.json       Claude Code's project hooks (gate install); .claude/settings.local.json with --local
  .codex/hooks.json           Codex CLI's project hooks (gate install --agent codex)
  $CANDOR_HOME/candor.db      the run store: runs, events, reports (SQLite); snapshots beside it
)";

// `--color WHEN` or `--color=WHEN`, anywhere before a bare `--`: set for every rendering and
// removed from argv, so that each command takes it without knowing it (CLI11's fallthrough would
// hand a command's unknown options to the top level, which would refuse what allow_extras keeps).
std::optional<int> take_color(int& argc, char** argv, std::string& color) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      while (i < argc) argv[out++] = argv[i++];
      break;
    }
    if (arg == "--color" || arg.starts_with("--color=")) {
      if (arg == "--color") {
        if (i + 1 >= argc) return usage_error("--color needs a value: auto, always or never");
        color = argv[++i];
      } else {
        color = std::string(arg.substr(8));
      }
      if (color != "auto" && color != "always" && color != "never")
        return usage_error(fmt::format("--color: expected auto, always or never, got \"{}\"", color));
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  argv[argc] = nullptr;
  candor::report::set_color_mode(color == "always"  ? candor::report::ColorMode::kAlways
                                 : color == "never" ? candor::report::ColorMode::kNever
                                                    : candor::report::ColorMode::kAuto);
  return std::nullopt;
}

// The subcommands, in the order --help lists them.
std::vector<candor::cli::Subcommand> add_subcommands(CLI::App& app) {
  using namespace candor::cli;
  return {add_run_command(app),    add_exec_command(app),   add_runs_command(app),  add_report_command(app),
          add_verify_command(app), add_check_command(app),  add_undo_command(app),  add_evaluators_command(app),
          add_assert_command(app), add_doctor_command(app), add_gc_command(app),    add_init_command(app),
          add_gate_command(app),   add_eval_command(app),   add_schema_command(app)};
}

// A first word that is no command: exit 64 with a hint, before CLI11 says less. nullopt: a command,
// or help or version.
std::optional<int> unknown_first_word(int argc, char** argv, const std::vector<std::string>& commands) {
  if (argc < 2) return std::nullopt;
  std::string first = argv[1];
  bool known = std::find(commands.begin(), commands.end(), first) != commands.end() || first == "-h" ||
               first == "--help" || first == "--version" || first == "-V";
  if (known) return std::nullopt;
  std::string list;
  for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
  if (first == "version" || first == "-v")
    return usage_error(fmt::format("unknown command \"{}\" (did you mean candor --version?)", first));
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

// The parsed subcommand: its secret options wiped, then what CLI11 did not take refused, then run.
int run_parsed(const candor::cli::Subcommand& sub, int argc, char** argv) {
  using namespace candor::cli;
  if (sub.scrub) sub.scrub(argc, argv);
  std::vector<std::string> extras = sub.cmd->remaining();
  if (!extras.empty()) {
    std::string goal = sub.cmd->get_name() == "run" ? sub.cmd->get_option("goal")->as<std::string>() : "";
    return extras_error(sub.cmd, extras, goal);
  }
  try {
    return sub.run();
  } catch (const std::exception& e) {
    return report_error(candor::make_error(candor::ErrorCode::kInternal, std::string("internal error: ") + e.what()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace candor::cli;
  CLI::App app{"candor: run modification goals over a workspace and say honestly whether they were achieved", "candor"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", "candor " CANDOR_VERSION);
  std::string color = "auto";
  // Listed in --help; taken out of argv before CLI11 parses it, wherever it stands (take_color).
  one_of(app.add_option("--color", color,
                        "colour the terminal report: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), "
                        "always, never; before or after the command"),
         {"auto", "always", "never"});
  app.footer(kTopFooter);
  if (auto refused = take_color(argc, argv, color)) return *refused;
  std::vector<Subcommand> subcommands = add_subcommands(app);
  std::vector<std::string> commands;
  for (const Subcommand& sub : subcommands) {
    sub.cmd->allow_extras();
    commands.push_back(sub.cmd->get_name());
  }
  if (auto refused = unknown_first_word(argc, argv, commands)) return *refused;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_code(candor::app::ExitCategory::kUsage);
  }
  for (const Subcommand& sub : subcommands) {
    if (sub.cmd->parsed()) return run_parsed(sub, argc, argv);
  }
  return exit_code(candor::app::ExitCategory::kUsage);
}
