#include "verify/acceptance.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/arg_schema.h"
#include "core/json_text.h"
#include "core/secret_masker.h"

namespace candor::verify {
namespace {

Error invalid(const std::string& path, const std::string& message) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, message));
}

const std::vector<std::pair<std::string, Op>>& op_names() {
  static const std::vector<std::pair<std::string, Op>> names = {{"eq", Op::kEq},
                                                                {"ne", Op::kNe},
                                                                {"contains", Op::kContains},
                                                                {"not_contains", Op::kNotContains},
                                                                {"starts_with", Op::kStartsWith},
                                                                {"ends_with", Op::kEndsWith},
                                                                {"matches", Op::kMatches},
                                                                {"gt", Op::kGt},
                                                                {"gte", Op::kGte},
                                                                {"lt", Op::kLt},
                                                                {"lte", Op::kLte}};
  return names;
}

std::string op_name(Op op) {
  for (const auto& [n, o] : op_names())
    if (o == op) return n;
  return "?";
}

const char* kind_name(WhenType w) {
  switch (w) {
    case WhenType::kToolCalled:
      return "ToolCalled";
    case WhenType::kToolResult:
      return "ToolResult";
    case WhenType::kFinalAnswer:
      return "FinalAnswer";
  }
  return "?";
}

// Every {{name}} in `text`.
std::vector<std::string> templates_in(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = text.find("{{", pos)) != std::string::npos) {
    std::size_t end = text.find("}}", pos + 2);
    if (end == std::string::npos) {
      out.push_back(text.substr(pos + 2));  // unclosed: reported by the caller
      break;
    }
    std::string name = text.substr(pos + 2, end - pos - 2);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    out.push_back(name);
    pos = end + 2;
  }
  return out;
}

Status check_template(const std::string& name, WhenType when, const std::string& path) {
  auto starts = [&](const char* p) { return name == p || name.rfind(std::string(p) + ".", 0) == 0; };
  bool known = name == "tool.name" || starts("tool.input") || starts("tool.result") || name == "final_answer";
  if (!known) {
    return invalid(path,
                   fmt::format("unknown template {{{{{}}}}} (known: {{{{tool.name}}}}, {{{{tool.input.<field>}}}}, "
                               "{{{{tool.result}}}}, {{{{tool.result.<field>}}}}, {{{{final_answer}}}})",
                               name));
  }
  if (when == WhenType::kFinalAnswer && name != "final_answer") {
    return invalid(path, fmt::format("a FinalAnswer checkpoint has no tool: {{{{{}}}}} is not available", name));
  }
  if (when == WhenType::kToolCalled && starts("tool.result")) {
    return invalid(path,
                   fmt::format("a ToolCalled checkpoint happens before the result: {{{{{}}}}} is not available", name));
  }
  return ok_status();
}

Result<Predicate> parse_predicate(const nlohmann::json& j, WhenType when, const std::string& path) {
  if (!j.is_object()) return invalid(path, "expected {\"left\", \"op\", \"right\"}, got " + json_describe(j));
  for (const auto& [key, value] : j.items()) {
    if (key != "left" && key != "op" && key != "right")
      return invalid(path + "." + key, "unknown field (expected left, op, right)");
  }
  Predicate p;
  for (const char* side : {"left", "right"}) {
    std::string at = path + "." + side;
    if (!j.contains(side)) return invalid(at, "missing");
    const auto& v = j[side];
    // Numbers and booleans are accepted and compared as their JSON text ("right": 0 means "0").
    if (!v.is_string() && !v.is_number() && !v.is_boolean())
      return invalid(at, "expected a string or a number, got " + json_describe(v));
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    for (const auto& name : templates_in(text)) TRY_STATUS(check_template(name, when, at));
    (std::string(side) == "left" ? p.left : p.right) = text;
  }
  if (!j.contains("op") || !j["op"].is_string()) return invalid(path + ".op", "missing, or not a string");
  std::string op = j["op"].get<std::string>();
  auto it = std::find_if(op_names().begin(), op_names().end(), [&](const auto& n) { return n.first == op; });
  if (it == op_names().end()) {
    return invalid(path + ".op",
                   fmt::format("unknown operator \"{}\" (known: eq, ne, contains, not_contains, starts_with, "
                               "ends_with, matches, gt, gte, lt, lte)",
                               op));
  }
  p.op = it->second;
  if (p.op == Op::kMatches && templates_in(p.right).empty()) {
    RE2::Options options;
    options.set_log_errors(false);
    RE2 re(p.right, options);
    if (!re.ok()) return invalid(path + ".right", "not a valid RE2 pattern: " + re.error());
  }
  return p;
}

