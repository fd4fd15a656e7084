// The task file of `candor eval` (docs/eval.md): one JSON object a line, read whole and checked
// before any task runs; and which shard a task belongs to. Pure: no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace candor::app {

struct EvalTask {
  std::string id;
  std::string repo;    // a git URL, or a path made absolute against the task file's folder
  std::string commit;  // what the attempt starts from: a commit id, or any name git resolves there
  std::string goal;
  std::vector<std::string> expect;  // each an --expect text (an assertion object's JSON, or a command)
  std::vector<std::string> guard;
  nlohmann::json acceptance;  // an acceptance spec, or null
  std::optional<int> timeout_s;
  int line = 0;  // in the task file
};

// The tasks of `text`, the file `file` (named in errors as FILE:LINE: $.key: what is wrong);
// relative repo paths are taken against `base_dir`. kInvalidInput: a line that is not a JSON
// object, a missing or mistyped field, an unknown key, an id used twice, or no task at all.
Result<std::vector<EvalTask>> parse_eval_tasks(const std::string& text, const std::string& file,
                                               const std::string& base_dir);

// A task's id, or an eval's (--eval-id): letters, digits, '.', '_' or '-', at most 128, neither "."
// nor "..". Each names a folder of the transcripts (eval/EVAL/AGENT/TASK/ATTEMPT/).
bool valid_eval_name(const std::string& name);

// The tasks as parsed, in a fixed text: a later shard that reads another file is told apart.
std::string eval_tasks_digest(const std::vector<EvalTask>& tasks);

// `--shard I/N`: the shard of a task is the FNV-1a 64-bit hash of its id's bytes, mod N. Stable
// across machines, builds and candor versions: a CI matrix's shards split the same way every time.
std::uint64_t eval_task_hash(const std::string& id);
int eval_shard_of(const std::string& id, int shards);

struct Shard {
  int index = 0;
  int count = 1;
};
// "I/N" with 0 <= I < N; kUsage naming what is wrong.
Result<Shard> parse_shard(const std::string& text);

}  // namespace candor::app
