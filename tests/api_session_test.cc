// The installed API (include/candor/) in process: a plan run through candor::api::Session comes
// back as candor's own value types, and a value out of range is refused before any run.
#include <doctest/doctest.h>

#include <candor/candor.h>

#include "store/run_store.h"
#include "tests/e2e_support.h"

using namespace candor::testing;
using nlohmann::json;

namespace {

// A plan that turns the page's background dark green and proves it.
const json kGreen = {
    {"goal_kind", "modify"},
    {"steps",
     {{{"id", "s1"},
       {"tool", "file_patch"},
       {"args",
        {{"path", "css/style.css"},
         {"edits", {{{"find", "background: #ffffff;"}, {"replace", "background: #006400;"}}}}}},
       {"assert", {{{"type", "file_contains"}, {"path", "css/style.css"}, {"text", "background: #006400;"}}}}}}},
    {"then", "finish"}};

// Hears the events and the steps as the public Observer is told them.
class Heard final : public candor::api::Observer {
 public:
  void event(std::int64_t seq, const std::string& type, const json& /*data*/) override {
    types.push_back(type);
    seqs.push_back(seq);
  }
  void step_started(const std::string& step, const std::string& tool) override { started.push_back(step + " " + tool); }
  void step_finished(const std::string& step, bool ok) override { finished.push_back(step + (ok ? " ok" : " failed")); }
  std::vector<std::string> types, started, finished;
  std::vector<std::int64_t> seqs;
};

std::size_t runs_in(const std::string& store_dir) {
  auto store = candor::store::RunStore::open(store_dir);
  REQUIRE(store.ok());
  auto runs = (*store)->list(100);
  REQUIRE(runs.ok());
  return runs->size();
}

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("the installed API: exec returns candor::api's values, the report's verdict is the enumeration's") {
    Env env;
    Heard heard;
    candor::api::Session session(&heard);
    candor::api::ExecRequest request;
    request.plan_file = env.plan_file(kGreen.dump());
    request.judge = candor::api::JudgePolicy::kNever;
    request.workspace.workspace = env.ws;
    request.workspace.store_dir = env.store;
    auto result = session.exec(request);
    if (!result.ok()) FAIL(result.error().message);
    CHECK(result->verdict == candor::api::Verdict::kSuccess);
    CHECK(result->exit == candor::api::ExitCategory::kSuccess);
    CHECK(result->status == candor::api::RunStatus::kCompleted);
    CHECK(result->verdict_by == "tier1");
    CHECK(result->report["verdict"] == candor::api::to_string(result->verdict));
    CHECK(result->report["run_id"] == result->run_id);
    CHECK_FALSE(result->store_error);
    CHECK_FALSE(result->judge.asked);
    CHECK(heard.started == std::vector<std::string>{"s1 file_patch"});
    CHECK(heard.finished == std::vector<std::string>{"s1 ok"});
    REQUIRE_FALSE(heard.types.empty());
    CHECK(heard.types.front() == "run_started");
    CHECK(std::find(heard.types.begin(), heard.types.end(), "tool_called") != heard.types.end());
    CHECK(runs_in(env.store) == 1);
  }

  TEST_CASE("the installed API: an enumeration out of range is a usage error naming the field, and nothing runs") {
    struct Row {
      const char* name;
      std::function<void(candor::api::ExecRequest&)> spoil;
      const char* field;
    };
    const Row rows[] = {
        {"judge", [](auto& r) { r.judge = static_cast<candor::api::JudgePolicy>(7); }, "ExecRequest.judge: 7"},
        {"kind", [](auto& r) { r.workspace.kind = static_cast<candor::api::GoalKind>(-1); },
         "ExecRequest.workspace.kind: -1"},
    };
    for (const Row& row : rows) {
      CAPTURE(row.name);
      Env env;
      candor::api::Session session;
      candor::api::ExecRequest request;
      request.plan_file = env.plan_file(kGreen.dump());
      request.workspace.workspace = env.ws;
      request.workspace.store_dir = env.store;
      row.spoil(request);
      auto result = session.exec(request);
      REQUIRE_FALSE(result.ok());
      CHECK(result.error().code == "usage");
      CHECK(result.error().exit == candor::api::ExitCategory::kUsage);
      CHECK(result.error().message.find(row.field) != std::string::npos);
      CHECK(read_file(env.ws + "/css/style.css").find("#006400") == std::string::npos);
    }
    candor::api::VerifyRequest verify;
    verify.judge = static_cast<candor::api::JudgePolicy>(3);
    auto verified = candor::api::Session().verify(verify);
    REQUIRE_FALSE(verified.ok());
    CHECK(verified.error().message.find("VerifyRequest.judge: 3 is not a JudgePolicy") != std::string::npos);
    CHECK(std::string(candor::api::to_string(static_cast<candor::api::Verdict>(9))) == "?");
  }
}