// The value at a dotted path inside `j`, as text; nullopt when absent.
std::optional<std::string> lookup(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* at = &j;
  std::size_t start = 0;
  while (start < dotted.size()) {
    std::size_t dot = dotted.find('.', start);
    std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (at->is_object() && at->contains(key)) {
      at = &(*at)[key];
    } else if (at->is_array() && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos &&
               key.size() < 10 && std::stoul(key) < at->size()) {
      at = &(*at)[std::stoul(key)];
    } else {
      return std::nullopt;
    }
    start = dot == std::string::npos ? dotted.size() : dot + 1;
  }
  if (at->is_string()) return at->get<std::string>();
  return at->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<std::string> resolve(const std::string& name, const TrajectoryEvent& e,
                                   const std::optional<std::string>& final_answer) {
  if (name == "tool.name") return e.tool;
  if (name == "final_answer")
    return e.kind == TrajectoryEvent::Kind::kFinalAnswer ? std::optional(e.text) : final_answer;
  if (name == "tool.input") return e.input.dump();
  if (name.rfind("tool.input.", 0) == 0) return lookup(e.input, name.substr(11));
  if (name == "tool.result") {
    if (e.result.is_object() && e.result.contains("output") && e.result["output"].is_string())
      return e.result["output"].get<std::string>();
    return e.result.is_null() ? std::nullopt : std::optional(e.result.dump());
  }
  if (name.rfind("tool.result.", 0) == 0) return lookup(e.result, name.substr(12));
  return std::nullopt;
}

// `text` with its templates filled in; on an absent value, nullopt and `missing` names it.
std::optional<std::string> render(const std::string& text, const TrajectoryEvent& e,
                                  const std::optional<std::string>& final_answer, std::string& missing) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    std::size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    out += text.substr(pos, open - pos);
    std::string name = text.substr(open + 2, close - open - 2);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    auto value = resolve(name, e, final_answer);
    if (!value) {
      missing = "{{" + name + "}}";
      return std::nullopt;
    }
    out += *value;
    pos = close + 2;
  }
  return out + text.substr(pos);
}

std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

// The text as a message quotes it: masked, then cut to 60 bytes. In that order: a secret value that
// straddles the cut would no longer be the value the masker knows, and all but its last bytes would
// reach the message (and the gate's block reason, the report, the store).
std::string acceptance_excerpt(const std::string& text, const SecretMasker* masker) {
  std::string s = masker != nullptr ? masker->mask(text) : text;
  std::string e = s.size() > 60 ? s.substr(0, 60) + "..." : s;
  for (char& c : e)
    if (c == '\n') c = ' ';
  return "\"" + e + "\"";
}

