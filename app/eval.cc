#include "app/eval.h"

#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "app/eval_agent.h"
#include "app/eval_summary.h"
#include "app/eval_tasks.h"
#include "app/inputs.h"
#include "app/session.h"
#include "core/clock.h"
#include "sandbox/process.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

namespace fs = std::filesystem;

constexpr int kDefaultTimeoutS = 1800;
constexpr std::size_t kTranscriptCap = 64u << 20;

std::string now() { return format_timestamp(std::chrono::system_clock::now()); }

// `name` as the shell would find it on PATH; "" when it is not there.
std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t from = 0; from <= dirs.size();) {
    std::size_t end = dirs.find(':', from);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = (end > from ? dirs.substr(from, end - from) : std::string(".")) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    from = end + 1;
  }
  return "";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string last_lines(const std::string& text, std::size_t bytes = 600) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t.size() <= bytes ? t : "..." + t.substr(t.size() - bytes);
}

// A safe folder name for an agent (command:/usr/bin/x has slashes).
std::string folder_name(const std::string& agent) {
  std::string out;
  for (char c : agent) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out;
}

sandbox::ProcessSpec process(std::vector<std::string> argv, const std::string& cwd, std::chrono::seconds timeout) {
  sandbox::ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = cwd;
  spec.timeout = timeout;
  return spec;
}

// candor's environment without what reaches the store: the agent under evaluation never gets the
// team store's URL or libpq's credentials (it could write its own record), nor candor's store folder
// by name. Its own settings (API keys, base URLs, its home) pass.
std::vector<std::string> agent_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view v(*e);
    if (v.rfind("PG", 0) == 0 || v.rfind("CANDOR_STORE_URL=", 0) == 0 || v.rfind("CANDOR_HOME=", 0) == 0) continue;
    env.emplace_back(v);
  }
  return env;
}

struct Work {
  const EvalTask* task;
  int attempt;
};

struct Context {
  const EvalRequest& request;
  const EvalAgent& agent;
  std::string eval_id;
  std::string local_dir;  // this machine's store folder: transcripts go under eval/
  std::string machine;
  const EvalProgress& progress;
  std::mutex mutex;  // progress and the counters
  int done = 0, total = 0, infra = 0;
};

// A fresh checkout of repo@commit in `dir`: the commit id, or why it could not be made (the task's
// repository or commit, never the agent's doing).
Result<std::string> checkout(const EvalTask& task, const std::string& dir) {
  TRY(sandbox::ProcessResult cloned,
      // --no-hardlinks: a local clone hardlinks the objects, and an agent writing into one in place
      // (cp onto .git/objects/...) would rewrite the user's repository.
      sandbox::run_process(process({"git", "clone", "--quiet", "--no-checkout", "--no-hardlinks", "--", task.repo, dir},
                                   fs::path(dir).parent_path().string(), std::chrono::minutes(10))));
  if (cloned.exit_code != 0 || cloned.timed_out) {
    return make_error(ErrorCode::kNotFound,
                      fmt::format("cannot clone {}: {}", task.repo, last_lines(cloned.output.text())));
  }
  TRY(sandbox::ProcessResult checked,
      sandbox::run_process(
          process({"git", "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", task.commit, "--"}, dir,
                  std::chrono::minutes(10))));
  if (checked.exit_code != 0) {
    return make_error(ErrorCode::kNotFound, fmt::format("commit {} is not in {}: {}", task.commit, task.repo,
                                                        last_lines(checked.output.text())));
  }
  // The agent has no way back to the repository it came from (a remote it could push to, or move).
  TRY(sandbox::ProcessResult unlinked,
      sandbox::run_process(process({"git", "remote", "remove", "origin"}, dir, std::chrono::minutes(1))));
  (void)unlinked;
  TRY(sandbox::ProcessResult head,
      sandbox::run_process(process({"git", "rev-parse", "--verify", "HEAD"}, dir, std::chrono::minutes(1))));
  std::string sha = head.output.text();
  while (!sha.empty() && (sha.back() == '\n' || sha.back() == '\r')) sha.pop_back();
  if (head.exit_code != 0 || sha.size() < 40)
    return make_error(ErrorCode::kNotFound, "cannot read the checkout's HEAD");
  return sha;
}

void say(Context& cx, const store::EvalAttempt& a) {
  std::lock_guard lock(cx.mutex);
  ++cx.done;
  if (a.state == "infra_error") ++cx.infra;
  std::string what = a.state == "infra_error"
                         ? "infrastructure error (not the agent's): " + a.record.value("error", std::string())
                         : fmt::format("claimed {}, verified {}{}", a.claimed, a.verdict,
                                       a.record.value("first_finding", std::string()).empty()
                                           ? ""
                                           : " (" + a.record.value("first_finding", std::string()) + ")");
  if (cx.progress) cx.progress(fmt::format("[{}/{}] {} attempt {}: {}", cx.done, cx.total, a.task_id, a.attempt, what));
}

