#include "core/run_record.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "core/arg_schema.h"

namespace candor {
namespace {

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::pair<E, const char*>, N>& table, const std::string& s) {
  for (const auto& [v, name] : table) {
    if (s == name) return v;
  }
  return std::nullopt;
}

nlohmann::json frameworks_json(const std::vector<TestSummary>& frameworks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : frameworks) out.push_back(to_json(s));
  return out;
}

std::vector<TestSummary> frameworks_from_json(const nlohmann::json& j) {
  std::vector<TestSummary> out;
  if (!j.is_object() || !j.contains("frameworks") || !j["frameworks"].is_array()) return out;
  for (const auto& s : j["frameworks"]) {
    if (auto read = test_summary_from_json(s)) out.push_back(*read);
  }
  return out;
}

template <typename E, std::size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E v) {
  for (const auto& [value, name] : table) {
    if (value == v) return name;
  }
  return "?";
}

constexpr std::array<std::pair<GoalKind, const char*>, 2> kGoalKinds{
    {{GoalKind::kModify, "modify"}, {GoalKind::kInspect, "inspect"}}};
constexpr std::array<std::pair<RunStatus, const char*>, 6> kStatuses{
    {{RunStatus::kRunning, "running"},
     {RunStatus::kCompleted, "completed"},
     {RunStatus::kBudgetExhausted, "budget_exhausted"},
     {RunStatus::kError, "error"},
     {RunStatus::kCancelled, "cancelled"},
     {RunStatus::kGoalAttemptsExhausted, "goal_attempts_exhausted"}}};
constexpr std::array<std::pair<Verdict, const char*>, 3> kVerdicts{
    {{Verdict::kSuccess, "success"}, {Verdict::kPartial, "partial"}, {Verdict::kFail, "fail"}}};
constexpr std::array<std::pair<BudgetKind, const char*>, 6> kBudgets{{{BudgetKind::kNone, ""},
                                                                      {BudgetKind::kReplans, "replans"},
                                                                      {BudgetKind::kSteps, "steps"},
                                                                      {BudgetKind::kTokens, "tokens"},
                                                                      {BudgetKind::kTimeout, "timeout"},
                                                                      {BudgetKind::kStagnation, "stagnation"}}};

constexpr std::array<std::pair<Provenance, const char*>, 2> kProvenances{
    {{Provenance::kUser, "user"}, {Provenance::kPlanner, "planner"}}};
constexpr std::array<std::pair<ReviewVerdict, const char*>, 3> kReviewVerdicts{
    {{ReviewVerdict::kPass, "pass"}, {ReviewVerdict::kFail, "fail"}, {ReviewVerdict::kNone, "none"}}};

nlohmann::json opt_string(const std::optional<std::string>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json(nullptr);
}

}  // namespace

const char* to_string(GoalKind v) { return name_of(kGoalKinds, v); }
const char* to_string(RunStatus v) { return name_of(kStatuses, v); }
const char* to_string(Verdict v) { return name_of(kVerdicts, v); }
const char* to_string(BudgetKind v) { return name_of(kBudgets, v); }
const char* to_string(Provenance v) { return name_of(kProvenances, v); }
const char* to_string(ReviewVerdict v) { return name_of(kReviewVerdicts, v); }
std::optional<Provenance> parse_provenance(const std::string& s) { return lookup(kProvenances, s); }
std::optional<ReviewVerdict> parse_review_verdict(const std::string& s) { return lookup(kReviewVerdicts, s); }
std::optional<GoalKind> parse_goal_kind(const std::string& s) { return lookup(kGoalKinds, s); }
std::optional<RunStatus> parse_run_status(const std::string& s) { return lookup(kStatuses, s); }
std::optional<Verdict> parse_verdict(const std::string& s) { return lookup(kVerdicts, s); }
std::optional<BudgetKind> parse_budget_kind(const std::string& s) { return lookup(kBudgets, s); }

nlohmann::json to_json(const ScanCoverage& s) {
  nlohmann::json walks = nlohmann::json::array();
  for (const auto& w : s.full_walks)
    walks.push_back({{"step", w.step.empty() ? nlohmann::json() : nlohmann::json(w.step)}, {"reason", w.reason}});
  nlohmann::json j = {
      {"complete", s.complete}, {"unread", s.unread}, {"by_events", s.by_events}, {"full_walks", walks}};
  if (!s.fsmonitor.empty()) j["fsmonitor"] = s.fsmonitor;
  if (!s.before_run.empty()) j["before_run"] = {{"looked", s.before_run}, {"reason", s.before_run_reason}};
  return j;
}

