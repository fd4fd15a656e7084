// Durability (docs/design.md, Trust boundary): everything candor writes into its store is on disk
// before it is named: written, fsynced, renamed, the folder fsynced. A power loss cannot be had in
// a test; the order of the system calls that make the promise can: a run of the built binary under
// strace, every rename into the store checked against the syncs around it.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e_support.h"
#include "tests/kernel_facts.h"

using namespace candor;
using namespace candor::testing;

namespace {

struct Call {
  std::string name;  // fsync, fdatasync, rename
  std::string path;  // the synced descriptor's path, or the rename's target
  std::string from;  // the rename's source
};

// strace -y prints a descriptor as 5</path>; rename as rename("from", "to").
std::vector<Call> read_trace(const std::string& text) {
  static const std::regex sync(R"re((fsync|fdatasync)\(\d+<([^>]*)>\)\s+= 0)re");
  static const std::regex rename(R"re(rename\("([^"]*)", "([^"]*)"\)\s+= 0)re");
  std::vector<Call> calls;
  std::istringstream in(text);
  // With -f, a call that another thread's call interrupts is printed in two lines,
  // `PID fsync(5</p> <unfinished ...>` and later `PID <... fsync resumed>) = 0`: joined back here.
  const std::string unfinished = " <unfinished ...>", resumed = " resumed>";
  std::map<std::string, std::string> pending;  // by pid
  for (std::string line; std::getline(in, line);) {
    std::string pid = line.substr(0, line.find(' '));
    if (line.size() > unfinished.size() &&
        line.compare(line.size() - unfinished.size(), unfinished.size(), unfinished) == 0) {
      pending[pid] = line.substr(0, line.size() - unfinished.size());
      continue;
    }
    if (auto it = pending.find(pid); it != pending.end() && line.find("<... ") != std::string::npos) {
      std::size_t end = line.find(resumed);
      if (end == std::string::npos) continue;
      line = it->second + line.substr(end + resumed.size());
      pending.erase(it);
    }
    std::smatch m;
    if (std::regex_search(line, m, sync)) {
      calls.push_back({m[1], m[2], ""});
    } else if (std::regex_search(line, m, rename)) {
      calls.push_back({"rename", m[2], m[1]});
    }
  }
  return calls;
}

std::string folder_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

const needs kStrace{::system("strace -V >/dev/null 2>&1") == 0, "strace"};

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("every pack, index and saved tree renamed into the store was synced before and its folder after" *
            kStrace) {
    Env env;
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_patch", "args": {"path": "css/style.css", "edits": [{"find": "background: #ffffff;", "replace": "background: #006400;"}]},
         "assert": [{"type": "file_contains", "path": "css/style.css", "text": "#006400"}]}], "then": "finish"})");
    std::string trace = make_temp_dir("trace") + "/calls";
    std::vector<std::string> e = env.env;
    e.push_back("CANDOR_HOME=" + env.store);
    e.push_back("PATH=/usr/bin:/bin");
    e.push_back("ASAN_OPTIONS=detect_leaks=0");  // LeakSanitizer cannot run under ptrace (make sanitize)
    auto r = run_command({"/usr/bin/strace", "-f", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,rename",
                          candor_bin(), "exec", plan, "-C", env.ws, "--json"},
                         e);
    REQUIRE(r.exit_code == 0);
    std::vector<Call> calls = read_trace(read_file(trace));
    const std::string snapshots = env.store + "/snapshots/";
    int checked = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const Call& c = calls[i];
      // Into a snapshot repository, other than the repository's own making (a fresh folder renamed
      // into place, its config written by libgit2 before anything names it).
      // (The repository's own making writes its config through config.lock inside a private folder
      // that is synced whole before it is renamed into place: that rename is checked.)
      if (c.name != "rename" || c.path.rfind(snapshots, 0) != 0 || c.from.find("/config.lock") != std::string::npos)
        continue;
      CAPTURE(c.from);
      CAPTURE(c.path);
      bool synced_before = false;
      for (std::size_t j = 0; j < i; ++j) synced_before |= calls[j].name != "rename" && calls[j].path == c.from;
      bool folder_after = false;
      for (std::size_t j = i + 1; j < calls.size(); ++j)
        folder_after |= calls[j].name == "fsync" && calls[j].path == folder_of(c.path);
      CHECK(synced_before);
      CHECK(folder_after);
      ++checked;
    }
    // Two packs (before, after: pack, promisor, idx each), the index and its saved tree at least.
    CHECK(checked >= 8);
    // The run's end reached the database's log with a sync of its own, after every rename.
    std::size_t last_rename = 0, last_wal_sync = 0;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].name == "rename") last_rename = i;
      if (calls[i].name != "rename" && calls[i].path.find("candor.db") != std::string::npos) last_wal_sync = i;
    }
    CHECK(last_wal_sync > last_rename);
  }
}
