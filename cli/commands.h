// The `candor` subcommands. main.cc parses arguments (CLI11) and calls these; each returns the
// process exit code of DESIGN.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/session.h"
#include "core/result.h"

namespace candor::cli {

enum ExitCode {
  kExitSuccess = 0,
  kExitPartial = 1,
  kExitFail = 2,
  kExitAcceptanceNotPassed = 3,  // success, but the acceptance spec did not pass
  kExitUsage = 64,
  kExitInvalidInput = 65,
  kExitUnavailable = 69,
  kExitInternal = 70,
  kExitRefused = 77,    // --require-sandbox: the sandbox asked for is not available
  kExitCancelled = 130,  // Ctrl-C: the run was still verified, recorded and printed
};

// Prints "candor: <message>" to stderr and returns the exit code for the error's code.
int report_error(const Error& error);

struct ExecArgs {
  std::string plan_file;
  std::string goal;  // "" = "exec <plan file>"
  std::string llm;   // for the judge only; "" = llm::choose_provider's choice, if any
  std::string judge = "auto";
  bool json = false;
  SessionArgs session;
};

struct RunArgs {
  std::string goal;
  std::string llm;  // PROVIDER[:MODEL]; "" = llm::choose_provider's choice
  std::string judge = "auto";
  std::string criterion;
  std::string criterion_file;
  int max_goal_attempts = 5;
  bool json = false;
  SessionArgs session;
};

struct RunsArgs {
  std::string store_dir;
  int limit = 20;
  std::string verdict;  // "" = any
  std::string since;    // "2d", "12h", "30m", or an RFC 3339 time; "" = any
  bool json = false;
};

struct ReportArgs {
  std::string run = "last";
  std::string store_dir;
  bool json = false;
  bool markdown = false;
  bool verbose = false;
  std::string html_file;
  std::string junit_file;
};

struct VerifyArgs {
  std::string run = "last";
  std::string store_dir;
  std::string judge;  // "" = the policy the run was recorded with (never for older runs)
  std::string llm;
  bool json = false;
  std::string acceptance_file;
  std::string trajectory_file;  // with `format`: another agent's transcript instead of a run
  std::string format;
  bool quiet = false;  // -q: no "judge… N s" on a terminal while the judge is asked
  bool judge_given = false;  // --judge was on the command line
  // `verify --git RANGE`: a change made elsewhere (verify_git_command).
  std::string git_range;
  std::string repo = ".";
  std::string goal;
  std::string goal_file;
  std::string kind;  // "" = modify
  std::vector<std::string> expects;
  std::vector<std::string> guards;
  std::vector<std::string> questions;
  std::vector<std::string> scope;
  std::string criterion;  // with --git: checked by the independent reviewer over HEAD's files
  std::string criterion_file;
  bool markdown = false;
};

struct CheckArgs {
  std::string spec_file;
  std::string format;  // "" = candor's own tools
};

struct UndoArgs {
  std::string run;
  std::string store_dir;
  bool force = false;
};

struct EvaluatorsArgs {
  std::string workspace = ".";
  bool json = false;
};

struct GcArgs {
  std::string store_dir;
  std::optional<int> keep;  // --keep N: the newest N runs stay
  std::string older_than;   // --older-than AGE ("90d"): older runs go; "" = any age
  bool dry_run = false;
  bool json = false;
};

struct DoctorArgs {
  std::string store_dir;
  bool json = false;
};

struct AssertArgs {
  std::vector<std::string> assertions;  // JSON texts
  std::string workspace = ".";
  bool allow_network = false;
  bool json = false;
};

int exec_command(const ExecArgs& args);
int run_command(const RunArgs& args);
int runs_command(const RunsArgs& args);
int report_command(const ReportArgs& args);
int evaluators_command(const EvaluatorsArgs& args);
// 0 when every assertion passed, 2 when any failed, 65 when one is invalid.
int assert_command(const AssertArgs& args);
int verify_command(const VerifyArgs& args);
int undo_command(const UndoArgs& args);
// 0 when every protection is available, 1 when some are missing.
int doctor_command(const DoctorArgs& args);
// 0 when done, 64 without --keep or --older-than, 70 when a snapshot repository could not be collected.
int gc_command(const GcArgs& args);
// 0 when the spec is valid for the agent's tools, 65 otherwise.
int check_command(const CheckArgs& args);
int verify_trajectory_command(const VerifyArgs& args);
// `candor verify --git RANGE --goal TEXT`: another agent's commits, verified and stored as a run.
int verify_git_command(const VerifyArgs& args);
// The tools an acceptance spec is checked against: candor's ("") or an import format's.
std::vector<std::string> tools_for_format(const std::string& format);

// The width to fit output to: $COLUMNS when set, else the terminal's (ioctl) when `fd` is one,
// else 80.
std::size_t terminal_width(int fd);

// "2d", "12h", "30m", "45s" -> that many seconds; nullopt for anything else.
std::optional<std::chrono::seconds> parse_age(const std::string& text);

// "2d" -> the RFC 3339 time two days before `now`; an RFC 3339 time is returned as it is.
Result<std::string> since_cutoff(const std::string& since, std::chrono::system_clock::time_point now);

}  // namespace candor::cli
