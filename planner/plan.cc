#include "planner/plan.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace candor::planner {
namespace {

Error invalid(const std::string& path, const std::string& message) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, message));
}

std::string names_of(const std::vector<Signature>& sigs) {
  std::string out;
  for (const auto& s : sigs) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

// `editor_schema`: the object may name its JSON Schema in "$schema" (a string, for editors; the
// plan's own fields are listed without it).
Status check_keys(const nlohmann::json& obj, const std::vector<std::string>& known, const std::string& path,
                  bool editor_schema = false) {
  for (const auto& [key, value] : obj.items()) {
    if (editor_schema && key == "$schema") {
      if (!value.is_string())
        return invalid("$schema", "expected a string (the JSON Schema an editor checks the file with)");
      continue;
    }
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return invalid(json_path_key(path, key), fmt::format("unknown field \"{}\" (expected one of: {})", key, list));
    }
  }
  return ok_status();
}

Result<std::string> get_string(const nlohmann::json& obj, const std::string& key, const std::string& path) {
  const auto& v = obj.at(key);
  if (!v.is_string()) {
    return invalid(json_path_key(path, key), "expected a string, got " + json_describe(v));
  }
  return v.get<std::string>();
}

Result<PlanStep> parse_step(const nlohmann::json& j, const Catalog& catalog, const std::string& path) {
  if (!j.is_object()) return invalid(path, fmt::format("expected a step object, got {}", json_type_name(j)));
  TRY_STATUS(check_keys(j, {"id", "tool", "args", "why", "assert"}, path));
  PlanStep step;
  if (!j.contains("id")) return invalid(json_path_key(path, "id"), "missing required string field");
  TRY(step.id, get_string(j, "id", path));
  if (step.id.empty()) return invalid(json_path_key(path, "id"), "must not be empty");
  if (!j.contains("tool")) return invalid(json_path_key(path, "tool"), "missing required string field");
  TRY(step.tool, get_string(j, "tool", path));
  const Signature* tool = catalog.tool(step.tool);
  if (tool == nullptr) {
    return invalid(json_path_key(path, "tool"),
                   fmt::format("unknown tool \"{}\" (available: {})", step.tool, names_of(catalog.tools)));
  }
  if (j.contains("args")) step.args = j["args"];
  TRY_STATUS(validate_args(step.args, tool->args, json_path_key(path, "args")));
  if (j.contains("why")) {
    TRY(step.why, get_string(j, "why", path));
  }
  if (j.contains("assert")) {
    const auto& list = j["assert"];
    std::string list_path = json_path_key(path, "assert");
    if (!list.is_array())
      return invalid(list_path, fmt::format("expected an array of assertions, got {}", json_type_name(list)));
    for (std::size_t i = 0; i < list.size(); ++i) {
      TRY_STATUS(validate_assertion(list[i], catalog, json_path_index(list_path, i)));
      step.asserts.push_back(list[i]);
    }
  }
  return step;
}

}  // namespace

const Signature* Catalog::tool(const std::string& name) const {
  auto it = std::find_if(tools.begin(), tools.end(), [&](const Signature& s) { return s.name == name; });
  return it == tools.end() ? nullptr : &*it;
}

const Signature* Catalog::assertion(const std::string& type) const {
  auto it = std::find_if(assertions.begin(), assertions.end(), [&](const Signature& s) { return s.name == type; });
  return it == assertions.end() ? nullptr : &*it;
}