// One attempt, recorded as it goes. Errors are those of the store: the attempt's own failures are
// recorded in it.
Status run_attempt(Context& cx, const Work& w, store::RunStore& runs, Session& session) {
  const EvalTask& task = *w.task;
  store::EvalAttempt a{.eval_id = cx.eval_id, .task_id = task.id, .attempt = w.attempt, .agent = cx.agent.name};
  a.state = "running";
  a.machine = cx.machine;
  a.updated_at = now();
  TRY_STATUS(runs.put_eval_attempt(a));
  auto infra_error = [&](const std::string& why) -> Status {
    a.state = "infra_error";
    a.record = {{"error", why}};
    a.updated_at = now();
    TRY_STATUS(runs.put_eval_attempt(a));
    say(cx, a);
    return ok_status();
  };

  // The transcript stays in this machine's store folder; the checkout is made and removed outside it
  // (a check's sandbox hides the store).
  const std::string keep =
      fmt::format("{}/eval/{}/{}/{}/{}", cx.local_dir, cx.eval_id, folder_name(cx.agent.name), task.id, w.attempt);
  std::error_code ec;
  fs::remove_all(keep, ec);
  fs::create_directories(keep, ec);
  if (ec) return make_error(ErrorCode::kIo, fmt::format("cannot create {}: {}", keep, ec.message()));
  std::string scratch_template = (fs::temp_directory_path() / "candor-eval-XXXXXX").string();
  if (::mkdtemp(scratch_template.data()) == nullptr)
    return make_error(ErrorCode::kIo, "cannot create a temporary folder for the checkout");
  const std::string scratch = scratch_template;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{scratch};
  const std::string dir = scratch + "/" + task.id;
  auto sha = checkout(task, dir);
  if (!sha.ok()) return infra_error(sha.error().message);

  // The agent, headless, in the checkout; its stdout is its transcript.
  const int timeout_s = task.timeout_s.value_or(kDefaultTimeoutS);
  std::vector<std::string> argv = eval_agent_argv(cx.agent, task.goal, cx.request.candor_path, cx.request.llm);
  if (cx.agent.kind == EvalAgentKind::kCandor) {
    argv.push_back("--store");
    argv.push_back(scratch + "/candor-store");  // the loop's own runs: outside the checkout, gone with it
  }
  sandbox::ProcessSpec spec = process(argv, dir, std::chrono::seconds(timeout_s));
  spec.output_cap = kTranscriptCap;
  spec.merge_stderr = false;
  spec.env = agent_environment();
  if (cx.agent.kind == EvalAgentKind::kCommand) {
    spec.env->push_back("CANDOR_TASK_ID=" + task.id);
    spec.env->push_back("CANDOR_TASK_GOAL=" + task.goal);
  }
  auto ran = sandbox::run_process(spec);
  if (!ran.ok())
    return infra_error(fmt::format("the agent could not be started ({}): {}", argv[0], ran.error().message));
  const std::string transcript = keep + "/transcript.jsonl";
  write_file(transcript, ran->output.text());
  write_file(keep + "/stderr.txt", ran->errors.text());
  EvalClaim claim = claim_of(cx.agent, ran->output.text(), ran->exit_code, ran->timed_out, timeout_s);

  // Verified as `verify --git SHA..` on the checkout's working tree.
  VerifyGitRequest v;
  v.range = *sha + "..";
  v.repo = dir;
  v.goal = task.goal;
  v.expects = task.expect;
  v.guards = task.guard;
  v.timeout_s = timeout_s;
  v.store_dir = cx.request.store_dir;
  v.judge = cx.request.judge;
  v.llm = cx.request.llm;
  v.eval = {{"eval_id", cx.eval_id}, {"task", task.id}, {"attempt", w.attempt}, {"agent", cx.agent.name}};
  if (task.acceptance.is_object() && !cx.agent.transcript_format.empty()) {
    v.acceptance_file = keep + "/acceptance.json";
    write_file(v.acceptance_file, task.acceptance.dump(2));
    v.trajectory_file = transcript;
    v.format = cx.agent.transcript_format;
  }
  auto verified = session.verify_git(v);
  if (!verified.ok()) {
    // The checkout was sound before the agent's turn: what keeps it from being verified now (its
    // repository broken, BASE rewritten, HEAD pointed nowhere) is the agent's doing, and a fail, never
    // an infrastructure error that the report would leave out of the agent's counts.
    a.state = "done";
    a.claimed = claim.claimed;
    a.verdict = "fail";
    a.updated_at = now();
    a.record = {{"answer", claim.answer},
                {"claim_detail", claim.detail},
                {"first_finding",
                 "the attempt could not be verified after the agent's turn (its checkout's repository "
                 "was changed?): " +
                     verified.error().message},
                {"cheats", nlohmann::json::array({"the checkout's repository damaged during the attempt"})},
                {"commit", *sha},
                {"exit_code", ran->exit_code},
                {"wall_s", ran->elapsed_s},
                {"transcript", transcript}};
    TRY_STATUS(runs.put_eval_attempt(a));
    say(cx, a);
    return ok_status();
  }
  const nlohmann::json& report = verified->report;

  a.state = "done";
  a.run_id = verified->facts.run_id;
  a.claimed = claim.claimed;
  a.verdict = to_string(verified->decision.verdict);
  a.updated_at = now();
  std::string first;
  // What stands between the attempt and success, first: a success has none to show.
  if (a.verdict != "success" && report.contains("reasons") && report["reasons"].is_array() &&
      !report["reasons"].empty() && report["reasons"][0].is_string())
    first = report["reasons"][0].get<std::string>();
  a.record = {{"answer", claim.answer},
              {"claim_detail", claim.detail},
              {"first_finding", first},
              {"cheats", cheats_in(report)},
              {"commit", *sha},
              {"exit_code", ran->exit_code},
              {"timed_out", ran->timed_out},
              {"wall_s", ran->elapsed_s},
              {"transcript", transcript}};
  if (claim.input_tokens) a.record["input_tokens"] = *claim.input_tokens;
  if (claim.output_tokens) a.record["output_tokens"] = *claim.output_tokens;
  if (claim.cost_usd) a.record["cost_usd"] = *claim.cost_usd;
  if (!task.acceptance.is_null() && cx.agent.transcript_format.empty())
    a.record["acceptance"] = "not checked: this agent leaves no transcript candor reads";
  TRY_STATUS(runs.put_eval_attempt(a));
  say(cx, a);
  return ok_status();
}

}  // namespace

