// The `candor` subcommands. main.cc parses arguments (CLI11) and calls these; each returns the
// process exit code of DESIGN.md.
#pragma once

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
  kExitUsage = 64,
  kExitInvalidInput = 65,
  kExitUnavailable = 69,
  kExitInternal = 70,
};

// Prints "candor: <message>" to stderr and returns the exit code for the error's code.
int report_error(const Error& error);

struct ExecArgs {
  std::string plan_file;
  std::string goal;  // "" = "exec <plan file>"
  std::string llm;   // for the judge only; "" = $CANDOR_LLM, if set
  std::string judge = "auto";
  bool json = false;
  SessionArgs session;
};

struct RunArgs {
  std::string goal;
  std::string llm;  // PROVIDER[:MODEL]; "" = $CANDOR_LLM
  std::string judge = "auto";
  std::string criterion;
  std::string criterion_file;
  int max_goal_attempts = 5;
  bool json = false;
  bool quiet = false;
  SessionArgs session;
};

struct RunsArgs {
  std::string store_dir;
  int limit = 20;
  bool json = false;
};

struct ReportArgs {
  std::string run = "last";
  std::string store_dir;
  bool json = false;
};

int exec_command(const ExecArgs& args);
int run_command(const RunArgs& args);
int runs_command(const RunsArgs& args);
int report_command(const ReportArgs& args);
int evaluators_command(bool json);

}  // namespace candor::cli