nlohmann::json to_json(const StepRecord& s) {
  nlohmann::json j = {{"id", s.id},
                      {"round", s.round},
                      {"tool", s.tool},
                      {"target", s.target},
                      {"effect_tool", s.effect_tool},
                      {"effect_on_files", s.effect_on_files},
                      {"ok", s.ok},
                      {"changed_paths", s.changed_paths},
                      {"seq", s.seq}};
  j["error"] = s.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.error);
  j["exit_code"] = s.exit_code ? nlohmann::json(*s.exit_code) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const AssertionRecord& a) {
  nlohmann::json out = {
      {"step", a.step.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.step)},
      {"round", a.round},
      {"type", a.type},
      {"assertion", a.assertion},
      {"path", a.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.path)},
      {"passed", a.passed},
      {"message", a.message},
      {"seq", a.seq},
      {"by", to_string(a.by)},
      {"discriminating", a.discriminating ? nlohmann::json(*a.discriminating) : nlohmann::json(nullptr)},
      {"positive", a.positive ? nlohmann::json(*a.positive) : nlohmann::json(nullptr)}};
  if (a.guard) out["guard"] = true;
  if (a.final_check) out["final_check"] = true;
  if (a.reads_step) out["reads_step"] = true;
  if (a.exit_code) out["exit_code"] = *a.exit_code;
  if (!a.output.empty()) out["output"] = a.output;
  if (!a.sandbox_refused.empty()) out["sandbox_refused"] = a.sandbox_refused;
  // A known test runner's summary, or null when it printed none (evidence/test_runners.h).
  const bool runner = !a.runner.empty();
  auto summary = [&](nlohmann::json& j, const std::optional<TestSummary>& s,
                     const std::vector<TestSummary>& frameworks) {
    if (s)
      j["tests"] = to_json(*s);
    else if (runner)
      j["tests"] = nullptr;
    if (!frameworks.empty()) j["frameworks"] = frameworks_json(frameworks);
  };
  summary(out, a.tests, a.frameworks);
  if (runner) out["test_runner"] = a.runner;
  if (a.before) {
    out["before"] = to_json(*a.before);
    summary(out["before"], a.before->tests, a.before->frameworks);
  }
  if (a.after) {
    out["after"] = to_json(*a.after);
    summary(out["after"], a.after->tests, a.after->frameworks);
  }
  if (a.on_record) {
    out["on_record"] = to_json(*a.on_record);
    summary(out["on_record"], a.on_record->tests, a.on_record->frameworks);
    out["record_files"] = a.record_files;
  }
  if (!a.emptied.empty()) {
    nlohmann::json emptied = nlohmann::json::array();
    for (const auto& e : a.emptied) {
      nlohmann::json j = to_json(e.run);
      summary(j, e.run.tests, e.run.frameworks);
      j["path"] = e.path;
      emptied.push_back(std::move(j));
    }
    out["emptied"] = std::move(emptied);
  }
  return out;
}

nlohmann::json to_json(const ProgramRun& r) {
  nlohmann::json out = {{"passed", r.passed},
                        {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr)},
                        {"output", r.output},
                        {"message", r.message}};
  if (r.error) out["error"] = true;
  if (r.tests) out["tests"] = to_json(*r.tests);
  if (!r.frameworks.empty()) out["frameworks"] = frameworks_json(r.frameworks);
  return out;
}

ProgramRun program_run_from_json(const nlohmann::json& j) {
  ProgramRun r;
  r.passed = j.contains("passed") && j["passed"].is_boolean() && j["passed"].get<bool>();
  r.error = j.contains("error") && j["error"].is_boolean() && j["error"].get<bool>();
  if (j.contains("exit_code") && j["exit_code"].is_number_integer()) r.exit_code = j["exit_code"].get<int>();
  r.output = json_str(j, "output");
  r.message = json_str(j, "message");
  if (j.contains("tests")) r.tests = test_summary_from_json(j["tests"]);
  r.frameworks = frameworks_from_json(j);
  return r;
}

