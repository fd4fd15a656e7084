#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assertions/builtins.h"
#include "assertions/evaluator.h"
#include "tests/http_server.h"
#include "tests/test_support.h"

using namespace candor;
using candor::testing::make_temp_dir;
using candor::testing::write_file;
using nlohmann::json;

namespace {

struct EvalFixture {
  std::string root = make_temp_dir("assert");
  std::unique_ptr<sandbox::Workspace> ws;
  assertions::Registry registry = assertions::builtin_evaluators();
  net::NetworkPolicy network;
  assertions::StepView step{"s1", "shell", "all 12 tests passed\n", 0};
  std::map<std::string, std::string> baseline{{"kept.txt", "same\n"}, {"edited.txt", "old\n"}, {"gone.txt", "bye\n"}};

  EvalFixture() {
    write_file(root + "/css/style.css", "body { background: #006400; }\n");
    write_file(root + "/kept.txt", "same\n");
    write_file(root + "/edited.txt", "new!\n");
    write_file(root + "/added.txt", "hi\n");
    ws = std::move(sandbox::Workspace::open(root).value());
  }
  assertions::Outcome eval(const json& a, bool with_step = true) {
    assertions::BaselineReader reader = [this](const std::string& p) -> Result<std::optional<std::string>> {
      auto it = baseline.find(p);
      if (it == baseline.end()) return std::optional<std::string>();
      return std::optional<std::string>(it->second);
    };
    return registry.evaluate(a, assertions::Context{*ws, network, with_step ? &step : nullptr, reader});
  }
};

struct Row {
  json assertion;
  bool passed;
  std::string message;
  std::string path;
};

}  // namespace

