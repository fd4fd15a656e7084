// app::Session in process: what its observer hears, cancel() from another thread, and the one
// pipeline that ends `run`, `exec` and `verify --git` (the judge's time rule, its events).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "app/session.h"
#include "store/run_store.h"
#include "tests/e2e_support.h"
#include "tests/fake_provider.h"
#include "tests/git_repo_fixture.h"

using namespace candor;
using namespace candor::testing;
using nlohmann::json;

namespace {

// Everything the session tells its observer, in order, from the run's thread.
class RecordingObserver final : public app::RunObserver {
 public:
  void round_started(int round, std::size_t steps) override {
    add("round " + std::to_string(round) + " " + std::to_string(steps));
  }
  void step_started(const StepRecord& step) override {
    add("step " + step.id);
    if (step.tool == "shell") shell_started.store(true);
  }
  void step_finished(const StepRecord& step, const std::vector<AssertionRecord>& /*assertions*/) override {
    add("done " + step.id);
  }
  void wait_started(WaitKind kind) override { add("wait " + std::to_string(static_cast<int>(kind))); }
  void wait_finished(WaitKind kind) override { add("waited " + std::to_string(static_cast<int>(kind))); }
  void set_masker(std::shared_ptr<const SecretMasker> masker) override {
    add(masker != nullptr ? "masker" : "no masker");
  }
  void event(const Event& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    events.push_back(e.type);
  }
  void warning(const std::string& message) override { add("warning " + message); }
  void run_starting() override { add("run_starting"); }
  void steps_ended() override { add("steps_ended"); }

  bool heard(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    return std::find(calls.begin(), calls.end(), line) != calls.end();
  }
  std::ptrdiff_t index_of(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    return std::find(calls.begin(), calls.end(), line) - calls.begin();
  }

  std::vector<std::string> calls;
  std::vector<std::string> events;
  std::atomic<bool> shell_started{false};

 private:
  void add(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    calls.push_back(line);
  }
  std::mutex mu_;
};

// A provider the test keeps: the session's factory hands out a borrowing wrapper, so the test
// reads what the fake was asked after the call.
class Borrowed final : public llm::Provider {
 public:
  explicit Borrowed(FakeProvider& fake) : fake_(fake) {}
  Result<llm::Reply> complete(const llm::Request& request) override { return fake_.complete(request); }
  std::string describe() const override { return fake_.describe(); }