void read_assertion_fields(const nlohmann::json& a, AssertionRecord& r) {
  if (a.contains("step") && a["step"].is_string()) r.step = a["step"].get<std::string>();
  r.round = a.contains("round") && a["round"].is_number_integer() ? a["round"].get<int>() : r.round;
  r.type = json_str(a, "type");
  if (a.contains("assertion") && a["assertion"].is_object()) r.assertion = a["assertion"];
  if (a.contains("path") && a["path"].is_string()) r.path = a["path"].get<std::string>();
  r.passed = a.contains("passed") && a["passed"].is_boolean() && a["passed"].get<bool>();
  r.message = json_str(a, "message");
  r.by = parse_provenance(json_str(a, "by")).value_or(Provenance::kPlanner);
  if (a.contains("discriminating") && a["discriminating"].is_boolean())
    r.discriminating = a["discriminating"].get<bool>();
  if (a.contains("positive") && a["positive"].is_boolean()) r.positive = a["positive"].get<bool>();
  r.guard = a.contains("guard") && a["guard"].is_boolean() && a["guard"].get<bool>();
  r.final_check = a.contains("final_check") && a["final_check"].is_boolean() && a["final_check"].get<bool>();
  r.reads_step = a.contains("reads_step") && a["reads_step"].is_boolean() && a["reads_step"].get<bool>();
  if (a.contains("exit_code") && a["exit_code"].is_number_integer()) r.exit_code = a["exit_code"].get<int>();
  r.output = json_str(a, "output");
  if (a.contains("sandbox_refused") && a["sandbox_refused"].is_array()) {
    for (const auto& p : a["sandbox_refused"])
      if (p.is_string()) r.sandbox_refused.push_back(p.get<std::string>());
  }
  if (a.contains("tests")) r.tests = test_summary_from_json(a["tests"]);
  r.frameworks = frameworks_from_json(a);
  r.runner = json_str(a, "test_runner");
  if (a.contains("before") && a["before"].is_object()) r.before = program_run_from_json(a["before"]);
  if (a.contains("after") && a["after"].is_object()) r.after = program_run_from_json(a["after"]);
  if (a.contains("on_record") && a["on_record"].is_object()) {
    r.on_record = program_run_from_json(a["on_record"]);
    r.record_files = a.value("record_files", std::vector<std::string>{});
  }
  if (a.contains("emptied") && a["emptied"].is_array()) {
    for (const auto& e : a["emptied"]) {
      if (e.is_object() && e.contains("path") && e["path"].is_string())
        r.emptied.push_back({e["path"].get<std::string>(), program_run_from_json(e)});
    }
  }
}

