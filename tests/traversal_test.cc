// The traversal corpus (tests/data/traversal) against every path-taking tool, in both
// resolution modes. Canary files outside the workspace must stay unread (atime), unchanged, and
// nothing new may appear outside.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

#include "executor/tool.h"
#include "sandbox/workspace.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::tree_contents;
using candor::testing::write_file;
using nlohmann::json;

namespace {

constexpr int kDepth = 10;  // the workspace sits this deep below the canary root

std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'n') {
      out += '\n';
    } else if (c == 'x' && i + 2 < s.size() + 1) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

struct Payload {
  std::string raw, decoded;
};

std::vector<Payload> load_payloads() {
  std::ifstream in(candor::testing::data_dir() + "/traversal/linux_traversal.tsv");
  std::vector<Payload> out;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::size_t pos = 0;
    for (std::size_t tab; (tab = line.find('\t', pos)) != std::string::npos; pos = tab + 1)
      cols.push_back(line.substr(pos, tab - pos));
    cols.push_back(line.substr(pos));
    if (cols.size() >= 5) out.push_back({cols[0], unescape(cols[4])});
  }
  return out;
}

// Sets atime well before mtime, so that under relatime (or strictatime) any read moves it.
void age_atime(const std::string& path) {
  struct timespec times[2] = {{1000000000, 0}, {0, UTIME_OMIT}};
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
}

long atime_of(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_atim.tv_sec;
}

std::string for_writing(std::string p) {
  // An escaped write must never be able to touch the real /etc, even if the sandbox failed.
  for (const char* target : {"etc/passwd", "etc/hosts", "etc/shadow"}) {
    for (std::size_t at; (at = p.find(target)) != std::string::npos;)
      p.replace(at, std::string(target).size(), "candor-canary-write/x");
  }
  return p;
}

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("the traversal corpus cannot read, list, write or delete outside the workspace") {
    std::vector<Payload> payloads = load_payloads();
    REQUIRE(payloads.size() == 325);

    std::string base = make_temp_dir("traversal");
    std::vector<std::string> canaries;
    std::string dir = base;
    for (int level = 0; level <= kDepth; ++level) {
      for (const char* name : {"etc/passwd", "etc/hosts", "etc/shadow", ".htaccess"}) {
        std::string p = dir + "/" + name;
        write_file(p, "CANARY " + p + "\n");
        canaries.push_back(p);
      }
      dir += "/l" + std::to_string(level);
    }
    std::string ws_root = dir + "/ws";
    write_file(ws_root + "/index.html", "<p>inside</p>\n");
    std::string control = base + "/control";
    write_file(control, "control\n");
    auto outside_before = tree_contents(base);  // read before the atimes are set
    for (const auto& c : canaries) age_atime(c);
    age_atime(control);
    long control_before = atime_of(control);
    (void)candor::testing::read_file(control);
    bool atime_observable = atime_of(control) != control_before;
    if (!atime_observable) MESSAGE("this filesystem does not update atime: the 'unread' check is skipped");
    std::vector<long> canary_atimes;
    for (const auto& c : canaries) canary_atimes.push_back(atime_of(c));

    executor::ToolRegistry tools = executor::builtin_tools();
    net::NetworkPolicy network;
    int refused = 0, confined = 0;

    for (bool fallback : {false, true}) {
      auto ws = sandbox::Workspace::open(ws_root, {.force_fallback = fallback, .protected_dirs = {}, .secrets = {}});
      REQUIRE(ws.ok());
      executor::ToolContext ctx{**ws, network, kDefaultOutputCap, std::chrono::milliseconds(10000)};
      for (const auto& payload : payloads) {
        for (const std::string& p : {payload.raw, payload.decoded}) {
          CAPTURE(fallback);
          CAPTURE(p);
          auto read = tools.find("file_read")->run(json{{"path", p}}, ctx);
          if (read.ok) {
            ++confined;
            CHECK(read.output.find("CANARY") == std::string::npos);
            CHECK(read.output.find("root:") == std::string::npos);
          } else {
            ++refused;
          }
          auto list = tools.find("file_list")->run(json{{"path", p}}, ctx);
          if (list.ok) CHECK(list.output.find("passwd") == std::string::npos);
          auto search = tools.find("file_search")->run(json{{"pattern", "CANARY|root:"}, {"path", p}}, ctx);
          if (search.ok) CHECK(search.output.rfind("0 matches", 0) == 0);
          tools.find("file_write")->run(json{{"path", for_writing(p)}, {"content", "PWNED"}}, ctx);
          tools.find("file_delete")->run(json{{"path", p}}, ctx);
          tools.find("file_patch")
              ->run(json{{"path", p}, {"edits", {{{"find", "CANARY"}, {"replace", "PWNED"}}}}}, ctx);
        }
      }
    }
    CHECK(refused > 0);
    MESSAGE("reads refused: " << refused << ", confined to the workspace: " << confined);

    // The canaries were not read (checked first: comparing contents reads them), nothing outside
    // the workspace changed, and nothing appeared there.
    if (atime_observable) {
      for (std::size_t i = 0; i < canaries.size(); ++i) {
        CAPTURE(canaries[i]);
        CHECK(atime_of(canaries[i]) == canary_atimes[i]);
      }
    }
    std::string ws_rel = std::filesystem::relative(ws_root, base).string() + "/";
    auto outside = [&](std::map<std::string, std::string> tree) {
      std::erase_if(tree, [&](const auto& kv) { return kv.first.rfind(ws_rel, 0) == 0; });
      return tree;
    };
    auto outside_after = outside(tree_contents(base));
    outside_before = outside(outside_before);
    CHECK(outside_after == outside_before);
    CHECK_FALSE(candor::testing::exists("/candor-canary-write"));
    CHECK_FALSE(candor::testing::exists("/etc/candor-canary-write"));
  }
}