 private:
  FakeProvider& fake_;
};

app::ProviderFactory fake_factory(FakeProvider& fake) {
  return [&fake](const std::string& spec, const llm::ProviderOptions&) -> Result<std::unique_ptr<llm::Provider>> {
    if (spec != "fake") return make_error(ErrorCode::kUsage, "unexpected provider " + spec);
    return std::unique_ptr<llm::Provider>(std::make_unique<Borrowed>(fake));
  };
}

app::WorkspaceOptions workspace_of(const Env& env) {
  app::WorkspaceOptions o;
  o.workspace = env.ws;
  o.store_dir = env.store;
  return o;
}

store::StoredRun stored_run(const std::string& store_dir, const std::string& id) {
  auto store = store::RunStore::open(store_dir);
  REQUIRE(store.ok());
  auto run = (*store)->load(id);
  REQUIRE(run.ok());
  return *run;
}

std::vector<std::string> event_types(const store::StoredRun& run) {
  std::vector<std::string> types;
  for (const auto& e : run.events) types.push_back(e.type);
  return types;
}

int count(const std::vector<std::string>& types, const std::string& type) {
  return static_cast<int>(std::count(types.begin(), types.end(), type));
}

const json kGreenPatch = {
    {"goal_kind", "modify"},
    {"questions", {"Is the background dark green?"}},
    {"steps",
     {{{"id", "s1"},
       {"tool", "file_patch"},
       {"args", {{"path", "css/style.css"}, {"edits", {{{"find", "#ffffff"}, {"replace", "#006400"}}}}}}}}},
    {"then", "finish"}};

json sleeping_plan(int seconds) {
  return {{"goal_kind", "modify"},
          {"steps", {{{"id", "s1"}, {"tool", "shell"}, {"args", {{"command", "sleep " + std::to_string(seconds)}}}}}},
          {"then", "finish"}};
}

// The judge's two replies: the questions fixed from the goal, then the answers.
const std::deque<std::string> kJudgeReplies = {
    R"({"questions": ["Is the page background dark green?"]})",
    R"({"answers": [{"question": 1, "answer": "yes", "reason": "#006400"}, {"question": 2, "answer": "yes", "reason": ""}]})"};

// The requests of the judge (the goal-only call that fixes its questions, the answers).
int judge_calls(const FakeProvider& fake) {
  int n = 0;
  for (const auto& r : fake.seen) n += r.role == "judge" || r.role == "judge_questions" || r.role == "judge_repair";
  return n;
}

// Every judge request was bounded by what the run's time budget left (`budget`): the goal-only
// call a third of it, the answers the rest.
void check_judge_deadlines(const FakeProvider& fake, std::chrono::seconds budget) {
  int judged = 0;
  for (const auto& r : fake.seen) {
    if (r.role != "judge" && r.role != "judge_questions") continue;
    ++judged;
    CAPTURE(r.role);
    CHECK(r.deadline <= budget);
    if (r.role == "judge") CHECK(r.deadline > budget / 2);
  }
  CHECK(judged == 2);
}

}  // namespace

TEST_SUITE("app") {
  TEST_CASE("Session::exec: the observer hears the masker, the round, each step and every event as it is stored") {
    Env env;
    RecordingObserver observer;
    app::Session session(&observer);
    app::ExecRequest request;
    request.plan_file = env.plan_file(kGreenPatch.dump());
    request.judge = "never";
    request.workspace = workspace_of(env);
    auto result = session.exec(request);
    REQUIRE(result.ok());
    CHECK(result->exit == app::exit_category(result->decision.verdict));
    CHECK(observer.heard("masker"));
    CHECK(observer.heard("round 1 1"));
    CHECK(observer.index_of("run_starting") < observer.index_of("step s1"));
    CHECK(observer.index_of("step s1") < observer.index_of("done s1"));
    CHECK(observer.index_of("done s1") < observer.index_of("steps_ended"));
    store::StoredRun run = stored_run(env.store, result->facts.run_id);
    CHECK(observer.events == event_types(run));  // each event, as the store has it
    REQUIRE_FALSE(observer.events.empty());
    CHECK(observer.events.front() == "run_started");
    CHECK(count(observer.events, "run_ended") == 1);
    CHECK(run.summary.verdict == to_string(result->decision.verdict));
    CHECK(result->report["verdict"] == run.report["verdict"]);
  }

  TEST_CASE("Session::run with a fake provider: the planner's wait and the judge's are heard; the report is stored") {
    Env env;
    FakeProvider fake;
    fake.replies = {kGreenPatch.dump()};
    fake.replies.insert(fake.replies.end(), kJudgeReplies.begin(), kJudgeReplies.end());
    RecordingObserver observer;
    app::Session session(&observer, fake_factory(fake));
    app::RunRequest request;
    request.goal = "Change the background to dark green";
    request.llm = "fake";
    request.judge = "always";
    request.workspace = workspace_of(env);
    auto result = session.run(request);
    REQUIRE(result.ok());
    CHECK(fake.seen.front().role == "planner");
    CHECK(observer.heard("wait " + std::to_string(static_cast<int>(WaitKind::kPlanner))));
    CHECK(observer.heard("wait " + std::to_string(static_cast<int>(WaitKind::kJudge))));
    CHECK(observer.index_of("steps_ended") <
          observer.index_of("wait " + std::to_string(static_cast<int>(WaitKind::kJudge))));
    CHECK(result->judge.asked);
    CHECK(result->judge.answered);
    CHECK(result->judge_provider == "fake");
    CHECK(result->exit == app::ExitCategory::kSuccess);
    store::StoredRun run = stored_run(env.store, result->facts.run_id);
    CHECK(observer.events == event_types(run));
    CHECK(run.summary.verdict == "success");
  }

  TEST_CASE("Session: a judge policy that is not one of auto, always, never is a usage error before any work") {
    Env env;
    FakeProvider fake;
    fake.replies = {kGreenPatch.dump()};
    app::Session session(nullptr, fake_factory(fake));
    app::RunRequest run;
    run.goal = "Change the background to dark green";
    run.llm = "fake";
    run.judge = "Always";  // an embedder's spelling: once undefined behaviour after the whole run
    run.workspace = workspace_of(env);
    auto ran = session.run(run);
    REQUIRE_FALSE(ran.ok());
    CHECK(ran.error().code == ErrorCode::kUsage);
    CHECK(ran.error().message ==
          "RunRequest.judge: \"Always\" is no judge policy (expected one of: auto, always, never)");
    CHECK(fake.seen.empty());  // the planner was never asked
    auto store = store::RunStore::open(env.store);
    REQUIRE(store.ok());
    CHECK((*store)->list(10, "", "")->empty());  // nothing recorded

    app::ExecRequest exec;
    exec.plan_file = env.ws + "/no-such-plan.json";
    exec.judge = "sometimes";
    exec.workspace = workspace_of(env);
    auto execd = session.exec(exec);
    REQUIRE_FALSE(execd.ok());
    CHECK(execd.error().message.find("ExecRequest.judge: \"sometimes\"") == 0);

    app::VerifyRequest verify;
    verify.store_dir = env.store;
    verify.judge = "yes";
    auto verified = session.verify(verify);
    REQUIRE_FALSE(verified.ok());
    CHECK(verified.error().message.find("VerifyRequest.judge: \"yes\"") == 0);

    app::VerifyGitRequest git;
    git.range = "HEAD";
    git.judge = "no";
    auto gitd = session.verify_git(git);
    REQUIRE_FALSE(gitd.ok());
    CHECK(gitd.error().message.find("VerifyGitRequest.judge: \"no\"") == 0);
    // The names every request takes, which the CLI's --judge lists too.
    CHECK(app::judge_policy_names() == std::vector<std::string>{"auto", "always", "never"});
  }

  TEST_CASE("Session::cancel from another thread: the run winds down, is verified and recorded, and ends kCancelled") {
    Env env;
    FakeProvider fake;
    fake.replies = {sleeping_plan(30).dump()};
    RecordingObserver observer;
    app::Session session(&observer, fake_factory(fake));
    app::RunRequest request;
    request.goal = "Wait for a long time";
    request.llm = "fake";
    request.judge = "never";
    request.workspace = workspace_of(env);
    std::thread canceller([&] {
      for (int i = 0; i < 400 && !observer.shell_started.load(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      session.cancel();
    });
    auto started = std::chrono::steady_clock::now();
    auto result = session.run(request);
    canceller.join();
    REQUIRE(observer.shell_started.load());
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));  // the sleep was stopped
    REQUIRE(result.ok());
    CHECK(session.cancelled());
    CHECK(result->exit == app::ExitCategory::kCancelled);
    CHECK(result->facts.status == RunStatus::kCancelled);
    store::StoredRun run = stored_run(env.store, result->facts.run_id);
    CHECK(run.summary.status == "cancelled");
    CHECK_FALSE(run.summary.verdict.empty());
    CHECK(run.report.is_object());
    CHECK(count(event_types(run), "run_ended") == 1);
  }

  TEST_CASE(
      "run and exec end through one pipeline: the judge has what the time budget left, and is not asked under a "
      "second") {
    SUBCASE("exec, time left") {
      Env env;
      FakeProvider fake;
      fake.replies = kJudgeReplies;
      app::Session session(nullptr, fake_factory(fake));
      app::ExecRequest request;
      request.plan_file = env.plan_file(kGreenPatch.dump());
      request.llm = "fake";
      request.judge = "always";
      request.workspace = workspace_of(env);
      request.workspace.timeout_s = 30;
      auto result = session.exec(request);
      REQUIRE(result.ok());
      CHECK(result->judge.answered);
      check_judge_deadlines(fake, std::chrono::seconds(30));
      std::vector<std::string> types = event_types(stored_run(env.store, result->facts.run_id));
      CHECK(count(types, "llm_call") == 2);
      CHECK(count(types, "judge") == 1);
    }
    SUBCASE("run, time left") {
      Env env;
      FakeProvider fake;
      fake.replies = {kGreenPatch.dump()};
      fake.replies.insert(fake.replies.end(), kJudgeReplies.begin(), kJudgeReplies.end());
      app::Session session(nullptr, fake_factory(fake));
      app::RunRequest request;
      request.goal = "Change the background to dark green";
      request.llm = "fake";
      request.judge = "always";
      request.workspace = workspace_of(env);
      request.workspace.timeout_s = 30;
      auto result = session.run(request);
      REQUIRE(result.ok());
      CHECK(result->judge.answered);
      check_judge_deadlines(fake, std::chrono::seconds(30));
      std::vector<std::string> types = event_types(stored_run(env.store, result->facts.run_id));
      CHECK(count(types, "llm_call") == 3);  // the planner's, then the judge's two
      CHECK(count(types, "judge") == 1);
    }
    SUBCASE("exec, under a second left") {
      Env env;
      FakeProvider fake;
      fake.replies = kJudgeReplies;
      app::Session session(nullptr, fake_factory(fake));
      app::ExecRequest request;
      request.plan_file = env.plan_file(sleeping_plan(5).dump());
      request.llm = "fake";
      request.judge = "always";
      request.workspace = workspace_of(env);
      request.workspace.timeout_s = 1;
      auto result = session.exec(request);
      REQUIRE(result.ok());
      CHECK(judge_calls(fake) == 0);
      CHECK(result->judge.asked);
      CHECK_FALSE(result->judge.answered);
      CHECK(result->judge.error == "the time budget ran out before the judge could be asked");
      CHECK(count(event_types(stored_run(env.store, result->facts.run_id)), "judge") == 1);

      // `verify RUN` is a new process after the run: the judge has the run's whole budget again.
      FakeProvider later;
      later.replies = kJudgeReplies;
      app::Session again(nullptr, fake_factory(later));
      auto verified = again.verify({.run = result->facts.run_id,
                                    .store_dir = env.store,
                                    .judge = "always",
                                    .llm = "fake",
                                    .acceptance_file = "",
                                    .workspace = "",
                                    .any = false});
      REQUIRE(verified.ok());
      CHECK(judge_calls(later) == 2);
      CHECK(verified->judge.answered);
    }
    SUBCASE("run, under a second left") {
      Env env;
      FakeProvider fake;
      fake.replies = {sleeping_plan(5).dump()};
      fake.replies.insert(fake.replies.end(), kJudgeReplies.begin(), kJudgeReplies.end());
      app::Session session(nullptr, fake_factory(fake));
      app::RunRequest request;
      request.goal = "Wait for a long time";
      request.llm = "fake";
      request.judge = "always";
      request.workspace = workspace_of(env);
      request.workspace.timeout_s = 1;
      auto result = session.run(request);
      REQUIRE(result.ok());
      CHECK(judge_calls(fake) == 0);  // the planner's only (the step failed: it was asked again)
      CHECK(result->facts.budget.exhausted == BudgetKind::kTimeout);
      CHECK(result->judge.asked);
      CHECK(result->judge.error == "the time budget ran out before the judge could be asked");
    }
  }

  TEST_CASE(
      "verify_git ends through the same pipeline: the judge has the budget's time, its calls are recorded as a run's") {
    Repo repo;
    repo.edit("css/style.css", "#ffffff", "#006400");
    repo.commit("dark green");
    FakeProvider fake;
    fake.replies = kJudgeReplies;
    RecordingObserver observer;
    app::Session session(&observer, fake_factory(fake));
    app::VerifyGitRequest request;
    request.range = "HEAD~1..HEAD";
    request.repo = repo.ws;
    request.goal = "Change the background to dark green";
    request.store_dir = repo.store;
    request.judge = "always";
    request.llm = "fake";
    auto result = session.verify_git(request);
    REQUIRE(result.ok());
    CHECK(result->judge.answered);
    check_judge_deadlines(fake, std::chrono::seconds(BudgetLimits{}.timeout_s));
    store::StoredRun run = stored_run(repo.store, result->facts.run_id);
    std::vector<std::string> types = event_types(run);
    CHECK(count(types, "llm_call") == 2);
    CHECK(count(types, "judge_questions") == 1);
    CHECK(count(types, "judge") == 1);
    CHECK(observer.events == types);
    CHECK(run.summary.verdict == to_string(result->decision.verdict));
    CHECK(json(result->facts.source) == "git");
  }
}
