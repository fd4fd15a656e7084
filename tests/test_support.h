// The tests' fixture kit: scratch folders and workspaces, files, running the built binary and git,
// a clock that moves only when told, environment variables set for a scope.
#pragma once

#include <git2/oid.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace candor::testing {

// Called by the listener in main.cc around every test case.
void begin_scratch();
void end_scratch(bool passed);

// A fresh folder inside the current test case's scratch folder.
std::string make_temp_dir(const std::string& name = "dir");

// A fresh folder holding `files` (relative path -> content; folders made as needed): a workspace
// as a test wants it, built in one line.
std::string make_workspace(const std::map<std::string, std::string>& files, const std::string& name = "ws");
// The smallest site: css/style.css (a white background) and index.html.
const std::map<std::string, std::string>& tiny_site();

void write_file(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);
bool exists(const std::string& path);
// The length of the longest piece of `secret` (consecutive bytes) that `text` holds: how much of a
// secret value leaked, whole or cut.
std::size_t longest_piece(const std::string& text, const std::string& secret);

// The id git gives `content` as a blob (git hash-object).
git_oid blob_id(const std::string& content);

// Every regular file beneath `dir` (relative path -> content); for "nothing else changed" checks.
std::map<std::string, std::string> tree_contents(const std::string& dir);

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs argv with stdout and stderr captured separately. `env` entries (NAME=VALUE) are added to
// the environment; a NAME= entry removes NAME.
// `stdin_file` ("" = /dev/null) is the command's standard input.
CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                          const std::string& cwd = "", const std::string& stdin_file = "");

// git for the tests: /usr/bin/git with a fixed author and committer, and neither the user's nor
// the system's configuration, so what a test's git does never depends on who runs the tests.
// The environment it runs with (NAME=VALUE, NAME= unsets), for a test that runs git itself.
const std::vector<std::string>& git_env();
// git `args` in `dir`, with git_env() and then `extra_env`; the result is returned, not checked.
CommandResult run_git(const std::string& dir, std::vector<std::string> args,
                      const std::vector<std::string>& extra_env = {});
// The same, REQUIREd to succeed (git's stderr is shown when it does not): returns its stdout.
std::string git(const std::string& dir, std::vector<std::string> args);

// Runs argv with a pseudo-terminal of `columns` columns as its stdin, stdout and stderr (a person's
// terminal, as far as the program can tell; no output processing, so "\n" is not turned into
// "\r\n"). `out` is everything written to the terminal, in order; `err` stays empty. `cwd`: the
// folder it runs in ("" = this process's).
CommandResult run_in_terminal(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                              unsigned short columns = 100, const std::string& cwd = "");

// A TCP socket listening on 127.0.0.1 on a free port, closed when it goes (for "can a step reach
// the host's loopback" tests).
class LoopbackListener {
 public:
  LoopbackListener();
  ~LoopbackListener();
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Sets (or, given nullopt, unsets) an environment variable for the guard's lifetime and then puts
// back what was there (its old value, or nothing), however the test case ends: a failed REQUIRE
// throws past any hand-written restore.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A Clock that moves only when told: wall() starts at `start` (by default kStart,
// 2026-11-18T11:06:40Z, so timestamps are the same every run) and monotonic() at its epoch; both
// move by advance(). For budgets, timestamps and time windows without sleeping. A test that
// compares the clock with files it wrote (a racy window) starts it at system_clock::now().
class FakeClock final : public Clock {
 public:
  static constexpr std::chrono::seconds kStart{1795000000};
  explicit FakeClock(std::chrono::system_clock::time_point start = std::chrono::system_clock::time_point(kStart))
      : start_(start) {}
  std::chrono::system_clock::time_point wall() override { return start_ + elapsed_; }
  std::chrono::steady_clock::time_point monotonic() override {
    return std::chrono::steady_clock::time_point{} + elapsed_;
  }
  void advance(std::chrono::nanoseconds by) { elapsed_ += by; }
  // Sleeping moves the clock at once (unless already cancelled); each sleep is recorded, so a test
  // can read the waits.
  bool sleep_for(std::chrono::milliseconds d, const std::atomic<bool>* cancel) override {
    if (cancel != nullptr && cancel->load()) return false;
    sleeps_.push_back(d);
    advance(d);
    return true;
  }
  const std::vector<std::chrono::milliseconds>& sleeps() const { return sleeps_; }

 private:
  std::chrono::system_clock::time_point start_;
  std::chrono::nanoseconds elapsed_{0};
  std::vector<std::chrono::milliseconds> sleeps_;
};

// The built candor binary (CANDOR_BIN), the source root (CANDOR_SOURCE_ROOT), and the test data
// copied from outside into tests/data (tests/data/README.md says where each file came from).
std::string candor_bin();
std::string source_root();
std::string data_dir();

}  // namespace candor::testing
