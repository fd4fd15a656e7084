// `candor eval` (docs/eval.md): the tasks of a task file run by an agent, each attempt on a fresh
// checkout of the task's repo@commit, verified as `verify --git COMMIT..` verifies, and recorded in
// the run store as a run (`source: "eval"`) and an attempt of the eval (store::EvalAttempt).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor::app {

struct EvalRequest {
  std::string tasks_file;
  std::string agent;  // claude-code | codex | candor | command:PROG
  std::string llm;    // the judge's (and candor's loop's) LLM; "" = the environment's, if any
  std::string judge = "auto";
  std::string shard;  // "I/N"; "" = every task
  int attempts = 1;
  std::string eval_id;  // "" = a new one (required with --shard: it joins the shards)
  int jobs = 1;         // attempts at once on this machine
  std::string store_dir;
  std::string candor_path;  // this candor, for --agent candor
};

struct EvalResult {
  std::string eval_id;
  std::string store;  // as RunStore::describe says it
  int tasks = 0;      // of this shard
  int ran = 0;        // attempts run now
  int skipped = 0;    // attempts recorded already (a re-run shard)
  int infra_errors = 0;
};

// An attempt ended (or was found recorded): one line for the progress.
using EvalProgress = std::function<void(const std::string& line)>;

// Errors before any attempt: kUsage (options), kInvalidInput (the task file, FILE:LINE; another task
// file under the same eval id), kUnavailable (the agent's program is not on PATH, the store cannot
// be reached). An attempt's failure is a result, recorded, never an error.
Result<EvalResult> run_eval(const EvalRequest& request, const EvalProgress& progress);

// `candor eval report ID`: the eval's plan and attempts as one JSON object (docs/eval.md): per agent
// the counts (claimed success, verified success, claimed but not verified, cheats), per attempt its
// claim, verdict, first finding and run, and the tasks no shard reported.
Result<nlohmann::json> eval_report(const std::string& eval_id, const std::string& store_dir);

// `candor eval status ID`: per shard, its tasks done, running, failed to start and missing.
Result<nlohmann::json> eval_status(const std::string& eval_id, const std::string& store_dir);

}  // namespace candor::app