Result<EvalResult> run_eval(const EvalRequest& request, const EvalProgress& progress) {
  TRY(EvalAgent agent, parse_eval_agent(request.agent));
  Shard shard;
  if (!request.shard.empty()) {
    TRY(shard, parse_shard(request.shard));
  }
  if (request.attempts < 1 || request.attempts > 100)
    return make_error(ErrorCode::kUsage, "--attempts must be from 1 to 100");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (request.jobs < 1) return make_error(ErrorCode::kUsage, "--jobs must be at least 1");
  const int jobs = std::min(request.jobs, cores);
  if (!request.eval_id.empty() && !valid_eval_name(request.eval_id))
    return make_error(ErrorCode::kUsage,
                      fmt::format("--eval-id {}: must be letters, digits, '.', '_' or '-' (at most 128): it names "
                                  "a folder of the transcripts",
                                  request.eval_id));
  if (shard.count > 1 && request.eval_id.empty())
    return make_error(ErrorCode::kUsage,
                      "--shard needs --eval-id: the id joins the shards into one eval (the CI run's id, say)");
  TRY(std::string text, read_text_file(request.tasks_file));
  const std::string base_dir = fs::absolute(request.tasks_file).parent_path().string();
  TRY(std::vector<EvalTask> tasks, parse_eval_tasks(text, request.tasks_file, base_dir));
  if (agent.kind == EvalAgentKind::kClaudeCode || agent.kind == EvalAgentKind::kCodex ||
      agent.kind == EvalAgentKind::kCommand) {
    const std::string program = eval_agent_argv(agent, "", request.candor_path, "")[0];
    const std::string found = on_path(program);
    if (found.empty())
      return make_error(ErrorCode::kUnavailable,
                        fmt::format("--agent {}: `{}` is not on PATH (install the agent, or give its path with "
                                    "command:PROG)",
                                    agent.name, program));
    // The program found here, not one of the same name in the checkout (the agent runs there): a
    // relative command:./agent.sh is this folder's. The agent's name stays as given (it joins shards).
    if (agent.kind == EvalAgentKind::kCommand) agent.program = fs::absolute(found).lexically_normal().string();
  }

  TRY(std::unique_ptr<store::RunStore> runs, store::RunStore::open(request.store_dir));
  EvalResult out;
  out.eval_id =
      request.eval_id.empty() ? "eval-" + store::new_run_id(std::chrono::system_clock::now()) : request.eval_id;
  out.store = runs->describe();
  store::EvalPlan plan{
      .eval_id = out.eval_id, .tasks_digest = eval_tasks_digest(tasks), .shards = shard.count, .created_at = now()};
  for (const auto& t : tasks) plan.tasks.push_back({{"id", t.id}, {"shard", eval_shard_of(t.id, shard.count)}});
  TRY(store::EvalPlan stored, runs->register_eval(plan));
  if (stored.tasks_digest != plan.tasks_digest || stored.shards != plan.shards) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("eval {} was begun with another task file or shard count ({} tasks in {} shards, "
                                  "{}; this run: {} tasks in {} shards, {}): give this one a new --eval-id",
                                  out.eval_id, stored.tasks.size(), stored.shards, stored.tasks_digest, tasks.size(),
                                  plan.shards, plan.tasks_digest));
  }
  // What is left to do: an attempt recorded done (or failed to start) stays; one left running by a
  // killed shard is run again and replaces it.
  TRY(std::vector<store::EvalAttempt> recorded, runs->eval_attempts(out.eval_id));
  std::set<std::pair<std::string, std::int64_t>> finished;
  for (const auto& a : recorded) {
    if (a.agent == agent.name && a.state != "running") finished.insert({a.task_id, a.attempt});
  }
  std::vector<Work> work;
  for (const auto& t : tasks) {
    if (eval_shard_of(t.id, shard.count) != shard.index) continue;
    ++out.tasks;
    for (int k = 1; k <= request.attempts; ++k) {
      if (finished.count({t.id, k}) > 0) {
        ++out.skipped;
      } else {
        work.push_back({&t, k});
      }
    }
  }
  Context cx{request, agent, out.eval_id, runs->dir(), store::this_machine(), progress, {}, 0, 0, 0};
  cx.total = static_cast<int>(work.size());
  if (progress && out.skipped > 0)
    progress(fmt::format("{} attempt{} recorded already (this shard ran before): not run again", out.skipped,
                         out.skipped == 1 ? "" : "s"));

  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::optional<Error> failed;
  auto worker = [&](store::RunStore* shared) {
    std::unique_ptr<store::RunStore> own;
    store::RunStore* store = shared;
    if (store == nullptr) {  // one connection per thread
      auto opened = store::RunStore::open(request.store_dir);
      if (!opened.ok()) {
        std::lock_guard lock(error_mutex);
        failed = opened.error();
        return;
      }
      own = std::move(opened.value());
      store = own.get();
    }
    Session session;
    for (std::size_t i = next++; i < work.size(); i = next++) {
      Status s = ok_status();
      try {
        s = run_attempt(cx, work[i], *store, session);
      } catch (const std::exception& e) {  // a bug: said as one, never a thread ending the process
        s = make_error(ErrorCode::kInternal,
                       fmt::format("eval: task {} attempt {}: {}", work[i].task->id, work[i].attempt, e.what()));
      }
      if (!s.ok()) {
        std::lock_guard lock(error_mutex);
        if (!failed) failed = s.error();
        return;
      }
    }
  };
  if (jobs <= 1) {
    worker(runs.get());
  } else {
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j) threads.emplace_back(worker, nullptr);
    for (auto& t : threads) t.join();
  }
  if (failed) return *failed;
  out.ran = cx.done;
  out.infra_errors = cx.infra;
  return out;
}

namespace {

Result<std::pair<store::EvalPlan, std::vector<store::EvalAttempt>>> load_eval(const std::string& eval_id,
                                                                              const std::string& store_dir) {
  TRY(std::unique_ptr<store::RunStore> runs, store::RunStore::open(store_dir));
  TRY(std::optional<store::EvalPlan> plan, runs->eval_plan(eval_id));
  if (!plan) {
    return make_error(ErrorCode::kNotFound, fmt::format("no eval {} in {} (`candor eval TASKS --eval-id {}` begins it)",
                                                        eval_id, runs->describe(), eval_id));
  }
  TRY(std::vector<store::EvalAttempt> attempts, runs->eval_attempts(eval_id));
  return std::make_pair(std::move(*plan), std::move(attempts));
}

}  // namespace

Result<nlohmann::json> eval_report(const std::string& eval_id, const std::string& store_dir) {
  TRY(auto loaded, load_eval(eval_id, store_dir));
  return eval_report_json(loaded.first, loaded.second);
}

Result<nlohmann::json> eval_status(const std::string& eval_id, const std::string& store_dir) {
  TRY(auto loaded, load_eval(eval_id, store_dir));
  return eval_status_json(loaded.first, loaded.second);
}

}  // namespace candor::app
