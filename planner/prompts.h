// The planner's prompts. docs/prompts.md shows them rendered.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/plan.h"

namespace candor::planner {

// The system prompt: the plan format, the rules, every tool (with its arguments and whether it is
// read-only or an effect) and every assertion type, from the registries.
std::string system_prompt(const Catalog& catalog);

// The first user message: the goal and a bounded overview of the workspace.
std::string first_message(const std::string& goal, const std::string& workspace_overview);

// What a round did, for the next plan. `failure` (may be empty) becomes the recovery
// instructions; `observations` are [{step, tool, target, ok, output}], each output already capped.
std::string round_message(int round, const std::string& failure, const nlohmann::json& observations,
                          const std::string& notes);

// The repair request after an invalid reply.
std::string repair_message(const std::string& error);

// The repair request after a reply cut at the output limit (`why` says so): the same request would
// be cut again, so it asks for a shorter plan, fewer steps with `then: replan` for the rest.
std::string shorter_plan_message(const std::string& why);

// A one-line stand-in for a round's observations cut from the context.
std::string cut_observations_message(int round, const nlohmann::json& observations, std::size_t bytes_cut);

}  // namespace candor::planner
