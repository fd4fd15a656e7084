#include "app/gate_status.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "app/gate_install.h"
#include "core/json_text.h"
#include "executor/config.h"

namespace candor::app {
namespace {

namespace fs = std::filesystem;

std::function<std::string(const char*)> env_or_process(const std::function<std::string(const char*)>& env) {
  if (env) return env;
  return [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
}

// Codex's key of an event in its trust table: UserPromptSubmit -> user_prompt_submit.
std::string snake(const std::string& event) {
  std::string out;
  for (char c : event) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// The tables of a TOML text that hold `key` (`trusted_hash`, `trust_level = "trusted"`), by header.
bool table_has(const std::string& toml, const std::string& header, const std::string& line_start) {
  std::istringstream in(toml);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    std::size_t a = line.find_first_not_of(" \t");
    std::string t = a == std::string::npos ? "" : line.substr(a);
    if (!t.empty() && t[0] == '[') {
      inside = t.rfind(header, 0) == 0;
      continue;
    }
    if (inside && t.rfind(line_start, 0) == 0) return true;
  }
  return false;
}

// `scope`: project, local (Claude Code's settings.local.json) or user.
GateInstall install_state(GateAgent agent, const std::string& scope, const std::string& workspace,
                          const std::function<std::string(const char*)>& env, const std::string& codex_toml) {
  GateInstall s;
  bool user = scope == "user";
  s.agent = to_string(agent);
  s.scope = scope;
  s.path = agent == GateAgent::kClaudeCode ? claude_settings_path(user, workspace, env, scope == "local")
                                           : codex_hooks_path(user, workspace, env);
  std::error_code ec;
  if (!fs::exists(s.path, ec)) return s;
  auto text = read_input_file(s.path, kMaxDocumentBytes);
  if (!text.ok()) {
    s.error = text.error().message;
    return s;
  }
  auto j = parse_json_text(*text, s.path);
  if (!j.ok() || !j->is_object() || !j->contains("hooks") || !(*j)["hooks"].is_object()) {
    if (!j.ok()) s.error = j.error().message;
    return s;
  }
  std::vector<std::string> trusted_events;
  for (const auto& [event, groups] : (*j)["hooks"].items()) {
    if (!groups.is_array()) continue;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].is_object() || !groups[g].contains("hooks") || !groups[g]["hooks"].is_array()) continue;
      const auto& handlers = groups[g]["hooks"];
      for (std::size_t h = 0; h < handlers.size(); ++h) {
        if (!handlers[h].is_object() || !handlers[h].contains("command") || !handlers[h]["command"].is_string())
          continue;
        std::string command = handlers[h]["command"].get<std::string>();
        if (!is_candor_hook_command(command)) continue;
        s.installed = true;
        s.events.push_back(event);
        s.command = command;
        std::string key =
            fmt::format("[hooks.state.\"{}:{}:{}:{}\"]", fs::weakly_canonical(s.path, ec).string(), snake(event), g, h);
        if (table_has(codex_toml, key, "trusted_hash")) trusted_events.push_back(event);
      }
    }
  }
  if (agent == GateAgent::kCodex && s.installed) {
    bool project_trusted =
        user || table_has(codex_toml, fmt::format("[projects.\"{}\"]", fs::weakly_canonical(workspace, ec).string()),
                          "trust_level = \"trusted\"");
    s.trust = project_trusted && trusted_events.size() == s.events.size()
                  ? "trusted (its hash not checked: edit hooks.json and Codex distrusts it again)"
                  : "not trusted: Codex skips it silently (run /hooks in codex to trust it)";
  }
  return s;
}

std::string feature_state(const std::string& toml) {
  auto on = enable_codex_hooks(toml, "config.toml");
  if (!on.ok()) return "";
  return on->changed ? "off" : "on";
}

}  // namespace