namespace {

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Shortest form only, no surrogates, nothing past U+10FFFF.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

nlohmann::json to_json(const Mutation& m) {
  nlohmann::json j = {{"path", m.path},
                      {"change", m.change},
                      {"bytes_before", m.bytes_before},
                      {"bytes_after", m.bytes_after},
                      {"lines_added", m.lines_added},
                      {"lines_removed", m.lines_removed},
                      {"binary", m.binary},
                      {"steps", m.steps},
                      {"last_change_seq", m.last_change_seq}};
  if (!m.renamed_from.empty()) j["renamed_from"] = m.renamed_from;
  // JSON holds text: a name that is not UTF-8 is shown with replacement characters and kept
  // exactly beside it, for undo.
  if (!valid_utf8(m.path)) j["path_bytes"] = to_hex(m.path);
  if (m.mode_before != 0) j["mode_before"] = fmt::format("{:o}", m.mode_before);
  if (m.mode_after != 0) j["mode_after"] = fmt::format("{:o}", m.mode_after);
  if (!m.lines_by.empty()) j["lines_by"] = m.lines_by;
  if (!m.owner_before.empty()) j["owner_before"] = m.owner_before;
  if (!m.owner_after.empty()) j["owner_after"] = m.owner_after;
  if (m.credential) j["credential"] = true;  // absent in runs recorded before it existed, as false
  if (m.committed) j["committed"] = true;
  if (m.lines_before > 0) j["lines_before"] = m.lines_before;
  return j;
}

nlohmann::json to_json(const TestAwareFlag& f) {
  nlohmann::json out = {{"path", f.path}, {"line", f.line}, {"rule", f.rule}, {"text", f.text}, {"why", f.why}};
  if (!f.test_file.empty()) out["test_file"] = f.test_file;
  return out;
}

nlohmann::json to_json(const GoalValidation& g) {
  return {{"attempt", g.attempt},
          {"verdict", to_string(g.verdict)},
          {"reason", g.reason},
          {"input_tokens", g.input_tokens},
          {"output_tokens", g.output_tokens}};
}

namespace {

// Modes are written in octal, as people read them ("100644", "40777").
std::uint32_t octal_mode(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return 0;
  const std::string text = j[key].get<std::string>();
  if (text.empty() || text.find_first_not_of("01234567") != std::string::npos || text.size() > 11) return 0;
  return static_cast<std::uint32_t>(std::stoul(text, nullptr, 8));
}

nlohmann::json created_folders_json(const std::vector<CreatedFolder>& folders) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : folders) {
    nlohmann::json j = {{"path", c.path}, {"mode", fmt::format("{:o}", c.mode)}};
    if (!c.owner.empty()) j["owner"] = c.owner;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const RunFacts& f) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : f.steps) steps.push_back(to_json(s));
  nlohmann::json assertions = nlohmann::json::array();
  for (const auto& a : f.assertions) assertions.push_back(to_json(a));
  nlohmann::json mutations = nlohmann::json::array();
  for (const auto& m : f.mutations) mutations.push_back(to_json(m));
  nlohmann::json validations = nlohmann::json::array();
  for (const auto& g : f.goal_validations) validations.push_back(to_json(g));
  nlohmann::json test_aware = nlohmann::json::array();
  for (const auto& flag : f.test_aware) test_aware.push_back(to_json(flag));
  return {
      {"goal_validations", validations},
      {"test_aware", test_aware},
      {"sandbox", f.sandbox},
      {"acceptance", f.acceptance},
      {"run_id", f.run_id},
      {"source", f.source},
      {"provider", f.provider},
      {"judge_policy", f.judge_policy},
      {"scan", to_json(f.scan)},
      {"protected_changes", f.protected_changes},
      {"scope", f.scope},
      {"sensitive", f.sensitive},
      {"credential_files", f.credential_files},
      {"git", f.git},
      {"gate", f.gate},
      {"goal", f.goal},
      {"goal_kind", to_string(f.goal_kind)},
      {"workspace", f.workspace},
      {"status", to_string(f.status)},
      {"status_detail", f.status_detail},
      {"steps_planned", f.steps_planned},
      {"steps", steps},
      {"assertions", assertions},
      {"mutations", mutations},
      {"budget",
       {{"limits",
         {{"max_replans", f.budget.limits.max_replans},
          {"max_steps", f.budget.limits.max_steps},
          {"max_tokens", f.budget.limits.max_tokens},
          {"timeout_s", f.budget.limits.timeout_s}}},
        {"used",
         {{"replans", f.budget.used.replans},
          {"steps", f.budget.used.steps},
          {"tokens", f.budget.used.tokens},
          {"elapsed_s", f.budget.used.elapsed_s}}},
        {"exhausted", to_string(f.budget.exhausted)}}},
      {"final_answer", opt_string(f.final_answer)},
      {"planner_questions", f.planner_questions},
      {"last_round", f.last_round},
      {"usage",
       {{"llm_calls", f.usage.llm_calls},
        {"input_tokens", f.usage.input_tokens},
        {"output_tokens", f.usage.output_tokens},
        {"estimated_calls", f.usage.estimated_calls}}},
      {"snapshot_before", f.snapshot_before},
      {"snapshot_after", f.snapshot_after},
      {"created_folders", created_folders_json(f.created_folders)},
      {"umask", f.umask < 0 ? nlohmann::json(nullptr) : nlohmann::json(fmt::format("{:03o}", f.umask))},
      {"commits", f.commits_to_tree.empty()
                      ? nlohmann::json(nullptr)
                      : nlohmann::json{{"from_tree", f.commits_from_tree}, {"to_tree", f.commits_to_tree}}},
  };
}