Status validate_assertion(const nlohmann::json& a, const Catalog& catalog, const std::string& path) {
  if (!a.is_object()) return invalid(path, fmt::format("expected an assertion object, got {}", json_type_name(a)));
  if (!a.contains("type")) return invalid(json_path_key(path, "type"), "missing required string field");
  if (!a["type"].is_string()) {
    return invalid(json_path_key(path, "type"), fmt::format("expected a string, got {}", json_type_name(a["type"])));
  }
  std::string type = a["type"].get<std::string>();
  const Signature* sig = catalog.assertion(type);
  if (sig == nullptr) {
    return invalid(json_path_key(path, "type"),
                   fmt::format("unknown assertion type \"{}\" (available: {})", type, names_of(catalog.assertions)));
  }
  TRY_STATUS(validate_args(a, *sig, path, {"type"}));
  // Recursion as deep as `not` is nested: every assertion candor reads came through
  // parse_json_text (core/json_text.h), so at most kMaxJsonDepth levels, and so are the paths built.
  return for_each_nested_assertion(a, sig->args, path, [&](const nlohmann::json& inner, const std::string& inner_path) {
    return validate_assertion(inner, catalog, inner_path);
  });
}

Result<Plan> parse_plan(const nlohmann::json& j, const Catalog& catalog, ParseOptions options) {
  if (!j.is_object()) return invalid("$", fmt::format("a plan is a JSON object, got {}", json_type_name(j)));
  TRY_STATUS(check_keys(j, {"goal_kind", "questions", "steps", "then", "final_answer"}, "", true));
  Plan plan;
  if (j.contains("goal_kind")) {
    TRY(std::string kind, get_string(j, "goal_kind", ""));
    plan.goal_kind = parse_goal_kind(kind);
    if (!plan.goal_kind)
      return invalid("goal_kind", fmt::format("must be \"modify\" or \"inspect\", got \"{}\"", kind));
    if (options.fixed_kind && *plan.goal_kind != *options.fixed_kind) {
      return invalid("goal_kind", fmt::format("the goal kind is \"{}\", fixed by {}; a plan cannot change it to \"{}\" "
                                              "(omit goal_kind or repeat \"{}\")",
                                              to_string(*options.fixed_kind), options.fixed_by, kind,
                                              to_string(*options.fixed_kind)));
    }
  } else if (options.fixed_kind) {
    plan.goal_kind = options.fixed_kind;
  } else if (options.first_round) {
    return invalid("goal_kind", "missing: the first plan must say \"modify\" or \"inspect\"");
  }
  if (j.contains("questions")) {
    const auto& q = j["questions"];
    if (!q.is_array())
      return invalid("questions", fmt::format("expected an array of strings, got {}", json_type_name(q)));
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (!q[i].is_string() || q[i].get<std::string>().empty()) {
        return invalid(json_path_index("questions", i), "expected a non-empty string (a yes/no question)");
      }
      plan.questions.push_back(q[i].get<std::string>());
    }
  }
  if (!j.contains("steps")) return invalid("steps", "missing (use [] for a plan with no steps)");
  const auto& steps = j["steps"];
  if (!steps.is_array())
    return invalid("steps", fmt::format("expected an array of steps, got {}", json_type_name(steps)));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::string path = json_path_index("steps", i);
    TRY(PlanStep step, parse_step(steps[i], catalog, path));
    if (!ids.insert(step.id).second)
      return invalid(json_path_key(path, "id"), fmt::format("duplicate step id \"{}\"", step.id));
    plan.steps.push_back(std::move(step));
  }
  if (!j.contains("then")) return invalid("then", "missing: must be \"replan\" or \"finish\"");
  TRY(std::string then, get_string(j, "then", ""));
  if (then == "replan") {
    plan.then = Then::kReplan;
  } else if (then == "finish") {
    plan.then = Then::kFinish;
  } else {
    return invalid("then", fmt::format("must be \"replan\" or \"finish\", got \"{}\"", then));
  }
  if (j.contains("final_answer") && !j["final_answer"].is_null()) {
    TRY(std::string answer, get_string(j, "final_answer", ""));
    plan.final_answer = answer;
  }
  plan.source = j;
  return plan;
}

Result<Plan> parse_plan_text(const std::string& text, const Catalog& catalog, const std::string& source,
                             ParseOptions options) {
  TRY(nlohmann::json j, parse_json_text(text, source));
  auto plan = parse_plan(j, catalog, options);
  if (!plan.ok()) return plan.error().wrap(source);
  return plan;
}

}  // namespace candor::planner
