// End-to-end tests of reviewing runs: report formats, runs filters, verify, undo.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "report/escape.h"
#include "tests/e2e_support.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

std::string line(const json& reply) { return json{{"reply_json", reply}}.dump() + "\n"; }

json patch_plan(bool checked) {
  json step = {{"id", "s1"},
               {"tool", "file_patch"},
               {"args",
                {{"path", "css/style.css"},
                 {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}}};
  if (checked) step["assert"] = {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "#006400"}}};
  return {{"goal_kind", "modify"},
          {"questions", {"Dark green?", "Readable?"}},
          {"steps", {step}},
          {"then", "finish"},
          {"final_answer", "Done."}};
}

// Five runs in one store: success, partial (discovery), fail (claims done, changed nothing),
// ambiguous settled by the judge (partial by tier 2), reviewer exhausted (fail).
std::vector<json> five_runs(Env& env) {
  std::vector<json> out;
  out.push_back(parse_stdout(env.exec(example_plan("patch.json"))));
  out.push_back(parse_stdout(env.exec(example_plan("discover.json"))));
  std::string nothing = env.plan_file(
      R"({"goal_kind": "modify", "steps": [{"id": "s1", "tool": "file_list", "args": {}}], "then": "finish"})");
  out.push_back(parse_stdout(env.exec(nothing)));
  Env judged;
  judged.store = env.store;
  // The judge's questions come from a goal-only call; its third answer is the question candor appends.
  out.push_back(parse_stdout(
      judged.run("Make it green", line(patch_plan(false)) + line({{"questions", {"Dark green?", "Readable?"}}}) +
                                      line({{"answers",
                                             {{{"question", 1}, {"answer", "yes"}},
                                              {{"question", 2}, {"answer", "no"}, {"reason", "grey on green"}},
                                              {{"question", 3}, {"answer", "yes"}}}}}))));
  Env reviewed;
  reviewed.store = env.store;
  out.push_back(parse_stdout(reviewed.run(
      "Make it green", line(patch_plan(true)) + line({{"verdict", "fail"}, {"reason", "footer unreadable"}}),
      {"--criterion", "footer readable", "--max-goal-attempts", "1"})));
  return out;
}

}  // namespace