namespace {

// The readers of run_facts_from_json, one per kind of record; each throws nlohmann's exception on a
// missing required field, which run_facts_from_json turns into its error.
std::vector<TestAwareFlag> test_aware_from_json(const nlohmann::json& flags) {
  std::vector<TestAwareFlag> out;
  for (const auto& flag : flags) {
    if (!flag.is_object()) continue;
    out.push_back({.path = json_str(flag, "path"),
                   .line = flag.contains("line") && flag["line"].is_number_integer() ? flag["line"].get<int>() : 0,
                   .rule = json_str(flag, "rule"),
                   .text = json_str(flag, "text"),
                   .why = json_str(flag, "why"),
                   .test_file = json_str(flag, "test_file")});
  }
  return out;
}

StepRecord step_from_json(const nlohmann::json& s) {
  StepRecord r;
  r.id = s.at("id").get<std::string>();
  r.round = s.value("round", 1);
  r.tool = s.at("tool").get<std::string>();
  r.target = s.value("target", "");
  r.effect_tool = s.value("effect_tool", false);
  r.effect_on_files = s.value("effect_on_files", true);
  r.ok = s.value("ok", false);
  if (s.contains("error") && s["error"].is_string()) r.error = s["error"].get<std::string>();
  if (s.contains("exit_code") && s["exit_code"].is_number_integer()) r.exit_code = s["exit_code"].get<int>();
  r.changed_paths = s.value("changed_paths", std::vector<std::string>{});
  r.seq = s.value("seq", std::int64_t{0});
  return r;
}

Mutation mutation_from_json(const nlohmann::json& m) {
  Mutation r;
  r.path = m.at("path").get<std::string>();
  r.change = m.at("change").get<std::string>();
  r.bytes_before = m.value("bytes_before", std::int64_t{0});
  r.bytes_after = m.value("bytes_after", std::int64_t{0});
  r.lines_added = m.value("lines_added", 0);
  r.lines_removed = m.value("lines_removed", 0);
  r.binary = m.value("binary", false);
  r.steps = m.value("steps", std::vector<std::string>{});
  r.last_change_seq = m.value("last_change_seq", std::int64_t{0});
  r.renamed_from = m.value("renamed_from", std::string());
  if (auto bytes = from_hex(json_str(m, "path_bytes", "")); bytes && !bytes->empty()) r.path = std::move(*bytes);
  r.mode_before = octal_mode(m, "mode_before");
  r.mode_after = octal_mode(m, "mode_after");
  r.lines_by = json_str(m, "lines_by", "");
  r.owner_before = json_str(m, "owner_before", "");
  r.owner_after = json_str(m, "owner_after", "");
  r.credential = m.value("credential", false);
  r.lines_before =
      m.contains("lines_before") && m["lines_before"].is_number_integer() ? m["lines_before"].get<int>() : 0;
  r.committed = m.contains("committed") && m["committed"].is_boolean() && m["committed"].get<bool>();
  return r;
}

BudgetState budget_from_json(const nlohmann::json& b) {
  BudgetState out;
  out.limits.max_replans = b.at("limits").at("max_replans").get<int>();
  out.limits.max_steps = b.at("limits").at("max_steps").get<int>();
  out.limits.max_tokens = b.at("limits").at("max_tokens").get<std::int64_t>();
  out.limits.timeout_s = b.at("limits").at("timeout_s").get<int>();
  out.used.replans = b.at("used").at("replans").get<int>();
  out.used.steps = b.at("used").at("steps").get<int>();
  out.used.tokens = b.at("used").at("tokens").get<std::int64_t>();
  out.used.elapsed_s = b.at("used").at("elapsed_s").get<double>();
  out.exhausted = parse_budget_kind(b.value("exhausted", "")).value_or(BudgetKind::kNone);
  return out;
}

}  // namespace

