// An executor over a fresh tiny_site() workspace, with a clock that moves only when told and a
// sink that records the events' types; the run loop over it with a scripted planner. What the
// executor, run-loop, goal-gate and reviewer tests start from.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executor/executor.h"
#include "executor/run_loop.h"
#include "planner/plan.h"
#include "planner/planner.h"
#include "tests/fake_provider.h"
#include "tests/test_support.h"

namespace candor::testing {

// Records what it was given; fails on demand (a full disk, a locked database).
class RecordingSink final : public EventSink {
 public:
  Status append(const std::string&, const Event& e) override {
    if (fail) return make_error(ErrorCode::kIo, "disk full");
    types.push_back(e.type);
    return ok_status();
  }
  std::vector<std::string> types;
  bool fail = false;
};

// REQUIREs that the workspace, the snapshot store and the executor's begin() succeed.
struct Harness {
  std::string root = make_workspace(tiny_site());
  std::string store = make_temp_dir("store");
  FakeClock clock;
  RecordingSink sink;
  Trajectory trajectory{"run1", clock, &sink};
  executor::ToolRegistry tools = executor::builtin_tools();
  assertions::Registry evaluators = assertions::builtin_evaluators();
  planner::Catalog catalog = executor::make_catalog(tools, evaluators);
  std::unique_ptr<sandbox::Workspace> ws;
  std::unique_ptr<snapshot::SnapshotStore> snaps;
  Deadline deadline;  // the run's time budget, on `clock`
  std::unique_ptr<executor::Executor> ex;

  explicit Harness(BudgetLimits limits = {}, ProgressObserver* progress = nullptr) {
    ws = std::move(sandbox::Workspace::open(root).value());
    snaps = std::move(snapshot::SnapshotStore::open(store, root, system_clock()).value());
    executor::ExecutorOptions options;
    options.limits = limits;
    deadline = Deadline::in_seconds(clock, limits.timeout_s);
    options.progress = progress;
    ex = std::make_unique<executor::Executor>(
        executor::ExecutorDeps{*ws, *snaps, tools, evaluators, clock, deadline, trajectory}, options);
    REQUIRE(ex->begin("run1", "goal").ok());
  }
  // A plan of `steps_json` (a JSON array) that ends with `finish`.
  planner::Plan plan(const std::string& steps_json) {
    auto p = planner::parse_plan(
        nlohmann::json{{"goal_kind", "modify"}, {"steps", nlohmann::json::parse(steps_json)}, {"then", "finish"}},
        catalog);
    REQUIRE(p.ok());
    return *p;
  }
  // The types of the events recorded so far, in order.
  std::vector<std::string> event_types() const {
    std::vector<std::string> out;
    for (const auto& e : trajectory.events()) out.push_back(e.type);
    return out;
  }
  // The events of `type` recorded so far.
  std::vector<Event> events(const std::string& type) const {
    std::vector<Event> out;
    for (const auto& e : trajectory.events()) {
      if (e.type == type) out.push_back(e);
    }
    return out;
  }
};

// Passes each request to `inner` after moving `clock` on by `per_call`: an LLM that takes that
// long to answer, in the run's time.
class TimedProvider final : public llm::Provider {
 public:
  TimedProvider(llm::Provider& inner, FakeClock& clock) : inner_(inner), clock_(clock) {}
  std::chrono::seconds per_call{0};
  Result<llm::Reply> complete(const llm::Request& request) override {
    clock_.advance(per_call);
    return inner_.complete(request);
  }
  std::string describe() const override { return inner_.describe(); }

 private:
  llm::Provider& inner_;
  FakeClock& clock_;
};

// The worker of `candor run`: a RunLoop over the harness whose planner's replies the test queues in
// `llm` (each costs 100 input and 10 output tokens; `planner_llm.per_call` of the run's time).
struct Worker {
  Harness h;
  FakeProvider llm;
  TimedProvider planner_llm{llm, h.clock};
  planner::Planner planner;
  executor::RunLoop loop;

  explicit Worker(BudgetLimits limits = {}, std::vector<nlohmann::json> expects = {},
                  planner::PlannerOptions options = {})
      : h(limits),
        planner(planner_llm, h.catalog, executor::recording_hooks(*h.ex, h.trajectory), options),
        loop(*h.ex, planner, *h.ws, h.trajectory, {"Make the background green", std::move(expects), {}, 200}) {}
};

// A planner reply: `steps` (a JSON array), then `then` ("finish" or "replan").
inline std::string plan_reply(const nlohmann::json& steps, const std::string& then,
                              const std::string& final_answer = "") {
  nlohmann::json j = {{"goal_kind", "modify"}, {"steps", steps}, {"then", then}};
  if (!final_answer.empty()) j["final_answer"] = final_answer;
  return j.dump();
}

// A step `id` that writes `content` to notes.txt and asserts that it then contains `expect`.
inline nlohmann::json write_notes_step(const std::string& id, const std::string& content, const std::string& expect) {
  return {{"id", id},
          {"tool", "file_write"},
          {"args", {{"path", "notes.txt"}, {"content", content}}},
          {"assert", nlohmann::json::array({{{"type", "file_contains"}, {"path", "notes.txt"}, {"text", expect}}})}};
}

}  // namespace candor::testing
