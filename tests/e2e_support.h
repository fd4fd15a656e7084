// The end-to-end fixture: a copy of a workspace, a private store, and the built binary.
#pragma once

#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/run_store.h"
#include "tests/test_support.h"

namespace candor::testing {

struct Env {
  std::string ws = make_temp_dir("ws");
  std::string store = make_temp_dir("store");
  // More NAME=VALUE for the binary (NAME= unsets). Whatever names an LLM provider is unset, so that
  // no test reaches one from the developer's environment.
  std::vector<std::string> env = {
      "NO_COLOR=1", "CANDOR_LLM=", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL="};

  explicit Env(const std::string& from = source_root() + "/examples/dark-green/site") {
    std::filesystem::copy(from, ws, std::filesystem::copy_options::recursive);
    for (const auto& e : std::filesystem::recursive_directory_iterator(ws)) {
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    }
  }
  // `candor ARGS` run in `cwd` ("" = the workspace, where a person runs it: `last` is its latest run).
  CommandResult candor(std::vector<std::string> args, const std::string& cwd = "") {
    args.insert(args.begin(), candor_bin());
    std::vector<std::string> e = env;
    e.push_back("CANDOR_HOME=" + store);
    return run_command(args, e, cwd.empty() ? ws : cwd);
  }
  // `candor ARGS` on a pseudo-terminal `columns` wide (COLUMNS unset, so the width is the
  // terminal's), in the workspace: stdout and stderr both in `out`.
  CommandResult in_terminal(std::vector<std::string> args, unsigned short columns = 100) {
    args.insert(args.begin(), candor_bin());
    std::vector<std::string> e = env;
    e.push_back("CANDOR_HOME=" + store);
    e.push_back("COLUMNS=");
    return run_in_terminal(args, e, columns, ws);
  }
  CommandResult exec(const std::string& plan, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"exec", plan, "-C", ws, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return candor(args);
  }
  // `candor run GOAL --llm script:FILE --json`, FILE holding `script` (one JSON object a line).
  CommandResult run(const std::string& goal, const std::string& script, std::vector<std::string> extra = {}) {
    std::string path = make_temp_dir("script") + "/replies.jsonl";
    write_file(path, script);
    std::vector<std::string> args = {"run", goal, "-C", ws, "--llm", "script:" + path, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return candor(args);
  }
  std::string plan_file(const std::string& text) {
    static int n = 0;
    std::string path = make_temp_dir("plan") + "/plan" + std::to_string(++n) + ".json";
    write_file(path, text);
    return path;
  }
};

// Starts candor with `args` in the background and waits (up to 10 s) until the run's event for
// calling step `step` is in the store. Returns the child's pid; 0 when it never got there (the
// child exited first, or is killed and reaped here), so REQUIRE(pid > 0) catches both.
// `extra_env` (NAME=VALUE) is added to its small environment.
inline pid_t spawn_until_step(const Env& env, std::vector<std::string> args, const std::string& step,
                              std::vector<std::string> extra_env = {}) {
  std::string bin = candor_bin(), home = "CANDOR_HOME=" + env.store;
  args.insert(args.begin(), bin);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp = {home.data(), const_cast<char*>("PATH=/usr/bin:/bin")};
  for (auto& e : extra_env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, bin.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) return 0;
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      MESSAGE("candor exited before step " << step << " started (wait status " << status << ")");
      return 0;
    }
    auto store = store::RunStore::open(env.store);
    if (!store.ok()) continue;
    auto id = (*store)->resolve("last");
    if (!id.ok()) continue;
    auto run = (*store)->load(*id);
    if (!run.ok()) continue;
    for (const auto& e : run->events) {
      if (e.type == "tool_called" && e.data.value("step", "") == step) return pid;
    }
  }
  MESSAGE("step " << step << " never started within 10 s: candor is killed");
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return 0;
}

inline std::string example_plan(const std::string& name) {
  return source_root() + "/examples/dark-green/plans/" + name;
}

// The command provider replaying files: request N is saved to DIR/req-N.json, DIR/reply-N.txt is
// the answer. Lets a test read every prompt afterwards.
inline std::string replay_provider(const std::string& dir, const std::vector<nlohmann::json>& replies) {
  for (std::size_t i = 0; i < replies.size(); ++i)
    write_file(dir + "/reply-" + std::to_string(i) + ".txt", replies[i].dump());
  write_file(dir + "/replay.sh",
             "#!/bin/sh\nd=" + dir + "\nn=$(ls $d | grep -c '^req-')\ncat > $d/req-$n.json\ncat $d/reply-$n.txt\n");
  return "command:sh " + dir + "/replay.sh";
}

// A plan of one shell step per command (s1, s2, ...), then finish.
inline nlohmann::json shell_plan(const std::vector<std::string>& commands) {
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < commands.size(); ++i) {
    steps.push_back(
        {{"id", "s" + std::to_string(i + 1)}, {"tool", "shell"}, {"args", {{"command", commands[i]}}}, {"why", "x"}});
  }
  return {{"goal_kind", "modify"}, {"steps", steps}, {"then", "finish"}, {"final_answer", "done"}};
}

inline nlohmann::json parse_stdout(const CommandResult& r) {
  CAPTURE(r.out);
  CAPTURE(r.err);
  return nlohmann::json::parse(r.out);
}

}  // namespace candor::testing