Result<RunFacts> run_facts_from_json(const nlohmann::json& j) {
  try {
    RunFacts f;
    f.run_id = j.at("run_id").get<std::string>();
    f.source = json_str(j, "source", "run");
    f.provider = json_str(j, "provider", "");
    f.judge_policy = json_str(j, "judge_policy", "");
    if (j.contains("scan") && j["scan"].is_object()) {
      f.scan.complete = j["scan"].value("complete", true);
      f.scan.unread = j["scan"].value("unread", std::vector<std::string>{});
      if (const auto& n = j["scan"].value("by_events", nlohmann::json()); n.is_number_integer())
        f.scan.by_events = n.get<int>();
      if (const auto& by = j["scan"].value("fsmonitor", nlohmann::json()); by.is_string())
        f.scan.fsmonitor = by.get<std::string>();
      if (const auto& b = j["scan"].value("before_run", nlohmann::json()); b.is_object()) {
        f.scan.before_run = json_str(b, "looked", "");
        f.scan.before_run_reason = json_str(b, "reason", "");
      }
      if (const auto& walks = j["scan"].value("full_walks", nlohmann::json::array()); walks.is_array()) {
        for (const auto& w : walks) {
          if (w.is_object() && w.value("reason", nlohmann::json()).is_string())
            f.scan.full_walks.push_back(
                {w.value("step", nlohmann::json()).is_string() ? w["step"].get<std::string>() : "",
                 w["reason"].get<std::string>()});
        }
      }
    }
    f.protected_changes = j.value("protected_changes", std::vector<std::string>{});
    f.scope = j.value("scope", std::vector<std::string>{});
    f.sensitive = j.value("sensitive", std::vector<std::string>{});
    f.credential_files = j.value("credential_files", std::vector<std::string>{});
    if (j.contains("test_aware") && j["test_aware"].is_array()) f.test_aware = test_aware_from_json(j["test_aware"]);
    if (j.contains("git")) f.git = j["git"];
    if (j.contains("gate")) f.gate = j["gate"];
    if (j.contains("commits") && j["commits"].is_object()) {
      f.commits_from_tree = json_str(j["commits"], "from_tree");
      f.commits_to_tree = json_str(j["commits"], "to_tree");
    }
    f.goal = j.at("goal").get<std::string>();
    f.goal_kind = parse_goal_kind(j.at("goal_kind").get<std::string>()).value_or(GoalKind::kModify);
    f.workspace = j.at("workspace").get<std::string>();
    f.status = parse_run_status(j.at("status").get<std::string>()).value_or(RunStatus::kRunning);
    f.status_detail = j.value("status_detail", "");
    f.steps_planned = j.value("steps_planned", 0);
    for (const auto& s : j.at("steps")) f.steps.push_back(step_from_json(s));
    for (const auto& a : j.at("assertions")) {
      AssertionRecord r;
      r.type = a.at("type").get<std::string>();
      (void)a.at("passed").get<bool>();
      r.assertion = nlohmann::json::object();
      read_assertion_fields(a, r);
      r.seq = a.value("seq", std::int64_t{0});
      f.assertions.push_back(std::move(r));
    }
    if (j.contains("sandbox")) f.sandbox = j["sandbox"];
    if (j.contains("acceptance")) f.acceptance = j["acceptance"];
    for (const auto& m : j.at("mutations")) f.mutations.push_back(mutation_from_json(m));
    f.budget = budget_from_json(j.at("budget"));
    if (j.contains("final_answer") && j["final_answer"].is_string()) {
      f.final_answer = j["final_answer"].get<std::string>();
    }
    if (j.contains("planner_questions") && j["planner_questions"].is_array()) {
      for (const auto& q : j["planner_questions"])
        if (q.is_string()) f.planner_questions.push_back(q.get<std::string>());
    }
    f.last_round = j.value("last_round", 1);
    if (j.contains("usage")) {
      f.usage.llm_calls = j["usage"].value("llm_calls", 0);
      f.usage.input_tokens = j["usage"].value("input_tokens", std::int64_t{0});
      f.usage.output_tokens = j["usage"].value("output_tokens", std::int64_t{0});
      f.usage.estimated_calls = j["usage"].value("estimated_calls", 0);
    }
    for (const auto& g : j.value("goal_validations", nlohmann::json::array())) {
      f.goal_validations.push_back(
          {g.value("attempt", 1), parse_review_verdict(json_str(g, "verdict")).value_or(ReviewVerdict::kNone),
           json_str(g, "reason"), g.value("input_tokens", std::int64_t{0}), g.value("output_tokens", std::int64_t{0})});
    }
    f.snapshot_before = j.value("snapshot_before", "");
    f.snapshot_after = j.value("snapshot_after", "");
    for (const auto& c : j.value("created_folders", nlohmann::json::array())) {
      f.created_folders.push_back({json_str(c, "path"), octal_mode(c, "mode"), json_str(c, "owner", "")});
    }
    if (j.contains("umask") && j["umask"].is_string()) {
      const std::string umask = j["umask"].get<std::string>();
      if (!umask.empty() && umask.size() <= 4 && umask.find_first_not_of("01234567") == std::string::npos)
        f.umask = static_cast<int>(std::stoul(umask, nullptr, 8));
    }
    return f;
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorCode::kInvalidInput, std::string("run record: ") + e.what());
  }
}

std::string normalize_relative_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else {
        parts.push_back(part);
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out.empty() ? "." : out;
}

}  // namespace candor