Result<GateStatus> gate_status(const GateStatusRequest& r) {
  GateStatus s;
  std::error_code ec;
  fs::path ws = fs::canonical(r.workspace, ec);
  if (ec || !fs::is_directory(ws)) {
    return make_error(ErrorCode::kUsage,
                      fmt::format("{} is not a folder: give the workspace with -C DIR", r.workspace));
  }
  s.workspace = ws.string();
  s.config_path = s.workspace + "/.candor/config.json";
  auto config = executor::load_config(s.workspace);
  if (!config.ok()) {
    s.config_error = config.error().message;
  } else {
    s.config_present = config->file_text.has_value();
    const executor::GateConfig& g = config->gate;
    s.start_timeout_s = g.start_timeout_s;
    s.config = {{"max_blocks", g.max_blocks},
                {"block_on", g.block_on},
                {"judge", g.judge.empty() ? "auto" : g.judge},
                {"start_timeout_s", g.start_timeout_s},
                {"acceptance", g.acceptance.is_object()},
                {"expect", config->expect.size()},
                {"guard", config->guard.size()},
                {"scope", config->scope},
                {"sensitive", config->sensitive}};
  }
  auto env = env_or_process(r.env);
  std::string codex_toml;
  if (auto text = read_input_file(codex_config_path(env), kMaxDocumentBytes); text.ok()) {
    codex_toml = *text;
    s.codex_feature = feature_state(codex_toml);
  }
  for (GateAgent agent : {GateAgent::kClaudeCode, GateAgent::kCodex}) {
    for (const char* scope : {"project", "local", "user"}) {
      if (agent == GateAgent::kCodex && std::string(scope) == "local") continue;  // Codex has no local file
      s.installs.push_back(install_state(agent, scope, s.workspace, env, codex_toml));
    }
    std::string why = hooks_not_effective(agent, s.workspace, env);
    if (why.empty() && agent == GateAgent::kCodex) {
      bool trusted = std::any_of(s.installs.begin(), s.installs.end(), [](const GateInstall& i) {
        return i.agent == "codex" && i.installed && i.trust.rfind("trusted", 0) == 0;
      });
      if (!trusted) why = "Codex has not trusted candor's hooks: it skips them silently (run /hooks in codex)";
    }
    s.effective.emplace_back(to_string(agent), why);
  }
  if (config.ok()) {
    std::string llm;
    for (const auto& i : s.installs)
      if (llm.empty() && i.installed) llm = hook_option(i.command, "--llm");
    s.checks = gate_checks(*config, s.config_present, llm);
    if (config->expect.empty()) s.no_expect = no_expectations(llm);
  }
  s.store_dir = r.store_dir;
  if (s.store_dir.empty()) {
    // Where the hooks store their turns: the --store an installed hook carries, else the default.
    for (const auto& i : s.installs) {
      if (std::string pinned = hook_option(i.command, "--store"); i.installed && !pinned.empty()) {
        s.store_dir = pinned;
        s.store_from = fmt::format("the --store of the hook in {}", i.path);
        break;
      }
    }
  }
  auto store = store::RunStore::open(s.store_dir);
  if (s.store_dir.empty()) s.store_dir = store::store_location("", env).dir;
  if (store.ok()) s.store_dir = (*store)->describe();
  if (!store.ok()) {
    s.store_error = store.error().message;
    return s;
  }
  auto turns = (*store)->list_gate_turns(r.turns);
  if (turns.ok()) {
    s.turns = std::move(turns.value());
  } else {
    s.store_error = turns.error().message;
  }
  return s;
}

nlohmann::json to_json(const GateStatus& s) {
  nlohmann::json installs = nlohmann::json::array();
  for (const auto& i : s.installs) {
    nlohmann::json j = {
        {"agent", i.agent}, {"scope", i.scope}, {"path", i.path}, {"installed", i.installed}, {"events", i.events}};
    if (!i.command.empty()) j["command"] = i.command;
    if (!i.trust.empty()) j["trust"] = i.trust;
    if (!i.error.empty()) j["error"] = i.error;
    installs.push_back(j);
  }
  nlohmann::json effective = nlohmann::json::object();
  for (const auto& [agent, why] : s.effective)
    effective[agent] = {{"effective", why.empty()},
                        {"why_not", why.empty() ? nlohmann::json(nullptr) : nlohmann::json(why)}};
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : s.checks) checks.push_back({{"what", c.what}, {"text", c.text}});
  nlohmann::json turns = nlohmann::json::array();
  for (const auto& t : s.turns) {
    turns.push_back({{"agent", t.agent},
                     {"session_id", t.session},
                     {"turn_id", t.turn_key},
                     {"turn", t.turn},
                     {"run_id", t.run_id},
                     {"workspace", t.workspace},
                     {"started_at", t.started_at},
                     {"stops", t.stops},
                     {"blocks", t.blocks},
                     {"decision", t.decision.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.decision)},
                     {"verdict", t.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.verdict)},
                     {"fallback", t.start.contains("fallback")},
                     {"updated_at", t.updated_at}});
  }
  nlohmann::json out = {
      {"workspace", s.workspace},
      {"config",
       {{"path", s.config_path},
        {"present", s.config_present},
        {"source", "the workspace now (a turn uses the config as it was when the turn began)"},
        {"gate", s.config},
        {"checks", checks},
        {"no_expectations", s.no_expect.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.no_expect)}}},
      {"installs", installs},
      {"codex_hooks_feature", s.codex_feature.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.codex_feature)},
      {"effective", effective},
      {"store", s.store_dir},
      {"store_from", s.store_from.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.store_from)},
      {"turns", turns}};
  if (!s.config_error.empty()) out["config"]["error"] = s.config_error;
  if (!s.store_error.empty()) out["store_error"] = s.store_error;
  return out;
}

}  // namespace candor::app
