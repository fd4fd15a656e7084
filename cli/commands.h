// The `candor` subcommands. Each registers itself on the CLI11 app (its options, help and
// examples) and returns what runs it once parsed; main.cc calls the registrations in --help's
// order, parses, and runs the one given. Every handler returns the process exit code of docs/design.md.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/session.h"
#include "core/result.h"

namespace candor::cli {

// docs/design.md's exit codes are app::ExitCategory's values; this is how a handler returns one.
constexpr int exit_code(app::ExitCategory category) { return static_cast<int>(category); }

// Prints "candor: <message>" to stderr and returns the exit code for the error's code.
int report_error(const Error& error);

// A subcommand as registered: its CLI11 node, and what runs it once parsed.
struct Subcommand {
  CLI::App* cmd = nullptr;
  std::function<int()> run;
  // Called after a successful parse, before anything else: wipes the value of a secret option
  // (--criterion) from candor's own argv (what /proc/<pid>/cmdline shows every process).
  std::function<void(int argc, char** argv)> scrub;
};

Subcommand add_run_command(CLI::App& app);
Subcommand add_exec_command(CLI::App& app);
Subcommand add_runs_command(CLI::App& app);
Subcommand add_report_command(CLI::App& app);
// `verify RUN`, `verify --git RANGE` and `verify --trajectory FILE --format F`.
Subcommand add_verify_command(CLI::App& app);
// 0 when the spec is valid for the agent's tools, 65 otherwise.
Subcommand add_check_command(CLI::App& app);
Subcommand add_undo_command(CLI::App& app);
Subcommand add_evaluators_command(CLI::App& app);
// 0 when every assertion passed, 2 when any failed, 65 when one is invalid.
Subcommand add_assert_command(CLI::App& app);
// 0 when every protection is available, 1 when some are missing.
Subcommand add_doctor_command(CLI::App& app);
// 0 when done, 64 without --keep or --older-than, 70 when a snapshot repository could not be collected.
Subcommand add_gc_command(CLI::App& app);
// `schema [NAME]`: a JSON Schema as shipped, or the list; 64 for an unknown name.
Subcommand add_schema_command(CLI::App& app);
// `gate install|status|claude-code|codex`; the hook commands always exit 0 (their answer is JSON).
Subcommand add_gate_command(CLI::App& app);
// `init`: 0 when the config was written, 73 when one exists (without --force).
Subcommand add_init_command(CLI::App& app);

// `gate install`, as `init --gate` runs it too: the hooks merged into the agent's settings, what
// changed printed, then what the gate will check (gate_command.cc).
struct GateInstallArgs {
  std::string agent;  // claude-code | codex
  bool user = false;
  bool local = false;
  bool uninstall = false;
  std::string workspace = ".";
  std::string store_dir;  // --store; "" = pinned only when the resolved store is not the hook's default
  std::string llm;
  std::string judge;
};
int gate_install_command(const GateInstallArgs& args);

// Writes a report file, saying "wrote PATH (WHAT, N KB)" on stderr; kIo naming the path.
Status write_output(const std::string& path, const std::string& text, const std::string& what);

// `eval TASKS`, `eval report ID`, `eval status ID` (eval_command.cc).
Subcommand add_eval_command(CLI::App& app);

// Overwrites in argv the value given to `option` ("--option VALUE" or "--option=VALUE").
void wipe_option_value(int argc, char** argv, const std::string& option);

// `verify --trajectory FILE --format F`: another agent's transcript, read and checked against an
// acceptance spec (acceptance_commands.cc).
int verify_trajectory_command(const std::string& trajectory_file, const std::string& format,
                              const std::string& acceptance_file, bool json);

// The width to fit output to: $COLUMNS when set, else the terminal's (ioctl) when `fd` is one,
// else 80.
std::size_t terminal_width(int fd);

}  // namespace candor::cli
