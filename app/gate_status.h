// `candor gate status`: the gate's config as the workspace holds it now, whether candor's hooks are
// installed for each agent (and, for Codex, trusted), and the last turns the gate checked.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gate_checks.h"
#include "core/result.h"
#include "store/run_store.h"

namespace candor::app {

struct GateStatusRequest {
  std::string workspace = ".";
  std::string store_dir;  // "" = the --store of an installed hook, else store::default_store_dir()
  int turns = 10;
  std::function<std::string(const char*)> env;  // empty: the process's own
};

struct GateInstall {
  std::string agent;  // claude-code | codex
  std::string scope;  // project | local (Claude Code's .claude/settings.local.json) | user
  std::string path;   // the settings file
  bool installed = false;
  std::vector<std::string> events;  // the events candor's hook is on
  std::string command;
  std::string trust;  // Codex: "trusted", "not trusted", "" for Claude Code
  std::string error;  // the file could not be read
};

struct GateStatus {
  std::string workspace;
  std::string config_path;
  bool config_present = false;
  std::string config_error;
  // gate.max_blocks, block_on, judge, acceptance (whether one is given), and the counts of expect,
  // guard, scope: the config as the workspace holds it now (a turn uses it as it was when it began).
  nlohmann::json config;
  // What a stop checks, from that config and the installed hooks' --llm (app/gate_checks.h).
  std::vector<GateCheck> checks;
  // The config has no expectation: what that leaves the gate checking (app::no_expectations).
  std::string no_expect;
  std::vector<GateInstall> installs;
  std::string codex_feature;  // Codex's hooks feature: on | off | "" unknown
  // Per agent (claude-code, codex): "" when candor's hooks will actually run, else why not (every
  // settings layer read: disableAllHooks, Codex's feature and trust).
  std::vector<std::pair<std::string, std::string>> effective;
  // How long a turn's start may take before it records what it could not read (gate.start_timeout_s).
  int start_timeout_s = 10;
  // The store read: --store, else the --store an installed hook carries (store_from says which),
  // else the default.
  std::string store_dir;
  std::string store_from;
  std::vector<store::GateTurn> turns;  // newest first
  std::string store_error;
};

// Errors only for a workspace that is not a folder; what cannot be read is said in the status.
Result<GateStatus> gate_status(const GateStatusRequest& request);

// As `gate status --json` prints it.
nlohmann::json to_json(const GateStatus& status);

}  // namespace candor::app
