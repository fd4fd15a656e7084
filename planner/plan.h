// The plan: the planner's reply and the input of `candor exec`. Parsing validates everything a
// later step would trip on, so a typo is rejected at load with its JSON path instead of becoming
// a forever-failing step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/arg_schema.h"
#include "core/json_text.h"
#include "core/result.h"
#include "core/run_record.h"

namespace candor::planner {

struct PlanStep {
  std::string id;
  std::string tool;
  nlohmann::json args = nlohmann::json::object();
  std::string why;
  std::vector<nlohmann::json> asserts;  // each validated against the assertion catalog
};

enum class Then { kReplan, kFinish };

struct Plan {
  std::optional<GoalKind> goal_kind;
  std::vector<std::string> questions;
  std::vector<PlanStep> steps;
  Then then = Then::kFinish;
  std::optional<std::string> final_answer;
  nlohmann::json source;  // the JSON the plan was parsed from, for the trajectory
};

// What the plan may name: tools from the executor's registry, assertion types from the
// evaluator registry. Borrowed views, built by the caller.
struct ToolFlags {
  bool read_only = false;
  bool effect = false;
  bool effect_on_files = true;  // false: the effect is elsewhere (git_commit: the repository's history)
};

struct Catalog {
  std::vector<Signature> tools;
  std::vector<Signature> assertions;
  std::vector<ToolFlags> tool_flags;  // parallel to `tools` when known (for the prompt)
  const Signature* tool(const std::string& name) const;
  const Signature* assertion(const std::string& type) const;
};

struct ParseOptions {
  bool first_round = true;  // goal_kind is required in the first round (unless already fixed)
  // The goal kind fixed before this plan (by round 1 or by --kind): a plan naming another kind
  // is invalid, so the planner cannot turn a modify goal into a question halfway through.
  std::optional<GoalKind> fixed_kind;
  std::string fixed_by;  // "round 1" or "--kind", for the message
};

Result<Plan> parse_plan(const nlohmann::json& j, const Catalog& catalog, ParseOptions options = {});
// Text form: reports JSON syntax errors with line and column. `source` names the input in
// messages (a file name).
Result<Plan> parse_plan_text(const std::string& text, const Catalog& catalog, const std::string& source,
                             ParseOptions options = {});

// One assertion object, e.g. {"type": "file_contains", "path": "a", "text": "b"}.
Status validate_assertion(const nlohmann::json& a, const Catalog& catalog, const std::string& path);

using candor::parse_json_text;  // core/json_text.h; planner::parse_json_text kept for callers

}  // namespace candor::planner
