#include "app/eval_summary.h"

#include <map>
#include <set>

#include <fmt/format.h>

namespace candor::app {
namespace {

double number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

bool has(const nlohmann::json& j, const char* key) { return j.contains(key) && j[key].is_number(); }

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

std::vector<std::string> cheats_in(const nlohmann::json& report) {
  std::vector<std::string> out;
  if (!report.is_object()) return out;
  if (report.contains("test_aware") && report["test_aware"].is_array()) {
    for (const auto& f : report["test_aware"]) {
      out.push_back(fmt::format("test-aware change: {}{} ({})", text(f, "path"),
                                f.value("line", 0) > 0 ? fmt::format(":{}", f.value("line", 0)) : "", text(f, "why")));
    }
  }
  const nlohmann::json tier1 = report.value("tier1", nlohmann::json::object());
  // Rule 3b (evidence of tampering: tests of record); the rule is a number for the others.
  if (tier1.is_object() && tier1.contains("rule") && tier1["rule"] == "3b") {
    std::vector<std::string> edited;
    if (report.contains("mutations") && report["mutations"].is_array()) {
      for (const auto& m : report["mutations"]) {
        if (m.value("test_of_record", false)) edited.push_back(text(m, "path"));
      }
    }
    std::string files;
    for (const auto& e : edited) files += (files.empty() ? "" : ", ") + e;
    out.push_back(fmt::format("weakened or skipped test: passes only with the attempt's own test edits{}",
                              files.empty() ? "" : " (" + files + ")"));
  }
  if (report.contains("protected_changes") && report["protected_changes"].is_array()) {
    for (const auto& p : report["protected_changes"]) {
      out.push_back("protected path changed: " + (p.is_string() ? p.get<std::string>() : p.dump()));
    }
  }
  return out;
}

nlohmann::json eval_report_json(const store::EvalPlan& plan, const std::vector<store::EvalAttempt>& attempts) {
  struct Totals {
    std::set<std::string> tasks;
    int attempts = 0, claimed = 0, verified = 0, claimed_not_verified = 0, cheats = 0, infra = 0, running = 0;
    double cost = 0, wall = 0;
    std::int64_t input_tokens = 0, output_tokens = 0;
    bool costed = false, counted = false;
  };
  std::map<std::string, Totals> by_agent;
  std::map<std::string, std::set<std::string>> reported;  // agent -> tasks with a finished attempt
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json infra = nlohmann::json::array();
  for (const auto& a : attempts) {
    Totals& t = by_agent[a.agent];
    const nlohmann::json& r = a.record;
    nlohmann::json cheats = r.contains("cheats") && r["cheats"].is_array() ? r["cheats"] : nlohmann::json::array();
    nlohmann::json row = {{"agent", a.agent},
                          {"task", a.task_id},
                          {"attempt", a.attempt},
                          {"state", a.state},
                          {"claimed", a.claimed},
                          {"verdict", a.verdict},
                          {"first_finding", text(r, "first_finding")},
                          {"cheats", cheats},
                          {"run_id", a.run_id},
                          {"machine", a.machine},
                          {"answer", text(r, "answer")},
                          {"claim_detail", text(r, "claim_detail")},
                          {"wall_s", number(r, "wall_s")},
                          {"cost_usd", has(r, "cost_usd") ? r["cost_usd"] : nlohmann::json(nullptr)}};
    if (a.state == "infra_error") {
      ++t.infra;
      reported[a.agent].insert(a.task_id);
      row["error"] = text(r, "error");
      infra.push_back(row);
      continue;
    }
    if (a.state != "done") {
      ++t.running;
      rows.push_back(row);
      continue;
    }
    reported[a.agent].insert(a.task_id);
    t.tasks.insert(a.task_id);
    ++t.attempts;
    const bool claimed = a.claimed == "success", verified = a.verdict == "success";
    t.claimed += claimed;
    t.verified += verified;
    t.claimed_not_verified += claimed && !verified;
    t.cheats += !cheats.empty();
    t.wall += number(r, "wall_s");
    if (has(r, "cost_usd")) {
      t.cost += number(r, "cost_usd");
      t.costed = true;
    }
    if (has(r, "input_tokens") || has(r, "output_tokens")) {
      t.input_tokens += static_cast<std::int64_t>(number(r, "input_tokens"));
      t.output_tokens += static_cast<std::int64_t>(number(r, "output_tokens"));
      t.counted = true;
    }
    rows.push_back(row);
  }
  nlohmann::json agents = nlohmann::json::array();
  for (const auto& [name, t] : by_agent) {
    agents.push_back({{"agent", name},
                      {"tasks", t.tasks.size()},
                      {"attempts", t.attempts},
                      {"claimed_success", t.claimed},
                      {"verified_success", t.verified},
                      {"claimed_not_verified", t.claimed_not_verified},
                      {"claimed_not_verified_rate",
                       t.claimed > 0 ? nlohmann::json(static_cast<double>(t.claimed_not_verified) / t.claimed)
                                     : nlohmann::json(nullptr)},
                      {"with_cheats", t.cheats},
                      {"infra_errors", t.infra},
                      {"running", t.running},
                      {"cost_usd", t.costed ? nlohmann::json(t.cost) : nlohmann::json(nullptr)},
                      {"input_tokens", t.counted ? nlohmann::json(t.input_tokens) : nlohmann::json(nullptr)},
                      {"output_tokens", t.counted ? nlohmann::json(t.output_tokens) : nlohmann::json(nullptr)},
                      {"wall_s", t.wall}});
  }
  // What no shard reported: per agent seen, each task of the plan with no finished attempt.
  nlohmann::json missing = nlohmann::json::array();
  std::set<std::string> agent_names;
  for (const auto& [name, t] : by_agent) agent_names.insert(name);
  for (const auto& task : plan.tasks) {
    const std::string id = text(task, "id");
    if (agent_names.empty()) missing.push_back({{"agent", nullptr}, {"task", id}, {"shard", task.value("shard", 0)}});
    for (const auto& name : agent_names) {
      if (reported[name].count(id) == 0)
        missing.push_back({{"agent", name}, {"task", id}, {"shard", task.value("shard", 0)}});
    }
  }
  return {{"eval_id", plan.eval_id},
          {"created_at", plan.created_at},
          {"tasks", plan.tasks.size()},
          {"shards", plan.shards},
          {"tasks_digest", plan.tasks_digest},
          {"agents", agents},
          {"attempts", rows},
          {"infra_errors", infra},
          {"missing", missing}};
}

nlohmann::json eval_status_json(const store::EvalPlan& plan, const std::vector<store::EvalAttempt>& attempts) {
  std::map<std::string, int> shard_of;
  std::vector<int> tasks(static_cast<std::size_t>(std::max<std::int64_t>(plan.shards, 1)), 0);
  for (const auto& t : plan.tasks) {
    int s = t.value("shard", 0);
    shard_of[text(t, "id")] = s;
    if (s >= 0 && static_cast<std::size_t>(s) < tasks.size()) ++tasks[static_cast<std::size_t>(s)];
  }
  struct Counts {
    int done = 0, running = 0, infra = 0;
    std::set<std::string> reported;
  };
  std::map<std::pair<std::string, int>, Counts> counts;  // (agent, shard)
  std::set<std::string> agents;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : attempts) {
    agents.insert(a.agent);
    Counts& c = counts[{a.agent, shard_of.count(a.task_id) ? shard_of[a.task_id] : -1}];
    if (a.state == "done")
      ++c.done;
    else if (a.state == "infra_error")
      ++c.infra;
    else
      ++c.running;
    if (a.state != "running") c.reported.insert(a.task_id);
    list.push_back({{"agent", a.agent},
                    {"task", a.task_id},
                    {"attempt", a.attempt},
                    {"state", a.state},
                    {"machine", a.machine},
                    {"updated_at", a.updated_at}});
  }
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& agent : agents) {
    for (std::size_t s = 0; s < tasks.size(); ++s) {
      const Counts& c = counts[{agent, static_cast<int>(s)}];
      shards.push_back({{"agent", agent},
                        {"shard", s},
                        {"tasks", tasks[s]},
                        {"attempts_done", c.done},
                        {"attempts_running", c.running},
                        {"infra_errors", c.infra},
                        {"tasks_missing", tasks[s] - static_cast<int>(c.reported.size())}});
    }
  }
  return {{"eval_id", plan.eval_id}, {"tasks", plan.tasks.size()}, {"shards", shards}, {"attempts", list}};
}

}  // namespace candor::app