// Whether the predicate holds for the event; `why` says which part failed when it does not.
bool holds(const Predicate& p, const TrajectoryEvent& e, const std::optional<std::string>& final_answer,
           const SecretMasker* masker, std::string& why) {
  auto excerpt = [masker](const std::string& s) { return acceptance_excerpt(s, masker); };
  std::string missing;
  auto left = render(p.left, e, final_answer, missing);
  auto right = left ? render(p.right, e, final_answer, missing) : std::nullopt;
  if (!left || !right) {
    why = fmt::format("{} is absent", missing);
    return false;
  }
  bool ok = false;
  switch (p.op) {
    case Op::kEq:
      ok = *left == *right;
      break;
    case Op::kNe:
      ok = *left != *right;
      break;
    case Op::kContains:
      ok = left->find(*right) != std::string::npos;
      break;
    case Op::kNotContains:
      ok = left->find(*right) == std::string::npos;
      break;
    case Op::kStartsWith:
      ok = left->rfind(*right, 0) == 0;
      break;
    case Op::kEndsWith:
      ok = left->size() >= right->size() && left->compare(left->size() - right->size(), right->size(), *right) == 0;
      break;
    case Op::kMatches: {
      RE2::Options options;
      options.set_log_errors(false);
      RE2 re(*right, options);
      if (!re.ok()) {
        // RE2's message quotes the pattern's offending piece: masked whole, as it was not cut.
        why = fmt::format("{} is not a valid RE2 pattern: {}", excerpt(*right),
                          masker != nullptr ? masker->mask(re.error()) : re.error());
        return false;
      }
      ok = RE2::PartialMatch(*left, re);
      break;
    }
    case Op::kGt:
    case Op::kGte:
    case Op::kLt:
    case Op::kLte: {
      auto l = as_number(*left), r = as_number(*right);
      if (!l || !r) {
        why = fmt::format("{} {} is not a number", p.op == Op::kGt ? "" : "", !l ? excerpt(*left) : excerpt(*right));
        why.erase(0, why.find_first_not_of(' '));
        return false;
      }
      ok = p.op == Op::kGt ? *l > *r : p.op == Op::kGte ? *l >= *r : p.op == Op::kLt ? *l < *r : *l <= *r;
      break;
    }
  }
  if (!ok) why = fmt::format("{} is {}, which is not {} {}", p.left, excerpt(*left), op_name(p.op), excerpt(*right));
  return ok;
}

TrajectoryEvent::Kind kind_for(WhenType w) {
  return w == WhenType::kToolCalled   ? TrajectoryEvent::Kind::kToolCalled
         : w == WhenType::kToolResult ? TrajectoryEvent::Kind::kToolResult
                                      : TrajectoryEvent::Kind::kFinalAnswer;
}

// Same kind and tool: the events a checkpoint is about, whether or not its predicate holds.
bool candidate(const Checkpoint& c, const TrajectoryEvent& e) {
  return e.kind == kind_for(c.when) && (c.when == WhenType::kFinalAnswer || e.tool == c.tool);
}

bool matches(const Checkpoint& c, const TrajectoryEvent& e, const std::optional<std::string>& final_answer,
             const SecretMasker* masker, std::string& why) {
  if (!candidate(c, e)) return false;
  return !c.predicate || holds(*c.predicate, e, final_answer, masker, why);
}

// The first match in [from, to); on a miss, `r` gets the closest candidate and why it failed.
std::optional<std::size_t> find_in(const Checkpoint& c, const std::vector<TrajectoryEvent>& events, std::size_t from,
                                   std::size_t to, const std::optional<std::string>& final_answer,
                                   const SecretMasker* masker, CheckpointResult& r) {
  std::string first_why;
  std::optional<std::int64_t> first_seq;
  for (std::size_t i = from; i < to; ++i) {
    std::string why;
    if (matches(c, events[i], final_answer, masker, why)) return i;
    if (!first_seq && candidate(c, events[i])) {
      first_seq = events[i].seq;
      first_why = why;
    }
  }
  std::string where = from > 0 && from <= events.size() ? fmt::format(" after seq {}", events[from - 1].seq) : "";
  std::string what =
      c.when == WhenType::kFinalAnswer ? "final answer" : fmt::format("{} {}", kind_name(c.when), c.tool);
  if (first_seq) {
    r.candidate_seq = first_seq;
    r.why = fmt::format("closest: the {} at seq {}: {}", what, *first_seq, first_why);
  } else {
    r.why = c.when == WhenType::kFinalAnswer ? fmt::format("there is no final answer{}", where)
                                             : fmt::format("no {} event{}", what, where);
  }
  return std::nullopt;
}

// `tools` lists names, and patterns ending in '*' ("mcp__*") that name every tool beginning so.
bool names_tool(const std::vector<std::string>& tools, const std::string& tool) {
  for (const auto& t : tools) {
    if (t == tool) return true;
    if (!t.empty() && t.back() == '*' && tool.size() >= t.size() &&
        tool.compare(0, t.size() - 1, t, 0, t.size() - 1) == 0)
      return true;
  }
  return false;
}

}  // namespace

