// A program that embeds candor: it runs a plan over a workspace of its own through a Session,
// printing the run's events as they are recorded, then starts a second run whose step sleeps and
// cancels it from another thread. Built against the installed library:
//
//   c++ -std=c++20 embed.cc $(pkg-config --cflags --libs candor) -o embed && ./embed
//
// Exit 0 when the first run is verified `success` and the second ends cancelled, yet recorded.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <candor/candor.h>

namespace fs = std::filesystem;

namespace {

// Prints each event of the run as the store records it; notes when a shell step starts.
class PrintingObserver final : public candor::api::Observer {
 public:
  void event(std::int64_t seq, const std::string& type, const nlohmann::json& /*data*/) override {
    std::printf("  event %lld %s\n", static_cast<long long>(seq), type.c_str());
  }
  void step_started(const std::string& /*step*/, const std::string& tool) override {
    if (tool == "shell") shell_running.store(true);
  }
  void warning(const std::string& message) override { std::fprintf(stderr, "%s\n", message.c_str()); }
  std::atomic<bool> shell_running{false};
};

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A workspace, a plan for it and a store, in a folder of their own.
struct Scratch {
  fs::path root, workspace, store;
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "candor-embed-XXXXXX").string();
    root = mkdtemp(tmpl.data());
    workspace = root / "site";
    store = root / "store";
    write(workspace / "index.html", "<body style=\"background: white\">hello</body>\n");
  }
  ~Scratch() { fs::remove_all(root); }
};

candor::api::ExecRequest exec_request(const Scratch& s, const std::string& plan_name, const std::string& plan) {
  write(s.root / plan_name, plan);
  candor::api::ExecRequest request;
  request.plan_file = (s.root / plan_name).string();
  request.goal = "Make the page background dark green";
  request.judge = candor::api::JudgePolicy::kNever;
  request.workspace.workspace = s.workspace.string();
  request.workspace.store_dir = s.store.string();
  return request;
}

}  // namespace

int main() {
  Scratch scratch;
  PrintingObserver observer;

  // 1. A plan that changes the page, with a check that proves the new content.
  candor::api::Session session(&observer);
  std::printf("run 1: a plan that does the job\n");
  auto first = session.exec(exec_request(scratch, "patch.json", R"({
    "goal_kind": "modify",
    "steps": [{"id": "s1", "tool": "file_patch",
               "args": {"path": "index.html", "edits": [{"find": "background: white", "replace": "background: #006400"}]},
               "assert": [{"type": "file_contains", "path": "index.html", "text": "background: #006400"}]}],
    "then": "finish"
  })"));
  if (!first.ok()) {
    std::fprintf(stderr, "run 1 failed to run: %s\n", first.error().message.c_str());
    return 1;
  }
  std::printf("run 1: %s, verdict %s\n", first->run_id.c_str(), candor::api::to_string(first->verdict));

  // 2. A run whose step sleeps, cancelled from another thread once the step is running. cancel()
  //    stays set on its Session, so the second run has a Session of its own.
  PrintingObserver second_observer;
  candor::api::Session second_session(&second_observer);
  std::thread canceller([&] {
    while (!second_observer.shell_running.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::printf("cancelling run 2 from another thread\n");
    second_session.cancel();
  });
  std::printf("run 2: a step that would sleep for a minute\n");
  auto started = std::chrono::steady_clock::now();
  auto second = second_session.exec(exec_request(scratch, "sleep.json", R"({
    "goal_kind": "modify",
    "steps": [{"id": "s1", "tool": "shell", "args": {"command": "sleep 60"}}],
    "then": "finish"
  })"));
  canceller.join();
  if (!second.ok()) {
    std::fprintf(stderr, "run 2 failed to run: %s\n", second.error().message.c_str());
    return 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  bool cancelled = second->exit == candor::api::ExitCategory::kCancelled;
  std::printf("run 2: %s, status %s, verdict %s, %s after %.1f s\n", second->run_id.c_str(),
              candor::api::to_string(second->status), candor::api::to_string(second->verdict),
              cancelled ? "cancelled" : "NOT cancelled", seconds);

  bool ok = first->verdict == candor::api::Verdict::kSuccess && cancelled && !second->store_error && seconds < 30;
  std::printf("%s\n", ok ? "embed: ok" : "embed: FAILED");
  return ok ? 0 : 1;
}