TEST_SUITE("assertions") {
  TEST_CASE("every built-in passes and fails with a message saying what was observed") {
    EvalFixture f;
    std::vector<Row> rows = {
        {{{"type", "file_exists"}, {"path", "css/style.css"}},
         true,
         "css/style.css exists (30 bytes)",
         "css/style.css"},
        {{{"type", "file_exists"}, {"path", "./css"}}, true, "./css exists (a directory)", "css"},
        {{{"type", "file_exists"}, {"path", "nope.css"}}, false, "nope.css does not exist", "nope.css"},
        {{{"type", "file_exists"}, {"path", "../x"}},
         false,
         "could not be checked: ../x: escapes the workspace",
         "../x"},
        {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}},
         true,
         "css/style.css contains \"#006400\" (1 time, first at line 1)",
         "css/style.css"},
        {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#ffffff"}},
         false,
         "css/style.css does not contain \"#ffffff\" (30 bytes read)",
         "css/style.css"},
        {{{"type", "file_contains"}, {"path", "nope.css"}, {"text", "x"}},
         false,
         "nope.css does not exist",
         "nope.css"},
        {{{"type", "file_not_contains"}, {"path", "css/style.css"}, {"text", "#ffffff"}},
         true,
         "css/style.css does not contain \"#ffffff\" (30 bytes read)",
         "css/style.css"},
        {{{"type", "file_not_contains"}, {"path", "css/style.css"}, {"text", "body"}},
         false,
         "css/style.css contains \"body\" (1 time, first at line 1)",
         "css/style.css"},
        {{{"type", "file_not_contains"}, {"path", "nope.css"}, {"text", "x"}},
         false,
         "nope.css does not exist",
         "nope.css"},
        {{{"type", "file_size_gt"}, {"path", "css/style.css"}, {"bytes", 10}},
         true,
         "css/style.css is 30 bytes (more than 10)",
         "css/style.css"},
        {{{"type", "file_size_gt"}, {"path", "css/style.css"}, {"bytes", 30}},
         false,
         "css/style.css is 30 bytes (not more than 30)",
         "css/style.css"},
        {{{"type", "file_unchanged"}, {"path", "kept.txt"}}, true, "kept.txt is unchanged (5 bytes)", "kept.txt"},
        {{{"type", "file_unchanged"}, {"path", "edited.txt"}},
         false,
         "edited.txt changed: 4 bytes before the run, 5 now",
         "edited.txt"},
        {{{"type", "file_unchanged"}, {"path", "added.txt"}},
         false,
         "added.txt did not exist before the run and exists now (3 bytes)",
         "added.txt"},
        {{{"type", "file_unchanged"}, {"path", "gone.txt"}},
         false,
         "gone.txt existed before the run (4 bytes) and is gone",
         "gone.txt"},
        {{{"type", "output_contains"}, {"text", "12 tests passed"}},
         true,
         "the output of s1 contains \"12 tests passed\"",
         ""},
        {{{"type", "output_contains"}, {"text", "FAILED"}},
         false,
         "the output of s1 (20 bytes) does not contain \"FAILED\"; it begins \"all 12 tests passed\\n\"",
         ""},
        {{{"type", "exit_code_eq"}, {"code", 0}}, true, "s1 exited with 0 (expected 0)", ""},
        {{{"type", "exit_code_eq"}, {"code", 1}}, false, "s1 exited with 0 (expected 1)", ""},
        {{{"type", "socket_open"}, {"port", 80}, {"host", "192.0.2.1"}},
         false,
         "192.0.2.1 is not a loopback host and the config does not allow it",
         ""},
        {{{"type", "http_200"}, {"url", "http://192.0.2.1/"}},
         false,
         "GET http://192.0.2.1/: 192.0.2.1 is not a loopback address and is not allowed by the network policy",
         ""},
        {{{"type", "file_containz"}, {"path", "a"}}, false, "unknown assertion type \"file_containz\"", ""},
        {{{"type", "file_contains"}, {"path", "a"}}, false, "assert.text: missing required string argument", ""},
    };
    for (const auto& row : rows) {
      CAPTURE(row.assertion.dump());
      auto o = f.eval(row.assertion);
      CHECK(o.passed == row.passed);
      CHECK(o.message == row.message);
      CHECK(o.path == row.path);
    }
  }

  TEST_CASE("a check that cannot be made is an error, never a failure that `not` turns into a pass") {
    EvalFixture f;
    REQUIRE(::symlink("/etc/passwd", (f.root + "/about.html").c_str()) == 0);
    REQUIRE(::mkdir((f.root + "/dir").c_str(), 0755) == 0);
    write_file(f.root + "/settings.py", "DEBUG = True\n");
    REQUIRE(::truncate((f.root + "/settings.py").c_str(), 17 << 20) == 0);  // padded past the read cap
    struct ErrorRow {
      json assertion;
      bool passed;
      bool error;
      std::string message_has;
    };
    json over_cap = {{"type", "file_contains"}, {"path", "settings.py"}, {"text", "DEBUG = True"}};
    json through_link = {{"type", "file_contains"}, {"path", "about.html"}, {"text", "root"}};
    json link_exists = {{"type", "file_exists"}, {"path", "about.html"}};
    std::vector<ErrorRow> rows = {
        {over_cap, false, true, "over the 16 MiB that content checks read"},
        {{{"type", "not"}, {"assertion", over_cap}}, false, true, "the inner check could not be made"},
        {{{"type", "file_not_contains"}, {"path", "settings.py"}, {"text", "DEBUG = True"}},
         false,
         true,
         "over the 16 MiB"},
        {through_link, false, true, "could not be checked"},
        {{{"type", "not"}, {"assertion", through_link}}, false, true, "could not be made"},
        {{{"type", "file_contains"}, {"path", "dir"}, {"text", "x"}}, false, true, "is a directory"},
        {{{"type", "file_size_gt"}, {"path", "dir"}, {"bytes", 0}}, false, true, "not a regular file"},
        // A link left where a file was deleted is no deletion: the entry exists, wherever it points.
        {link_exists, true, false, "about.html exists (a symbolic link)"},
        {{{"type", "not"}, {"assertion", link_exists}}, false, false, "it holds, so this fails"},
        // A missing file is an observation, not an error.
        {{{"type", "not"}, {"assertion", {{"type", "file_contains"}, {"path", "nope.py"}, {"text", "x"}}}},
         true,
         false,
         "does not exist"},
    };
    for (const auto& row : rows) {
      CAPTURE(row.assertion.dump());
      auto o = f.eval(row.assertion);
      CAPTURE(o.message);
      CHECK(o.passed == row.passed);
      CHECK(o.error == row.error);
      CHECK(o.message.find(row.message_has) != std::string::npos);
    }
  }

  TEST_CASE("which evaluators are positive evidence of content, and which are about their step") {
    assertions::Registry r = assertions::builtin_evaluators();
    auto on = [](const char* type) {
      return json{{"type", type}, {"path", "a"}, {"text", "x"}, {"bytes", 1}, {"pointer", "/a"}, {"value", 1}};
    };
    CHECK(r.proves_content({{"type", "file_contains"}, {"path", "a"}, {"text", "x"}}));
    CHECK(
        r.proves_content({{"type", "not"}, {"assertion", {{"type", "file_contains"}, {"path", "a"}, {"text", "x"}}}}));
    CHECK_FALSE(r.proves_content({{"type", "file_exists"}, {"path", "a"}}));
    CHECK_FALSE(r.proves_content({{"type", "not"}, {"assertion", {{"type", "file_exists"}, {"path", "a"}}}}));
    CHECK_FALSE(r.proves_content({{"type", "file_size_gt"}, {"path", "a"}, {"bytes", 0}}));
    CHECK_FALSE(r.proves_content({{"type", "json_valid"}, {"path", "a"}}));
    CHECK_FALSE(r.proves_content({{"type", "output_contains"}, {"text", "x"}}));
    CHECK(r.reads_step({{"type", "exit_code_eq"}, {"code", 0}}));
    CHECK(r.reads_step({{"type", "not"}, {"assertion", {{"type", "output_contains"}, {"text", "x"}}}}));
    CHECK_FALSE(r.reads_step(on("file_contains")));
  }

  TEST_CASE("step assertions need a step") {
    EvalFixture f;
    auto o = f.eval({{"type", "exit_code_eq"}, {"code", 0}}, false);
    CHECK_FALSE(o.passed);
    CHECK(o.message == "exit_code_eq needs a step; it cannot be a goal-level assertion");
    f.step.exit_code.reset();
    f.step.tool = "file_read";
    auto none = f.eval({{"type", "exit_code_eq"}, {"code", 0}});
    CHECK_FALSE(none.passed);
    CHECK(none.message == "s1 (file_read) has no exit code");
  }

  TEST_CASE("socket_open and http_200 against real loopback listeners") {
    EvalFixture f;
    candor::testing::LocalHttpServer server;
    auto open = f.eval({{"type", "socket_open"}, {"port", server.port()}});
    CHECK(open.passed);
    CHECK(open.message == "connected to 127.0.0.1:" + std::to_string(server.port()));
    // A port nobody listens on: bind one, then close it.
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    int closed_port = ntohs(addr.sin_port);
    ::close(fd);
    auto closed = f.eval({{"type", "socket_open"}, {"port", closed_port}});
    CHECK_FALSE(closed.passed);
    CHECK(closed.message == "cannot connect to 127.0.0.1:" + std::to_string(closed_port) + ": Connection refused");

    auto ok = f.eval({{"type", "http_200"}, {"url", server.url("/ok")}});
    CHECK(ok.passed);
    CHECK(ok.message == "GET " + server.url("/ok") + " returned 200");
    auto missing = f.eval({{"type", "http_200"}, {"url", server.url("/missing")}});
    CHECK_FALSE(missing.passed);
    CHECK(missing.message == "GET " + server.url("/missing") + " returned 404");
  }

  TEST_CASE("a type cannot be registered twice") {
    assertions::Registry r = assertions::builtin_evaluators();
    auto s = r.add(assertions::make_file_exists());
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "assertion type \"file_exists\" is already registered");
  }
}
