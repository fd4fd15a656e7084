#include <doctest/doctest.h>

#include <chrono>

#include <fmt/format.h>

#include "executor/tool.h"
#include "tests/http_server.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::read_file;
using candor::testing::write_file;
using nlohmann::json;

namespace {

struct ToolFixture {
  std::string root = make_temp_dir("tools");
  std::unique_ptr<sandbox::Workspace> ws;
  executor::ToolRegistry tools = executor::builtin_tools();
  net::NetworkPolicy network;
  ToolFixture() {
    write_file(root + "/css/style.css", "body {\n  background: #ffffff;\n  color: #222;\n}\n");
    write_file(root + "/index.html", "<link href=\"css/style.css\">\n<p>background</p>\n");
    write_file(root + "/img.bin", std::string("\0\1background", 12));
    ws = std::move(sandbox::Workspace::open(root).value());
  }
  executor::ToolResult run(const std::string& tool, const json& args, std::size_t cap = kDefaultOutputCap) {
    executor::ToolContext ctx{*ws, network, cap, std::chrono::milliseconds(60000)};
    return tools.find(tool)->run(args, ctx);
  }
};

}  // namespace

TEST_SUITE("executor") {
  TEST_CASE("the registry carries each tool's read_only and effect flags") {
    executor::ToolRegistry tools = executor::builtin_tools();
    struct Row {
      const char* name;
      bool read_only, effect;
    };
    for (const auto& row : std::vector<Row>{{"file_read", true, false},
                                            {"file_list", true, false},
                                            {"file_search", true, false},
                                            {"file_write", false, true},
                                            {"file_patch", false, true},
                                            {"file_delete", false, true},
                                            {"shell", false, false},
                                            {"http_get", true, false},
                                            {"git_status", true, false},
                                            {"git_diff", true, false},
                                            {"git_log", true, false},
                                            {"git_commit", false, true}}) {
      CAPTURE(row.name);
      const auto* t = tools.find(row.name);
      REQUIRE(t != nullptr);
      CHECK(t->read_only() == row.read_only);
      CHECK(t->effect() == row.effect);
    }
    CHECK(tools.tools().size() == 12);
  }

  TEST_CASE("file_read returns content or a line range") {
    ToolFixture f;
    CHECK(f.run("file_read", {{"path", "css/style.css"}}).output ==
          "body {\n  background: #ffffff;\n  color: #222;\n}\n");
    CHECK(f.run("file_read", {{"path", "css/style.css"}, {"offset", 2}, {"limit", 2}}).output ==
          "  background: #ffffff;\n  color: #222;\n");
    auto capped = f.run("file_read", {{"path", "css/style.css"}}, 10);
    CHECK(capped.output_truncated);
    CHECK(capped.output_bytes == 47);
    CHECK(capped.output.find("[output truncated: 47 bytes in total, the first 10 shown]") != std::string::npos);
    auto missing = f.run("file_read", {{"path", "nope.css"}});
    CHECK_FALSE(missing.ok);
    CHECK(missing.error == "nope.css: no such file or directory");
  }

  TEST_CASE("file_read says when a line range lies past the 16 MiB it reads") {
    ToolFixture f;
    // 200,000 lines of 100 bytes: the first 16 MiB hold 167,772 whole lines and part of the next.
    auto line = [](int i) { return fmt::format("{:099}\n", i); };
    std::string big;
    for (int i = 1; i <= 200000; ++i) big += line(i);
    write_file(f.root + "/big.txt", big);

    auto beyond = f.run("file_read", {{"path", "big.txt"}, {"offset", 190000}, {"limit", 5}});
    CHECK_FALSE(beyond.ok);
    CHECK(beyond.error ==
          "big.txt: line 190000 lies beyond the first 16 MiB, the most file_read reads "
          "(the file is 20000000 bytes; those 16 MiB hold 167772 whole lines)");
    auto split = f.run("file_read", {{"path", "big.txt"}, {"offset", 167773}, {"limit", 1}});
    CHECK_FALSE(split.ok);  // the line the cap cuts in two is not returned as if whole

    auto across = f.run("file_read", {{"path", "big.txt"}, {"offset", 167771}, {"limit", 5}});
    REQUIRE(across.ok);
    CHECK(across.output == line(167771) + line(167772) +
                               "\n[file_read stopped after line 167772: the file is 20000000 bytes and file_read "
                               "reads only the first 16 MiB]");
    CHECK(across.output_truncated);
    auto inside = f.run("file_read", {{"path", "big.txt"}, {"offset", 167771}, {"limit", 2}});
    CHECK(inside.output == line(167771) + line(167772));
    CHECK_FALSE(inside.output_truncated);

    auto whole = f.run("file_read", {{"path", "big.txt"}});
    REQUIRE(whole.ok);
    CHECK(whole.output.find("[file_read stopped after line 167772: the file is 20000000 bytes") != std::string::npos);
  }

  TEST_CASE("file_list shows files with sizes and directories with a slash") {
    ToolFixture f;
    auto r = f.run("file_list", {{"path", "."}});
    REQUIRE(r.ok);
    CHECK(r.output == "css/\ncss/style.css  (47 bytes)\nimg.bin  (12 bytes)\nindex.html  (46 bytes)\n");
  }

  TEST_CASE("file_search matches lines with RE2, honours glob, skips binaries") {
    ToolFixture f;
    auto r = f.run("file_search", {{"pattern", "backgr[o]und"}});
    REQUIRE(r.ok);
    CHECK(r.output ==
          "css/style.css:2:   background: #ffffff;\nindex.html:2: <p>background</p>\n2 matches in 2 files searched (1 "
          "skipped: binary, unreadable or over 4 MiB)\n");
    auto css = f.run("file_search", {{"pattern", "background"}, {"glob", "*.css"}});
    CHECK(css.output.rfind("css/style.css:2:", 0) == 0);
    CHECK(css.output.find("index.html") == std::string::npos);
    auto bad = f.run("file_search", {{"pattern", "(unclosed"}});
    CHECK_FALSE(bad.ok);
    CHECK(bad.error.rfind("invalid RE2 pattern: missing )", 0) == 0);
    // A pattern that is exponential for a backtracking engine is linear in RE2.
    write_file(f.root + "/evil.txt", std::string(5000, 'a') + "!\n");
    auto evil = f.run("file_search", {{"pattern", "(a+)+$"}, {"glob", "evil.txt"}});
    CHECK(evil.ok);
    CHECK(evil.output.find("0 matches") != std::string::npos);
  }

  TEST_CASE("file_patch applies every edit or writes nothing") {
    ToolFixture f;
    std::string before = read_file(f.root + "/css/style.css");
    auto absent = f.run("file_patch", {{"path", "css/style.css"},
                                       {"edits",
                                        {{{"find", "color: #222;"}, {"replace", "color: #eee;"}},
                                         {{"find", "background: green;"}, {"replace", "x"}}}}});
    CHECK_FALSE(absent.ok);
    CHECK(absent.error == "edits[1].find occurs 0 times in css/style.css (expected 1); nothing was written");
    CHECK(read_file(f.root + "/css/style.css") == before);

    auto twice = f.run("file_patch", {{"path", "css/style.css"}, {"edits", {{{"find", "#"}, {"replace", "%"}}}}});
    CHECK_FALSE(twice.ok);
    CHECK(twice.error == "edits[0].find occurs 2 times in css/style.css (expected 1); nothing was written");
    auto counted =
        f.run("file_patch", {{"path", "css/style.css"}, {"edits", {{{"find", "#"}, {"replace", "%"}, {"count", 2}}}}});
    CHECK(counted.ok);
    CHECK(read_file(f.root + "/css/style.css") == "body {\n  background: %ffffff;\n  color: %222;\n}\n");

    auto noop = f.run("file_patch", {{"path", "css/style.css"}, {"edits", {{{"find", "body"}, {"replace", "body"}}}}});
    CHECK(noop.ok);
    CHECK(noop.output.find("nothing changed") != std::string::npos);
  }

  TEST_CASE("file_write and file_delete") {
    ToolFixture f;
    auto w = f.run("file_write", {{"path", "new/dir/a.txt"}, {"content", "hello"}});
    CHECK(w.ok);
    CHECK(w.output == "wrote 5 bytes to new/dir/a.txt");
    CHECK(read_file(f.root + "/new/dir/a.txt") == "hello");
    CHECK(f.run("file_delete", {{"path", "new/dir/a.txt"}}).ok);
    CHECK_FALSE(candor::testing::exists(f.root + "/new/dir/a.txt"));
    auto again = f.run("file_delete", {{"path", "new/dir/a.txt"}});
    CHECK_FALSE(again.ok);
    CHECK(again.error == "new/dir/a.txt: no such file or directory");
  }

  TEST_CASE("shell runs in the workspace and reports failures") {
    ToolFixture f;
    auto ok = f.run("shell", {{"command", "ls css && echo made > made.txt"}});
    CHECK(ok.ok);
    CHECK(ok.exit_code == 0);
    CHECK(ok.output == "style.css\n");
    CHECK(read_file(f.root + "/made.txt") == "made\n");
    auto bad = f.run("shell", {{"command", "echo no; exit 4"}});
    CHECK_FALSE(bad.ok);
    CHECK(bad.exit_code == 4);
    CHECK(bad.error == "exited with status 4");
    auto start = std::chrono::steady_clock::now();
    auto slow = f.run("shell", {{"command", "sleep 100"}, {"timeout_s", 1}});
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK_FALSE(slow.ok);
    CHECK(slow.timed_out);
    CHECK(slow.error.find("timed out after") == 0);
  }

  TEST_CASE("http_get reaches a loopback server and refuses other hosts without connecting") {
    candor::testing::LocalHttpServer server;
    ToolFixture f;
    auto ok = f.run("http_get", {{"url", server.url("/ok")}});
    REQUIRE(ok.ok);
    CHECK(ok.output == "HTTP 200\nhello from the test server");
    auto missing = f.run("http_get", {{"url", server.url("/missing")}});
    CHECK(missing.output.rfind("HTTP 404\n", 0) == 0);
    auto big = f.run("http_get", {{"url", server.url("/big")}}, 1000);
    CHECK(big.output_truncated);
    CHECK(big.output.find("200000 bytes in total") != std::string::npos);
    // TEST-NET-1: the policy refuses before any packet is sent.
    auto remote = f.run("http_get", {{"url", "http://192.0.2.1/"}});
    CHECK_FALSE(remote.ok);
    CHECK(remote.error == "192.0.2.1 is not a loopback address and is not allowed by the network policy");
    auto redirect = f.run("http_get", {{"url", server.url("/redirect")}});
    CHECK(redirect.output.rfind("HTTP 302", 0) == 0);  // not followed
    auto scheme = f.run("http_get", {{"url", "file:///etc/passwd"}});
    CHECK_FALSE(scheme.ok);
    CHECK(scheme.error == "only http and https URLs are allowed, got \"file\"");
  }
}
