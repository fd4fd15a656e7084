// Helpers shared by the tests: scratch folders, files, running the built binary.
#pragma once

#include <git2/oid.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace candor::testing {

// Called by the listener in main.cc around every test case.
void begin_scratch();
void end_scratch(bool passed);

// A fresh folder inside the current test case's scratch folder.
std::string make_temp_dir(const std::string& name = "dir");

void write_file(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);
bool exists(const std::string& path);

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
CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                          const std::string& cwd = "");

// Runs argv with a pseudo-terminal of `columns` columns as its stdin, stdout and stderr (a person's
// terminal, as far as the program can tell; no output processing, so "\n" is not turned into
// "\r\n"). `out` is everything written to the terminal, in order; `err` stays empty.
CommandResult run_in_terminal(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
                              unsigned short columns = 100);

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

// Sets an environment variable for the guard's lifetime and then puts back what was there (its old
// value, or nothing), however the test case ends: a failed REQUIRE throws past any unsetenv.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The built candor binary (CANDOR_BIN), the source root (CANDOR_SOURCE_ROOT), and the test data
// copied from outside into tests/data (tests/data/README.md says where each file came from).
std::string candor_bin();
std::string source_root();
std::string data_dir();

}  // namespace candor::testing