TEST_SUITE("e2e") {
  TEST_CASE("every format renders the same stored runs with their values") {
    Env env;
    std::vector<json> runs = five_runs(env);
    std::vector<std::string> verdicts, by;
    for (const auto& r : runs) {
      verdicts.push_back(r["verdict"]);
      by.push_back(r["verdict_by"]);
    }
    CHECK(verdicts == std::vector<std::string>{"success", "partial", "fail", "partial", "fail"});
    CHECK(by == std::vector<std::string>{"tier1", "tier1", "tier1", "tier2", "reviewer"});

    for (const auto& r : runs) {
      std::string id = r["run_id"];
      CAPTURE(id);
      auto md = env.candor({"report", id, "--markdown"});
      CHECK(md.exit_code == 0);
      CHECK(md.out.find("candor: **" + r["verdict"].get<std::string>() + "**") != std::string::npos);
      CHECK(md.out.find(report::markdown_text(r["reasons"][0].get<std::string>().substr(0, 40))) != std::string::npos);

      std::string xml = make_temp_dir("junit") + "/out.xml";
      CHECK(env.candor({"report", id, "--junit", xml}).exit_code == 0);
      std::string junit = read_file(xml);
      CHECK(junit.find("<property name=\"verdict\" value=\"" + r["verdict"].get<std::string>() + "\"/>") !=
            std::string::npos);
      bool has_failure = junit.find("<failure type=\"fail\"") != std::string::npos;
      bool has_error = junit.find("<error type=\"partial\"") != std::string::npos;
      CHECK(has_failure == (r["verdict"] == "fail"));
      CHECK(has_error == (r["verdict"] == "partial"));

      std::string html_path = make_temp_dir("html") + "/r.html";
      CHECK(env.candor({"report", id, "--html", html_path}).exit_code == 0);
      std::string html = read_file(html_path);
      CHECK(html.find("class=\"banner " + r["verdict"].get<std::string>() + "\"") != std::string::npos);
      CHECK(html.find("http://") == std::string::npos);
      CHECK(html.find("https://") == std::string::npos);
      CHECK(html.find("<script") == std::string::npos);
    }
    // Values specific to each run.
    CHECK(env.candor({"report", runs[0]["run_id"], "--markdown"})
              .out.find("| `css/style.css` | modified | +2 −2 | 206 → 206 | s3 |") != std::string::npos);
    std::string judged = env.candor({"report", runs[3]["run_id"], "--markdown"}).out;
    CHECK(judged.find("- **no** — Readable? (grey on green)") != std::string::npos);
    std::string reviewed = env.candor({"report", runs[4]["run_id"], "--markdown"}).out;
    CHECK(reviewed.find("- attempt 1: **fail** — footer unreadable") != std::string::npos);
    std::string html_path = make_temp_dir("html") + "/r.html";
    env.candor({"report", runs[0]["run_id"], "--html", html_path});
    std::string html = read_file(html_path);
    CHECK(html.find("<span class=\"add\">+  background: #006400;</span>") != std::string::npos);
    std::size_t rows = 0;
    for (std::size_t at = 0; (at = html.find("<tr class=\"step\">", at)) != std::string::npos; ++at) ++rows;
    CHECK(rows == 3);
    auto verbose = env.candor({"report", runs[0]["run_id"], "--verbose"});
    CHECK(verbose.out.find("    | body {") != std::string::npos);
  }

  TEST_CASE("runs: filtered by verdict and age, newest first, as JSON") {
    Env env;
    five_runs(env);
    json partial = parse_stdout(env.candor({"runs", "--verdict", "partial", "--json"}));
    CHECK(partial.size() == 2);
    for (const auto& r : partial) CHECK(r["verdict"] == "partial");
    CHECK(parse_stdout(env.candor({"runs", "--since", "1h", "--json"})).size() == 5);
    CHECK(parse_stdout(env.candor({"runs", "--since", "2030-01-01", "--json"})).empty());
    CHECK(parse_stdout(env.candor({"runs", "--limit", "2", "--json"})).size() == 2);
    auto bad = env.candor({"runs", "--since", "yesterday"});
    CHECK(bad.exit_code == 64);
    CHECK(env.candor({"runs", "--verdict", "meh"}).exit_code == 64);
  }

  TEST_CASE("verify recomputes the verdict from the record without the planner") {
    Env env;
    json run = parse_stdout(env.exec(example_plan("patch.json")));
    auto v = env.candor({"verify", run["run_id"], "--json"});
    CHECK(v.exit_code == 0);
    json j = parse_stdout(v);
    CHECK(j["verdict"] == run["verdict"]);
    CHECK(j["reasons"] == run["reasons"]);
    CHECK(j["mutations"] == run["mutations"]);
  }

  TEST_CASE(
      "undo restores added, modified and deleted files byte for byte with their mode; refuses after a later edit") {
    Env env;
    write_file(env.ws + "/run.sh", "#!/bin/sh\necho old\n");
    ::chmod((env.ws + "/run.sh").c_str(), 0755);
    write_file(env.ws + "/gone.txt", "I will be deleted\n");
    auto before = tree_contents(env.ws);
    std::string plan = env.plan_file(R"({"goal_kind": "modify", "steps": [
        {"id": "s1", "tool": "file_write", "args": {"path": "run.sh", "content": "#!/bin/sh\necho new\n"}},
        {"id": "s2", "tool": "file_delete", "args": {"path": "gone.txt"}},
        {"id": "s3", "tool": "file_write", "args": {"path": "sub/new.txt", "content": "added"}},
        {"id": "s4", "tool": "shell", "args": {"command": "chmod 644 run.sh"}}], "then": "finish"})");
    json run = parse_stdout(env.exec(plan));
    REQUIRE(run["mutations"].size() == 3);
    std::string id = run["run_id"];

    write_file(env.ws + "/sub/new.txt", "edited after the run");
    auto refused = env.candor({"undo", id});
    CHECK(refused.exit_code == 65);
    CHECK(refused.err.find("changed after run") != std::string::npos);
    CHECK(refused.err.find("sub/new.txt") != std::string::npos);
    CHECK(read_file(env.ws + "/sub/new.txt") == "edited after the run");

    auto forced = env.candor({"undo", id, "--force"});
    CHECK(forced.exit_code == 0);
    CHECK(forced.out.find("restored  run.sh") != std::string::npos);
    CHECK(forced.out.find("removed   sub/new.txt") != std::string::npos);
    auto after = tree_contents(env.ws);
    after.erase("sub/");  // the folder the run created stays (empty); files are what undo restores
    CHECK(after == before);
    struct stat st {};
    ::stat((env.ws + "/run.sh").c_str(), &st);
    CHECK((st.st_mode & 0777) == 0755);
  }

  TEST_CASE("undo right after a run needs no force") {
    Env env;
    json run = parse_stdout(env.exec(example_plan("patch.json")));
    std::string before = read_file(source_root() + "/examples/dark-green/site/css/style.css");
    CHECK(env.candor({"undo", run["run_id"]}).exit_code == 0);
    CHECK(read_file(env.ws + "/css/style.css") == before);
  }
}
