#include "app/gate_checks.h"

#include <fmt/format.h>

#include "verify/scope.h"

namespace candor::app {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

std::string acceptance_text(const nlohmann::json& spec) {
  if (spec.contains("checkpoints")) {
    std::size_t n = spec["checkpoints"].is_array() ? spec["checkpoints"].size() : 0;
    return fmt::format("an acceptance spec of {} checkpoint{} over the turn's transcript", n, n == 1 ? "" : "s");
  }
  std::vector<std::string> agents;
  for (const auto& [agent, s] : spec.items()) agents.push_back(agent);
  return "an acceptance spec over the turn's transcript, for " + joined(agents);
}

}  // namespace

std::string no_expectations(const std::string& hook_llm) {
  return hook_llm.empty()
             ? "whether the work is done is not checked, only the paths and the scan below (add an `expect` with "
               "your test command; `candor init` suggests one)"
             : "the judge alone decides whether the work is done, without a test's evidence (add an `expect` with "
               "your test command; `candor init` suggests one)";
}

std::string describe_assertion(const nlohmann::json& a, bool evidence) {
  if (!a.is_object()) return a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string type = a.value("type", "?");
  if (type == "command_succeeds" && a.contains("command") && a["command"].is_string()) {
    std::string out = "command_succeeds: " + a["command"].get<std::string>();
    if (!evidence) return out;
    if (a.contains("covers") && a["covers"].is_array()) {
      std::vector<std::string> covers;
      for (const auto& c : a["covers"]) covers.push_back(c.is_string() ? c.get<std::string>() : c.dump());
      out += " (covers " + joined(covers) + ")";
    } else {
      out += " (no covers: a pass proves no changed path)";
    }
    return out;
  }
  nlohmann::json args = a;
  args.erase("type");
  return args.empty() ? type : type + " " + args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<GateCheck> gate_checks(const executor::WorkspaceConfig& c, bool config_present,
                                   const std::string& hook_llm) {
  std::vector<GateCheck> out;
  if (!config_present) {
    out.push_back({"missing",
                   "no .candor/config.json: nothing says what done means here (`candor init` writes one, with this "
                   "repository's test command when it names one)"});
  }
  for (const auto& a : c.expect) out.push_back({"expect", describe_assertion(a)});
  for (const auto& a : c.guard) out.push_back({"guard", describe_assertion(a, false) + " (must still hold)"});
  if (c.expect.empty()) out.push_back({"expect", "none: " + no_expectations(hook_llm)});
  out.push_back({"scope", c.scope.empty() ? "none: a turn may change any path"
                                          : joined(c.scope) + " (a change elsewhere blocks)"});
  std::vector<std::string> sensitive = verify::default_sensitive_paths();
  sensitive.insert(sensitive.end(), c.sensitive.begin(), c.sensitive.end());
  out.push_back({"sensitive", joined(sensitive)});
  if (c.gate.acceptance.is_object()) out.push_back({"acceptance", acceptance_text(c.gate.acceptance)});
  std::string judge = c.gate.judge.empty() ? "auto" : c.gate.judge;
  out.push_back({"judge", hook_llm.empty() ? fmt::format("gate.judge {}, but never asked: the hook has no --llm", judge)
                                           : fmt::format("gate.judge {}, with {}", judge, hook_llm)});
  out.push_back({"always",
                 "protected paths (.git/, .candor/, the hooks' settings files), a scan that could not finish, "
                 "suspicious changes (setuid, writable by others, a FIFO)"});
  if (c.fsmonitor == "watchman") {
    out.push_back({"scans",
                   "by Watchman's answer (snapshot.fsmonitor), not a walk: a write through a shared mapping or "
                   "through a hard link made during the turn is not seen; another daemon, a fresh clock or a "
                   "recrawl walks"});
  }
  out.push_back({"blocks", fmt::format("at most gate.max_blocks {} a turn, on: {}", c.gate.max_blocks,
                                       c.gate.block_on.empty() ? std::string("nothing") : joined(c.gate.block_on))});
  return out;
}

Result<std::vector<GateCheck>> workspace_gate_checks(const std::string& workspace, const std::string& hook_llm) {
  TRY(executor::WorkspaceConfig config, executor::load_config(workspace));
  return gate_checks(config, config.file_text.has_value(), hook_llm);
}

}  // namespace candor::app
