// `candor init`: a commented .candor/config.json for a repository, with the test command the
// repository itself names (package.json's scripts.test, pytest in pyproject.toml, Cargo.toml,
// go.mod, a Makefile's test or check target) as the expectation, its lint as a guard, and its
// source folders as what the test covers. Nothing is guessed: what is not found is said, in the
// file and to the person. Deciding (plan_init, pure over the files' texts) apart from doing
// (init_workspace: reads, refuses to overwrite, writes).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/result.h"

namespace candor::app {

// What init reads of a repository: the texts of the files init_reads() names that exist, and the
// names of the folders at its root.
struct RepositoryFiles {
  std::map<std::string, std::string> files;
  std::vector<std::string> folders;
};
const std::vector<std::string>& init_reads();

struct FoundCommand {
  std::string command;  // "npm test"
  std::string from;     // "package.json's scripts.test"
};

struct InitConfig {
  std::vector<FoundCommand> tests;   // the first is the expectation; the others are named in comments
  std::vector<FoundCommand> guards;  // lint commands
  std::vector<std::string> covers;   // "src/**": the source folders the test's pass proves
  std::vector<std::string> scope;    // a suggestion, commented out: the root's folders
  std::vector<std::string> unread;   // "package.json: not valid JSON ...": files found but not read
  std::string text;                  // the file: JSON with // comments
};

InitConfig plan_init(const RepositoryFiles& repo);

struct InitRequest {
  std::string workspace = ".";
  bool force = false;  // replace an existing .candor/config.json
};

struct InitResult {
  std::string path;  // the config written
  bool replaced = false;
  InitConfig config;
};

// kExists (exit 73) when .candor/config.json is there and `force` is not given: nothing written.
// kUsage for a workspace that is not a folder; kInvalidInput for a .candor that is not a real
// folder (candor never reads its config through a link); kIo naming the path.
Result<InitResult> init_workspace(const InitRequest& request);

}  // namespace candor::app