Result<AcceptanceSpec> parse_acceptance_spec(const nlohmann::json& j, const std::vector<std::string>& tools) {
  if (!j.is_object()) return invalid("$", "an acceptance spec is a JSON object, got " + json_describe(j));
  for (const auto& [key, value] : j.items()) {
    if (key != "ordered" && key != "checkpoints") return invalid(key, "unknown field (expected ordered, checkpoints)");
  }
  AcceptanceSpec spec;
  if (j.contains("ordered")) {
    if (!j["ordered"].is_boolean())
      return invalid("ordered", "expected true or false, got " + json_describe(j["ordered"]));
    spec.ordered = j["ordered"].get<bool>();
  }
  if (!j.contains("checkpoints") || !j["checkpoints"].is_array())
    return invalid("checkpoints", "missing, or not an array");
  if (j["checkpoints"].empty()) return invalid("checkpoints", "needs at least one checkpoint");
  std::string tool_list;
  for (const auto& t : tools) tool_list += (tool_list.empty() ? "" : ", ") + t;
  for (std::size_t i = 0; i < j["checkpoints"].size(); ++i) {
    const auto& c = j["checkpoints"][i];
    std::string path = json_path_index("checkpoints", i);
    if (!c.is_object()) return invalid(path, "expected a checkpoint object, got " + json_describe(c));
    for (const auto& [key, value] : c.items()) {
      if (key != "id" && key != "essential" && key != "when")
        return invalid(path + "." + key, "unknown field (expected id, essential, when)");
    }
    Checkpoint cp;
    if (!c.contains("id") || !c["id"].is_string() || c["id"].get<std::string>().empty())
      return invalid(path + ".id", "missing, or not a non-empty string");
    cp.id = c["id"].get<std::string>();
    for (const auto& prev : spec.checkpoints) {
      if (prev.id == cp.id)
        return invalid(path + ".id", fmt::format("\"{}\" is used by an earlier checkpoint; ids are unique", cp.id));
    }
    if (c.contains("essential")) {
      if (!c["essential"].is_boolean()) return invalid(path + ".essential", "expected true or false");
      cp.essential = c["essential"].get<bool>();
    }
    std::string wpath = path + ".when";
    if (!c.contains("when") || !c["when"].is_object()) return invalid(wpath, "missing, or not an object");
    const auto& w = c["when"];
    std::string type = json_str(w, "type");
    if (type == "ToolCalled") {
      cp.when = WhenType::kToolCalled;
    } else if (type == "ToolResult") {
      cp.when = WhenType::kToolResult;
    } else if (type == "FinalAnswer") {
      cp.when = WhenType::kFinalAnswer;
    } else {
      return invalid(wpath + ".type",
                     fmt::format("expected ToolCalled, ToolResult or FinalAnswer, got {}",
                                 w.contains("type") ? json_describe(w["type"]) : std::string("nothing")));
    }
    std::string predicate_key = cp.when == WhenType::kToolCalled ? "input" : "predicate";
    for (const auto& [key, value] : w.items()) {
      bool allowed = key == "type" || key == predicate_key || (key == "tool" && cp.when != WhenType::kFinalAnswer);
      if (!allowed) {
        return invalid(wpath + "." + key,
                       fmt::format("unknown field for {} (expected type, {}{})", type,
                                   cp.when != WhenType::kFinalAnswer ? "tool, " : "", predicate_key));
      }
    }
    if (cp.when != WhenType::kFinalAnswer) {
      if (!w.contains("tool") || !w["tool"].is_string()) return invalid(wpath + ".tool", "missing, or not a string");
      cp.tool = w["tool"].get<std::string>();
      if (!names_tool(tools, cp.tool)) {
        return invalid(wpath + ".tool",
                       fmt::format("checkpoint \"{}\" names the tool \"{}\", which this agent cannot call "
                                   "(its tools: {})",
                                   cp.id, cp.tool, tool_list));
      }
    }
    if (w.contains(predicate_key)) {
      TRY(cp.predicate, parse_predicate(w[predicate_key], cp.when, wpath + "." + predicate_key));
    } else if (cp.when == WhenType::kFinalAnswer) {
      return invalid(wpath + ".predicate", "missing: a FinalAnswer checkpoint needs a predicate");
    }
    spec.checkpoints.push_back(std::move(cp));
  }
  return spec;
}

