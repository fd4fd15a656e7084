// Acceptance specs (docs/design.md): ordered essential checkpoints over a run's typed trajectory. The
// parser checks a spec against the tools the agent can call (a typo is refused at load, never a
// forever-failing milestone); the evaluator is a pure function of the spec and the events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/trajectory.h"

namespace candor {
class SecretMasker;
}

namespace candor::verify {

enum class Op { kEq, kNe, kContains, kNotContains, kStartsWith, kEndsWith, kMatches, kGt, kGte, kLt, kLte };
enum class WhenType { kToolCalled, kToolResult, kFinalAnswer };

struct Predicate {
  std::string left;  // text with {{templates}}
  Op op = Op::kEq;
  std::string right;
};

struct Checkpoint {
  std::string id;
  bool essential = true;
  WhenType when = WhenType::kToolCalled;
  std::string tool;                    // ToolCalled / ToolResult
  std::optional<Predicate> predicate;  // ToolCalled: "input"; others: "predicate"
};

struct AcceptanceSpec {
  bool ordered = true;
  std::vector<Checkpoint> checkpoints;
};

// `tools`: the tools the run's agent can call; an entry ending in '*' ("mcp__*") names every tool
// that begins with the rest (and has more after it). Every malformed piece is kInvalidInput naming its
// JSON path ("checkpoints[1].when.tool: ...").
Result<AcceptanceSpec> parse_acceptance_spec(const nlohmann::json& j, const std::vector<std::string>& tools);
Result<AcceptanceSpec> parse_acceptance_spec_text(const std::string& text, const std::vector<std::string>& tools,
                                                  const std::string& source);

struct CheckpointResult {
  std::string id;
  bool essential = true;
  bool matched = false;
  std::optional<std::int64_t> seq;            // the event that matched
  std::optional<std::int64_t> candidate_seq;  // for a miss: the closest event, if any
  std::string why;                            // for a miss: what failed, in words
};

struct AcceptanceReport {
  bool passed = false;  // every essential checkpoint matched
  std::vector<CheckpointResult> checkpoints;
};

// Pure. Ordered: essential checkpoints are matched greedily, earliest first, as a subsequence (an
// earliest match never rules out a later one, so greedy finds a full match whenever one exists);
// non-essential ones are then placed between them without moving them. Unordered: each checkpoint
// independently matches its first event. O(events) per checkpoint. `masker` (may be null): the
// secret values to mask in the `why` texts, masked before they are cut (a value cut in two is no
// longer recognised); the predicates are evaluated on the events as they are.
AcceptanceReport evaluate_acceptance(const AcceptanceSpec& spec, const std::vector<TrajectoryEvent>& events,
                                     const SecretMasker* masker = nullptr);

nlohmann::json to_json(const AcceptanceReport& report);

}  // namespace candor::verify
