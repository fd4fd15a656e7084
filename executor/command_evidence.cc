#include "executor/command_evidence.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/glob.h"
#include "evidence/command_coverage.h"
#include "evidence/test_runners.h"
#include "executor/runner_logs.h"
#include "sandbox/step_temp_dir.h"
#include "sandbox/workspace_policy.h"

namespace candor::executor {
namespace {

ProgramRun not_run(std::string why) {
  ProgramRun r;
  r.error = true;
  r.message = std::move(why);
  return r;
}

// Makes the file at `path` (absolute, written by the checkout: a regular file, never a link) empty.
Status truncate_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorCode::kIo, fmt::format("cannot empty {}: {}", path, std::strerror(errno)));
  ::close(fd);
  return ok_status();
}

constexpr unsigned kGitLink = 0120000;
constexpr unsigned kSymlink = 0120000;

bool dependency_folder(std::string_view name) { return name == "node_modules" || name == ".venv" || name == "venv"; }

}  // namespace

void link_inputs(const sandbox::Workspace& checkout, const std::vector<LinkedInput>& inputs) {
  namespace fs = std::filesystem;
  for (const auto& input : inputs) {
    if (checkout.lstat(input.path).ok()) continue;  // the tree holds it: the tree's is the input
    fs::path rel(input.path);
    std::string parent = rel.has_parent_path() ? rel.parent_path().string() : ".";
    if (parent != ".") {
      // Folders of the checkout's own, made one at a time beneath it (never through a link).
      std::string made;
      bool ok = true;
      for (const auto& part : fs::path(parent)) {
        made += (made.empty() ? "" : "/") + part.string();
        if (checkout.lstat(made).ok()) continue;
        auto above =
            checkout.open_directory(fs::path(made).has_parent_path() ? fs::path(made).parent_path().string() : ".");
        if (!above.ok() || ::mkdirat(above->get(), part.c_str(), 0755) != 0) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
    }
    auto dir = checkout.open_directory(parent);
    if (!dir.ok()) continue;
    (void)::symlinkat(input.source.c_str(), dir->get(), rel.filename().c_str());
  }
}

std::vector<LinkedInput> unsnapshotted_inputs(const sandbox::Workspace& source,
                                              const std::vector<std::string>& snapshot_ignore) {
  std::vector<PathGlob> ignored;
  for (const auto& pattern : snapshot_ignore) {
    if (auto glob = PathGlob::compile(pattern); glob.ok()) ignored.push_back(std::move(glob.value()));
  }
  std::vector<LinkedInput> out;
  constexpr std::size_t kMaxEntries = 50000;
  std::size_t seen = 0;
  auto within = [&](const std::string& path) {
    return std::any_of(out.begin(), out.end(), [&](const LinkedInput& i) { return path.rfind(i.path + "/", 0) == 0; });
  };
  (void)source.walk(".", kMaxInputDepth, [&](const sandbox::WalkEntry& e) {
    if (++seen > kMaxEntries) return false;
    if (within(e.path) || source.secrets().refused(e.path)) return true;
    std::string_view name = std::string_view(e.path).substr(e.path.rfind('/') + 1);
    bool folder = e.kind == sandbox::EntryKind::kDirectory;
    bool matched = folder && dependency_folder(name);
    for (const auto& glob : ignored) matched = matched || glob.matches(folder ? e.path + "/" : e.path);
    if (matched) out.push_back({e.path, source.root() + "/" + e.path});
    return true;
  });
  return out;
}

LinkedInputs::LinkedInputs(std::function<std::vector<LinkedInput>()> find) : found_(std::make_shared<Found>()) {
  found_->find = std::move(find);
}

const std::vector<LinkedInput>& LinkedInputs::get() const {
  static const std::vector<LinkedInput> kNone;
  if (!found_) return kNone;
  std::call_once(found_->once, [this] { found_->inputs = found_->find(); });
  return found_->inputs;
}

LinkedInputs workspace_inputs(const std::string& root, const WorkspaceConfig& config) {
  return LinkedInputs([root, allow = config.secrets_allow, ignore = config.snapshot_ignore] {
    auto source = sandbox::Workspace::open(
        root, {.force_fallback = false, .protected_dirs = {}, .secrets = sandbox::SecretFilter(allow)});
    if (!source.ok()) return std::vector<LinkedInput>{};
    return unsnapshotted_inputs(**source, ignore);
  });
}

ProgramRun CommandEvidence::run_on(const nlohmann::json& assertion, const assertions::StepView* step,
                                   const std::string& tree, const std::string& emptied,
                                   const std::vector<Override>& overrides) const {
  if (in_.deadline.passed()) return not_run("not run: the run's time budget ran out");
  auto folder = sandbox::StepTempDir::create();
  if (!folder.ok()) return not_run("not run: " + folder.error().message);
  if (Status written = in_.trees.checkout(tree, folder->path()); !written.ok()) {
    return not_run("not run: the checkout could not be written: " + written.error().message);
  }
  if (!emptied.empty()) {
    if (Status st = truncate_file(folder->path() + "/" + emptied); !st.ok())
      return not_run("not run: " + st.error().message);
  }
  auto workspace =
      sandbox::Workspace::open(folder->path(), {.force_fallback = false, .protected_dirs = {}, .secrets = in_.secrets});
  if (!workspace.ok()) return not_run("not run: " + workspace.error().message);
  for (const auto& o : overrides) {
    Status st =
        o.content ? (*workspace)->write_file(o.path, *o.content, o.mode & 07777) : (*workspace)->delete_file(o.path);
    if (!st.ok() && o.content)
      return not_run(fmt::format("not run: {} could not be put back: {}", o.path, st.error().message));
  }
  link_inputs(**workspace, in_.inputs.get());
  for (const auto& path : in_.withheld) {
    if ((*workspace)->lstat(path).ok()) (void)(*workspace)->write_file(path, "");
  }
  sandbox::SandboxPolicy policy = sandbox::make_sandbox_policy(**workspace, in_.sandbox);
  for (const auto& input : in_.inputs.get()) policy.read_paths.push_back(input.source);
  // The process sees credential files empty; the checkout need not hold their bytes either.
  for (const auto& secret : policy.secret_files) {
    if (Status st = truncate_file(secret); !st.ok()) return not_run("not run: " + st.error().message);
  }
  assertions::Context ctx{.workspace = **workspace,
                          .network = in_.network,
                          .step = step,
                          .baseline = {},
                          .process_sandbox = &policy,
                          .registry = nullptr,
                          .files = nullptr,
                          .credential_seen = nullptr,
                          .deadline = in_.deadline};
  const auto started = std::chrono::system_clock::now();
  assertions::Outcome o = in_.evaluators.evaluate(assertion, ctx);
  evidence::RunCounts counts =
      evidence::read_run_counts(assertion, o.summary_text, runner_logs(folder->path(), started));
  ProgramRun run{.passed = o.passed && !o.error,
                 .error = o.error,
                 .exit_code = o.exit_code,
                 .output = o.output,
                 .message = o.message,
                 .tests = counts.runner,
                 .frameworks = counts.frameworks};
  if (in_.mask) {
    in_.mask(run.output);
    in_.mask(run.message);
  }
  return run;
}

void CommandEvidence::add(AssertionRecord& r, const assertions::StepView* step,
                          const std::function<Result<std::string>()>& after_tree,
                          const std::vector<ChangedPath>& changed, bool after_on_checkout) {
  if (!r.passed) return;
  nlohmann::json key = r.assertion;
  if (key.is_object()) {
    key.erase("covers");  // the same command, whatever it is said to cover
    key.erase("tests_of_record");
  }
  auto [before, fresh] = before_runs_.try_emplace(key.dump());
  if (fresh) before->second = run_on(r.assertion, step, before_tree_, "");
  r.before = before->second;
  r.runner = evidence::runner_name(r.assertion);

  std::optional<Result<std::string>> state;
  auto tree = [&]() -> const Result<std::string>& {
    if (!state) state = after_tree();
    return *state;
  };
  ProgramRun proof{.passed = r.passed, .tests = r.tests, .frameworks = r.frameworks};
  if (after_on_checkout) {
    if (!tree().ok())
      r.after = not_run("not run: the state it passed on could not be written as a tree: " + tree().error().message);
    else if (*tree() == before_tree_)
      r.after = r.before;  // nothing changed: the same state, the same run
    else
      r.after = run_on(r.assertion, step, *tree(), "");
    proof = *r.after;
  }
  // A test the change made pass: it failed before, passes after, and its runner's and frameworks'
  // summaries show tests ran and passed after, no fewer and with no more skipped.
  r.discriminating = evidence::failed_a_test(r.assertion, *r.before) && proof.passed && !proof.error &&
                     evidence::count_gap(r.assertion, proof, *r.before).empty();
  add_record(r, step, tree, changed);
  if (!*r.discriminating) return;

  std::set<std::string> candidates;
  for (const auto& c : changed) {
    if (evidence::command_may_cover(r.assertion, c.path)) candidates.insert(c.path);
  }
  if (candidates.empty()) return;
  for (const auto& path : candidates) {
    if (r.emptied.size() == evidence::kMaxEmptiedRuns) break;
    auto was = in_.trees.stat(before_tree_, path);
    if (!was.ok() || was->has_value()) continue;  // not added (or unknown: then not covered)
    if (!tree().ok()) {
      r.emptied.push_back(
          {path, not_run("not run: the state it passed on could not be written as a tree: " + tree().error().message)});
      continue;
    }
    auto now = in_.trees.stat(*tree(), path);
    if (!now.ok() || !now->has_value() || (*now)->directory || (*now)->mode == kGitLink) continue;
    r.emptied.push_back({path, run_on(r.assertion, step, *tree(), path)});
  }
}

void CommandEvidence::add_record(AssertionRecord& r, const assertions::StepView* step,
                                 const std::function<Result<std::string>()>& after_tree,
                                 const std::vector<ChangedPath>& changed) {
  if (!r.passed) return;
  if (r.assertion.is_object() && r.assertion.value("tests_of_record", true) == false) return;
  evidence::CommandTests tests(r.assertion);
  std::set<std::string> renamed_away;
  for (const auto& c : changed) {
    if (!c.renamed_from.empty()) renamed_away.insert(c.renamed_from);
  }
  std::optional<Result<std::string>> state;
  std::vector<Override> overrides;
  std::vector<std::string> files;
  for (const auto& c : changed) {
    if (!evidence::restored_on_record(tests, c.path) || renamed_away.count(c.path) > 0) continue;
    evidence::TestFileKind kind = evidence::test_file_kind(c.path);
    auto was = in_.trees.read_file(before_tree_, c.renamed_from.empty() ? c.path : c.renamed_from);
    if (!was.ok()) continue;
    if (!state) state = after_tree();
    if (!state->ok()) {
      r.on_record =
          not_run("not run: the state it passed on could not be written as a tree: " + state->error().message);
      return;
    }
    auto now = in_.trees.read_file(**state, c.path);
    if (!now.ok()) continue;
    if (was->has_value()) {
      if (((*was)->mode & 0170000) == kSymlink) continue;  // a link is put back by no one
      // As it was: nothing to put back (a test renamed unchanged still runs on record, so that the
      // rename is shown to keep the original test passing).
      if (now->has_value() && (*now)->content == (*was)->content && c.renamed_from.empty()) continue;
      overrides.push_back({c.path, (*was)->content, (*was)->mode});
      files.push_back(c.path);
    } else if (kind == evidence::TestFileKind::kRunnerLoaded && now->has_value()) {
      overrides.push_back({c.path, std::nullopt});  // a conftest.py the change added: none before
      files.push_back(c.path);
    }
  }
  if (overrides.empty()) return;
  r.record_files = files;
  r.on_record = run_on(r.assertion, step, **state, "", overrides);
}

}  // namespace candor::executor
