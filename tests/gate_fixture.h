// The `candor gate` end-to-end tests' fixture: a workspace, its store and the agents' folders, and
// the real hook inputs of Claude Code 2.1.332 and Codex 0.169.0 (tests/agents/samples) rewritten to
// them. Shared by gate_e2e_test.cc and gate_round_four_e2e_test.cc.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/e2e_support.h"

namespace candor::testing::gate_fixture {

using json = nlohmann::json;
namespace fs = std::filesystem;

inline const char* kClaudeSession = "6735c787-c98e-4a62-9e47-213a0256f438";
inline const char* kCodexSession = "01a2173d-f1bf-7de1-929c-bbf048107497";
inline const char* kExpectHelloCandor =
    R"({"expect": [{"type": "file_contains", "path": "hello.txt", "text": "hello candor"}]})";

inline std::string sample(const std::string& name) {
  return read_file(source_root() + "/tests/agents/samples/" + name);
}

// A workspace, a store, and the agents' own folders (where their transcripts lie) in a home of its
// own; the agents' keys are unset unless a test sets them.
struct Gate : Env {
  std::string home = make_temp_dir("home");
  std::string claude_config = home + "/claude-config";
  std::string codex_home = home + "/codex-home";

  explicit Gate(const std::map<std::string, std::string>& files) : Env(make_workspace(files)) {
    env.push_back("HOME=" + home);
    env.push_back("CLAUDE_CONFIG_DIR=" + claude_config);
    env.push_back("CODEX_HOME=" + codex_home);
  }
  Gate(std::initializer_list<std::pair<const std::string, std::string>> files)
      : Gate(std::map<std::string, std::string>(files)) {}

  bool codex(const std::string& agent) const { return agent == "codex"; }

  // The agent's real transcript, where the agent keeps it.
  std::string transcript(const std::string& agent) {
    std::string path = codex(agent)
                           ? codex_home + "/sessions/2026/11/26/rollout-2026-11-26T09-44-25-" + kCodexSession + ".jsonl"
                           : claude_config + "/projects/-ws/" + kClaudeSession + ".jsonl";
    if (!exists(path)) write_file(path, sample(codex(agent) ? "rollout_codex.jsonl" : "transcript_claude.jsonl"));
    return path;
  }

  // A real hook input of `agent` ("ups", "stop", "stop_active"), pointed at this workspace and
  // transcript, with `changes` merged in.
  json input(const std::string& agent, const std::string& which, const json& changes = json::object()) {
    std::string name = which == "stop_active"
                           ? "stop_input_" + std::string(codex(agent) ? "codex" : "claude") + "_active"
                           : which + "_input_" + (codex(agent) ? "codex" : "claude");
    json j = json::parse(sample(name + ".json"));
    j["cwd"] = ws;
    j["transcript_path"] = transcript(agent);
    for (const auto& [k, v] : changes.items()) j[k] = v;
    return j;
  }

  // `candor gate AGENT` with `stdin_text` on its stdin, as the agent runs it.
  CommandResult hook_raw(const std::string& agent, const std::string& stdin_text, std::vector<std::string> extra = {}) {
    static int n = 0;
    std::string file = make_temp_dir("hook") + "/stdin-" + std::to_string(++n) + ".json";
    write_file(file, stdin_text);
    std::vector<std::string> args = {candor_bin(), "gate", agent};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> e = env;
    e.push_back("CANDOR_HOME=" + store);
    return run_command(args, e, ws, file);
  }

  // The answer: always exit 0, always one JSON object on stdout.
  json hook(const std::string& agent, const json& in, std::vector<std::string> extra = {}) {
    CommandResult r = hook_raw(agent, in.dump(), std::move(extra));
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    json j = json::parse(r.out);
    REQUIRE(j.is_object());
    return j;
  }

  json report(const std::string& run = "last") {
    CommandResult r = candor({"report", run, "--json"});
    CAPTURE(r.err);
    REQUIRE(r.exit_code <= 3);
    return json::parse(r.out);
  }
};

inline std::string run_id_in(const json& answer) {
  std::string text = answer.value("reason", "") + answer.value("systemMessage", "");
  auto at = text.find("candor run ");
  REQUIRE(at != std::string::npos);
  return text.substr(at + 11, 22);
}

}  // namespace candor::testing::gate_fixture