Result<AcceptanceSpec> parse_acceptance_spec_text(const std::string& text, const std::vector<std::string>& tools,
                                                  const std::string& source) {
  TRY(nlohmann::json j, parse_json_text(text, source));
  auto spec = parse_acceptance_spec(j, tools);
  if (!spec.ok()) return spec.error().wrap(source);
  return spec;
}

AcceptanceReport evaluate_acceptance(const AcceptanceSpec& spec, const std::vector<TrajectoryEvent>& events,
                                     const SecretMasker* masker) {
  std::optional<std::string> final_answer;
  for (const auto& e : events)
    if (e.kind == TrajectoryEvent::Kind::kFinalAnswer) final_answer = e.text;
  AcceptanceReport report;
  report.checkpoints.resize(spec.checkpoints.size());
  std::vector<std::optional<std::size_t>> at(spec.checkpoints.size());
  for (std::size_t k = 0; k < spec.checkpoints.size(); ++k) {
    report.checkpoints[k].id = spec.checkpoints[k].id;
    report.checkpoints[k].essential = spec.checkpoints[k].essential;
  }
  if (!spec.ordered) {
    for (std::size_t k = 0; k < spec.checkpoints.size(); ++k)
      at[k] = find_in(spec.checkpoints[k], events, 0, events.size(), final_answer, masker, report.checkpoints[k]);
  } else {
    // Essential checkpoints first: their greedy earliest placement decides `passed`.
    std::size_t pos = 0;
    for (std::size_t k = 0; k < spec.checkpoints.size(); ++k) {
      if (!spec.checkpoints[k].essential) continue;
      at[k] = find_in(spec.checkpoints[k], events, pos, events.size(), final_answer, masker, report.checkpoints[k]);
      if (at[k]) pos = *at[k] + 1;
    }
    // Then each non-essential one, between the matches around it, without moving them.
    std::size_t lower = 0;
    for (std::size_t k = 0; k < spec.checkpoints.size(); ++k) {
      if (spec.checkpoints[k].essential) {
        if (at[k]) lower = *at[k] + 1;
        continue;
      }
      std::size_t upper = events.size();
      for (std::size_t n = k + 1; n < spec.checkpoints.size(); ++n) {
        if (spec.checkpoints[n].essential && at[n]) {
          upper = *at[n];
          break;
        }
      }
      at[k] = find_in(spec.checkpoints[k], events, lower, std::max(lower, upper), final_answer, masker,
                      report.checkpoints[k]);
      if (at[k]) lower = *at[k] + 1;
    }
  }
  report.passed = true;
  for (std::size_t k = 0; k < spec.checkpoints.size(); ++k) {
    CheckpointResult& r = report.checkpoints[k];
    if (at[k]) {
      r.matched = true;
      r.seq = events[*at[k]].seq;
      r.why.clear();
      r.candidate_seq.reset();
    } else if (r.essential) {
      report.passed = false;
    }
  }
  return report;
}

nlohmann::json to_json(const AcceptanceReport& report) {
  nlohmann::json checkpoints = nlohmann::json::array();
  for (const auto& c : report.checkpoints) {
    nlohmann::json j = {{"id", c.id}, {"essential", c.essential}, {"matched", c.matched}};
    if (c.seq) j["seq"] = *c.seq;
    if (!c.matched) {
      j["why"] = c.why;
      if (c.candidate_seq) j["candidate_seq"] = *c.candidate_seq;
    }
    checkpoints.push_back(j);
  }
  return {{"passed", report.passed}, {"checkpoints", checkpoints}};
}

}  // namespace candor::verify
