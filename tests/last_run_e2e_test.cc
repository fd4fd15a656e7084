// `last` is this workspace's latest run, and `undo` names the workspace it writes in and refuses
// one the caller is not in without --yes (docs/design.md, "The CLI"): through the built binary.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include "tests/e2e_support.h"
#include "tests/git_repo_fixture.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// A workspace whose out.txt holds `before`, and one `exec` run in it that writes `after` there.
struct OneRun {
  Env env;
  std::string run_id;

  OneRun(const std::string& store, const std::string& before, const std::string& after) {
    env.store = store;
    write_file(env.ws + "/out.txt", before);
    json step = {{"id", "s1"},
                 {"tool", "file_write"},
                 {"args", {{"path", "out.txt"}, {"content", after}}},
                 {"assert", {{{"type", "file_contains"}, {"path", "out.txt"}, {"text", after}}}}};
    json plan = {{"goal_kind", "modify"}, {"steps", {step}}, {"then", "finish"}, {"final_answer", "done"}};
    json run = parse_stdout(env.exec(env.plan_file(plan.dump()), {"--judge", "never"}));
    REQUIRE(run["verdict"] == "success");  // so that `verify` of it exits 0
    run_id = run["run_id"];
  }
};

std::string report_id(const CommandResult& r) {
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  return parse_stdout(r)["run_id"];
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("last is this workspace's latest run: report, verify and undo from A take A's run, not B's later one") {
    Env store_only;
    OneRun a(store_only.store, "A before\n", "A after\n");
    OneRun b(store_only.store, "B before\n", "B after\n");  // the store's latest run

    CHECK(report_id(a.env.candor({"report", "--json"})) == a.run_id);
    CHECK(report_id(a.env.candor({"report", "last", "--json"})) == a.run_id);
    CHECK(report_id(a.env.candor({"verify", "--json", "--judge", "never"})) == a.run_id);
    CHECK(report_id(a.env.candor({"report", "--any", "--json"})) == b.run_id);
    CHECK(report_id(a.env.candor({"verify", "--any", "--json", "--judge", "never"})) == b.run_id);
    CHECK(report_id(a.env.candor({"report", "-C", b.env.ws, "--json"})) == b.run_id);
    CHECK(report_id(a.env.candor({"verify", "-C", b.env.ws, "--json", "--judge", "never"})) == b.run_id);
    // An id names its run from anywhere.
    CHECK(report_id(a.env.candor({"report", b.run_id, "--json"})) == b.run_id);

    auto undo = a.env.candor({"undo", "last"});
    CAPTURE(undo.err);
    CHECK(undo.exit_code == 0);
    CHECK(undo.out == fmt::format("undid run {} in {}: 1 restored\nrestored  out.txt\n", a.run_id, a.env.ws));
    CHECK(undo.err == "");
    CHECK(read_file(a.env.ws + "/out.txt") == "A before\n");
    CHECK(read_file(b.env.ws + "/out.txt") == "B after\n");
  }

  TEST_CASE("undo of another workspace's run is refused without --yes (exit 64, naming it) and done with it") {
    Env store_only;
    OneRun a(store_only.store, "A before\n", "A after\n");
    OneRun b(store_only.store, "B before\n", "B after\n");
    std::string refusal = fmt::format(
        "candor: run {} was made in {}, not in this workspace ({}): nothing was undone; --yes undoes it there\n",
        b.run_id, b.env.ws, a.env.ws);

    auto by_id = a.env.candor({"undo", b.run_id});
    CHECK(by_id.exit_code == 64);
    CHECK(by_id.out == "");
    CHECK(by_id.err == refusal);
    auto by_any = a.env.candor({"undo", "last", "--any"});
    CHECK(by_any.exit_code == 64);
    CHECK(by_any.out == "");
    CHECK(by_any.err == refusal);
    CHECK(read_file(b.env.ws + "/out.txt") == "B after\n");
    CHECK(read_file(a.env.ws + "/out.txt") == "A after\n");
    CHECK(parse_stdout(a.env.candor({"report", b.run_id, "--json"})).count("undone") == 0);

    auto yes = a.env.candor({"undo", b.run_id, "--yes"});
    CAPTURE(yes.err);
    CHECK(yes.exit_code == 0);
    CHECK(yes.out == fmt::format("undid run {} in {}: 1 restored\nrestored  out.txt\n", b.run_id, b.env.ws));
    CHECK(read_file(b.env.ws + "/out.txt") == "B before\n");
    CHECK(read_file(a.env.ws + "/out.txt") == "A after\n");

    // -C names the workspace the caller means: B's run is then its own, and was undone already.
    auto again = a.env.candor({"undo", b.run_id, "-C", b.env.ws});
    CHECK(again.exit_code == 0);
    CHECK(again.out.find(fmt::format("run {} was already undone at ", b.run_id)) == 0);
    CHECK(again.out.find(fmt::format("(1 restored, 0 removed in {}); nothing to do", b.env.ws)) != std::string::npos);
  }

  TEST_CASE("a folder with no run: report, verify and undo say so, naming the folder and --any (exit 65)") {
    Env store_only;
    OneRun b(store_only.store, "B before\n", "B after\n");
    std::string empty = make_temp_dir("no-runs");
    std::string says = fmt::format(
        "candor: no run recorded for this workspace ({}) in {}: --any takes the store's latest run (`candor runs` "
        "lists them all)\n",
        empty, b.env.store);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"report"},
                                                 {"verify", "--judge", "never"},
                                                 {"undo", "last"},
                                                 {"report", "last", "-C", empty}}) {
      CAPTURE(args.front());
      auto r = b.env.candor(args, empty);
      CHECK(r.exit_code == 65);
      CHECK(r.out == "");
      CHECK(r.err == says);
    }
    CHECK(report_id(b.env.candor({"report", "--any", "--json"}, empty)) == b.run_id);
    CHECK(read_file(b.env.ws + "/out.txt") == "B after\n");

    // A run's workspace is its own folder: a subfolder is another workspace (an exec run is not).
    auto below = b.env.candor({"report"}, b.env.ws + "/css");
    CHECK(below.exit_code == 65);
    CHECK(below.err.find("no run recorded for this workspace (" + b.env.ws + "/css)") != std::string::npos);

    Env fresh;
    auto none = fresh.candor({"report"});
    CHECK(none.exit_code == 65);
    CHECK(none.err == fmt::format("candor: no runs recorded in {}\n", fresh.store));
  }

  TEST_CASE("a verify --git run is last in every folder of its repository") {
    Repo repo;
    repo.edit("css/style.css", "background: #ffffff;", "background: #006400;");
    repo.commit("dark green");
    json run = parse_stdout(repo.verify("HEAD~1..HEAD", {"--judge", "never", "--json"}));
    std::string id = run["run_id"];
    CHECK(report_id(repo.candor({"report", "--json"}, repo.ws + "/css")) == id);
    CHECK(report_id(repo.candor({"report", "--json"})) == id);
  }
}
