// Credential files against a hostile agent (DESIGN.md, Trust boundary, Secrets): no byte of one
// reaches a tool result, by any path. Each case is an attack that worked once; the secret is a
// marker that must appear in nothing the agent sees.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "executor/tool.h"
#include "sandbox/secret_files.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::write_file;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSecret = "hunter2-s3cr3t";
const std::string kEnv = std::string("DB_PASSWORD=") + kSecret + "\nAPI_HOST=api.example.com\n";

struct Leaky {
  std::string root = make_temp_dir("ws");
  std::unique_ptr<sandbox::Workspace> ws;
  executor::ToolRegistry tools = executor::builtin_tools();
  NetworkPolicy network;

  Leaky() {
    write_file(root + "/.env", kEnv);
    write_file(root + "/service.key", std::string(R"({"token": ")") + kSecret + "\", \"n\": 1}\n");
    write_file(root + "/app.txt", "hello\n");
    fs::create_symlink(".env", root + "/notes.txt");  // an innocent name for the credential
    open();
  }
  void open() { ws = std::move(sandbox::Workspace::open(root).value()); }
  executor::ToolResult run(const std::string& tool, const json& args) {
    executor::ToolContext ctx{*ws, network, kDefaultOutputCap, std::chrono::milliseconds(60000)};
    return tools.find(tool)->run(args, ctx);
  }
};

bool leaks(const std::string& text) { return text.find(kSecret) != std::string::npos || text.find("s3cr3t") != std::string::npos; }

}  // namespace

TEST_SUITE("sandbox") {
  TEST_CASE("a symlink swapped between the credential check and the read never wins") {
    // The check and the read use one descriptor: whichever file the link names when it is
    // opened, that file is checked and read. 3% of reads leaked when they opened twice.
    Leaky f;
    write_file(f.root + "/innocent.txt", "nothing to see\n");
    fs::remove(f.root + "/notes.txt");
    fs::create_symlink("innocent.txt", f.root + "/link");
    std::atomic<bool> stop{false};
    std::thread swapper([&] {
      std::string tmp = f.root + "/link.tmp";
      for (bool to_env = true; !stop.load(); to_env = !to_env) {
        ::unlink(tmp.c_str());
        if (::symlink(to_env ? ".env" : "innocent.txt", tmp.c_str()) == 0) std::rename(tmp.c_str(), (f.root + "/link").c_str());
      }
    });
    int leaked = 0, innocent = 0, refused = 0;
    for (int i = 0; i < 3000; ++i) {
      auto r = f.run("file_read", {{"path", "link"}});
      if (leaks(r.output) || leaks(r.error)) ++leaked;
      if (r.ok && r.output == "nothing to see\n") ++innocent;
      if (!r.ok && r.error.find("credential file") != std::string::npos) ++refused;
      auto s = f.run("file_search", {{"pattern", "s3cr3t|nothing"}, {"path", "link"}});
      if (leaks(s.output) || leaks(s.error)) ++leaked;
    }
    stop = true;
    swapper.join();
    CHECK(leaked == 0);
    MESSAGE(fmt::format("{} innocent reads, {} refused", innocent, refused));
    CHECK(innocent + refused > 0);
  }

}

TEST_SUITE("executor") {
  TEST_CASE("file_read, file_search and file_patch refuse a credential file and say nothing of its content") {
    Leaky f;
    for (const char* path : {".env", "notes.txt", "./.ENV"}) {
      CAPTURE(path);
      if (std::string(path) == "./.ENV") write_file(f.root + "/.ENV", kEnv);
      auto read = f.run("file_read", {{"path", path}});
      CHECK_FALSE(read.ok);
      CHECK(read.error.find("looks like a credential file") != std::string::npos);
      auto search = f.run("file_search", {{"pattern", "s3cr3t"}, {"path", path}});
      CHECK_FALSE(search.ok);
      CHECK_FALSE(leaks(search.output));
      // An occurrence count would be an oracle: "find occurs 1 time" says the guess was right.
      for (const char* guess : {"hunter2", "nope"}) {
        auto patch = f.run("file_patch", {{"path", path}, {"edits", {{{"find", guess}, {"replace", "x"}}}}});
        CHECK_FALSE(patch.ok);
        CHECK(patch.error.find("occurs") == std::string::npos);
        CHECK(patch.error.find("looks like a credential file") != std::string::npos);
      }
    }
    CHECK(read_file(f.root + "/.env") == kEnv);
    auto all = f.run("file_search", {{"pattern", "s3cr3t"}});
    REQUIRE(all.ok);
    CHECK_FALSE(leaks(all.output));
    CHECK(all.output.find("credential file") != std::string::npos);
    // Replacing a credential file whole reveals nothing of it: allowed (its diff is withheld).
    auto write = f.run("file_write", {{"path", ".env"}, {"content", "DB_PASSWORD=changed\n"}});
    CHECK(write.ok);
    CHECK(read_file(f.root + "/.env") == "DB_PASSWORD=changed\n");
  }
}
