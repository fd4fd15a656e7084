// The facts of one run, as the executor observed them. Tier 1 reads these; the report renders
// them; the store keeps them. Nothing here is the model's claim except `final_answer`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/test_summary.h"

namespace candor {

enum class GoalKind { kModify, kInspect };
enum class RunStatus { kRunning, kCompleted, kBudgetExhausted, kError, kCancelled, kGoalAttemptsExhausted };
enum class Verdict { kSuccess, kPartial, kFail };
enum class BudgetKind { kNone, kReplans, kSteps, kTokens, kTimeout, kStagnation };
// Who wrote an assertion. `user`: the plan given to `candor exec`, --expect, the config's
// `expect`, acceptance specs. `planner`: a plan an LLM wrote in `candor run` (untrusted).
enum class Provenance { kUser, kPlanner };
// An independent review's answer; `kNone` when the reviewer reached no verdict (turn limit,
// invalid replies, provider failure): it has not rejected anything.
enum class ReviewVerdict { kPass, kFail, kNone };

const char* to_string(GoalKind v);
const char* to_string(RunStatus v);
const char* to_string(Verdict v);
const char* to_string(BudgetKind v);  // "" for kNone
const char* to_string(Provenance v);
const char* to_string(ReviewVerdict v);
std::optional<GoalKind> parse_goal_kind(const std::string& s);
std::optional<RunStatus> parse_run_status(const std::string& s);
std::optional<Verdict> parse_verdict(const std::string& s);
std::optional<BudgetKind> parse_budget_kind(const std::string& s);
std::optional<Provenance> parse_provenance(const std::string& s);
std::optional<ReviewVerdict> parse_review_verdict(const std::string& s);

struct BudgetLimits {
  int max_replans = 3;
  int max_steps = 50;
  std::int64_t max_tokens = 200000;
  int timeout_s = 600;
};

struct BudgetUsage {
  int replans = 0;
  int steps = 0;
  std::int64_t tokens = 0;
  double elapsed_s = 0;
};

struct BudgetState {
  BudgetLimits limits;
  BudgetUsage used;
  BudgetKind exhausted = BudgetKind::kNone;
};

struct StepRecord {
  std::string id;
  int round = 1;
  std::string tool;
  std::string target;        // the path, command or URL the step acted on, for people
  bool effect_tool = false;  // the tool is an effect tool (file_write, file_patch, file_delete, git_commit)
  // The effect shows in the workspace's files (false for git_commit, whose effect is in .git, which
  // snapshots leave out): only then is "completed but changed nothing" suspicious.
  bool effect_on_files = true;
  bool ok = false;
  std::string error;
  std::optional<int> exit_code;
  std::vector<std::string> changed_paths;  // what the workspace diff attributes to this step
  std::int64_t seq = 0;                    // seq of the step's tool_result event
};

// One run of a program an assertion ran on another state than the workspace (docs/design.md, Trust
// boundary: Commands as evidence): on the state before the change, or with an added path emptied.
struct ProgramRun {
  bool passed = false;
  // It could not be run (no checkout, no time left, a crash of candor's side): neither a pass nor a
  // failure, so no evidence either way.
  bool error = false;
  std::optional<int> exit_code{};
  std::string output{};   // the tail of what it printed
  std::string message{};  // what was observed, in a sentence
  // What its test runner said it ran (evidence/test_runners.h), when the command runs one candor
  // reads and it printed a summary; and the summaries of the frameworks inside its test programs.
  std::optional<TestSummary> tests{};
  std::vector<TestSummary> frameworks{};
};

// A discriminating user command run once more with one added path it covers emptied: its pass
// there shows that the path's content is not what made it pass.
struct EmptiedRun {
  std::string path;
  ProgramRun run;
};

struct AssertionRecord {
  std::string step{};  // step id, or "" for a goal-level (--expect) assertion
  int round = 1;
  std::string type{};
  nlohmann::json assertion{};  // the assertion as written
  std::string path{};          // normalised workspace path the assertion inspected, if any
  bool passed = false;
  std::string message{};
  std::int64_t seq = 0;  // seq of the assertion event
  // Unknown provenance (a record from before it existed) is treated as the untrusted side.
  Provenance by = Provenance::kPlanner;
  // For a passing assertion that reads a path: whether it fails on the path's content before the
  // run (the pre-run snapshot). Only a discriminating pass is evidence about the change. nullopt:
  // not checked (failed, bound to no path, or an evaluator that cannot say).
  std::optional<bool> discriminating{};
  // Positive evidence of content: a check of what the file holds (not only that it exists, its size
  // or its form) whose pass also fails on an empty file at the path. Asked when `discriminating` is
  // true; nullopt when not asked. Only a positive, discriminating pass covers an added or modified path.
  std::optional<bool> positive{};
  // A guard (--guard, config `guard`): what must still hold. Its failure makes the run partial; its
  // pass never covers a change, never makes a run "already satisfied" and never backs an answer.
  bool guard = false;
  // The end-of-run re-check of an assertion whose last evaluation had failed (tier-1 rule 5): it
  // counts as that assertion's last evaluation.
  bool final_check = false;
  // About the step it follows (output_contains, exit_code_eq), not the workspace: its failure is the
  // step's failure (Signature::reads_step).
  bool reads_step = false;
  // A program the assertion ran (command_succeeds): its exit code and the tail of what it printed,
  // passing or not (a passing command's "OK (skipped=1)" must be visible).
  std::optional<int> exit_code{};
  std::string output{};
  // Paths outside the workspace that candor's sandbox refused the program (sandbox/refusals.h): a
  // failure the person can fix with sandbox.read_paths, not the work. Advice only: it never
  // changes whether the assertion passed.
  std::vector<std::string> sandbox_refused{};
  // What its test runner said it ran, read from all it printed (not only the tail kept in
  // `output`): when the command runs a test runner candor reads (evidence/test_runners.h) and that
  // runner printed its summary. The JSON says `tests: null` for a known runner that printed none.
  std::optional<TestSummary> tests{};
  // The summaries the test frameworks inside its test programs printed (evidence/frameworks.h).
  std::vector<TestSummary> frameworks{};
  // The test runner its command runs as candor names it ("python -m unittest"), "" for none it reads.
  std::string runner{};
  // A user's command evaluated again on the state before the change (the pre-run snapshot, BASE's
  // tree): how it went there. nullopt when it was not (a failed one, a guard, the planner's).
  // `discriminating` is then true when it failed there (and did not err), passed on the state
  // after (`after` when there is one) and its counts show a test it made pass (evidence/
  // command_coverage.h: test_count_gap, framework_gap).
  std::optional<ProgramRun> before{};
  // `run` and `exec`: the same command on a checkout of the state it passed on, with the same
  // inputs the run before got (docs/design.md, Commands as evidence): what it
  // passed on in the workspace may hold state no snapshot does (an ignored .pyc, a build output).
  // nullopt for `verify --git` and the gate, whose commands run on checkouts already.
  std::optional<ProgramRun> after{};
  // Tests of record (docs/design.md, Trust boundary): the change edited, deleted or skipped files this
  // command reads as tests, so it ran a third time on the state it passed on with those files as
  // they were before the change (`record_files`). nullopt when no test file of its was changed.
  std::optional<ProgramRun> on_record{};
  std::vector<std::string> record_files{};
  // A discriminating user command: one run per added path its `covers` takes in (up to a cap),
  // with that path emptied. Only an added path whose run here failed is covered by it.
  std::vector<EmptiedRun> emptied{};
  bool goal_level() const { return step.empty(); }
};

struct Mutation {
  // The path's exact bytes, as the file system names it (not necessarily UTF-8: the JSON form
  // then carries `path_bytes` beside a readable `path`, so undo finds the very name again).
  std::string path;
  // added | modified | deleted | mode (only the permission bits changed; a folder's path ends in '/')
  std::string change;
  std::int64_t bytes_before = 0;
  std::int64_t bytes_after = 0;
  int lines_added = 0;
  int lines_removed = 0;
  bool binary = false;
  std::vector<std::string> steps;    // steps whose changes touched the path, in order
  std::int64_t last_change_seq = 0;  // seq of the event after which the last change was seen
  // For an added path that git's rename detection matched with a deleted one (verify --git): the
  // old path, which is also listed as deleted.
  std::string renamed_from;
  // The whole st_mode (type, permissions, setuid/setgid/sticky) before and after; 0 where the path
  // was absent, or where the source knows only git's modes (verify --git).
  std::uint32_t mode_before = 0;
  std::uint32_t mode_after = 0;
  // "uid:gid", set only where the owner changed, or a path added is not the run's own (candor's
  // uid:gid): a step that gives files to another user hands them whoever that is.
  std::string owner_before{}, owner_after{};
  // How the line counts were made: "" by a diff (exact); "multiset" for text over the size candor
  // diffs (lines added and removed as multisets: a lower bound, a moved line counting as neither);
  // "unknown" when they could not be counted at all (then both are 0 and mean nothing).
  std::string lines_by{};
  // A credential file's change: by its name, or because it holds a credential file of the run's
  // start under another name (its inode, or its content before or after: a rename, a copy).
  // Decided once, when the run ends (Executor::finish); every rendering (judge evidence, the HTML
  // diff, the Markdown table) withholds its content on this flag.
  bool credential = false;
  // The change is in a commit the run made (git_commit), between RunFacts::commits' trees; the
  // workspace's file may be as it was (a pending change committed). Its diff is read from those trees.
  bool committed = false;
  // Lines the file had before (text diffed by lines only; 0 otherwise): the size a net removal is
  // measured against (Trust boundary: removed content is evidence too).
  int lines_before = 0;
};

// A change that reads or changes how the tests run rather than implementing the goal in general
// (docs/design.md, Trust boundary: Tests that pass for the wrong reason; evidence/test_aware.h). Its
// path is never covered at tier 1; the judge is asked the fixed test-aware question.
struct TestAwareFlag {
  std::string path;
  int line = 0;  // the line in the file after the change; 0 for a change to the file as a whole
  // a: reads whether a test runs; b: a literal of the tests copied into the code; c: ends or
  // bypasses the process or the comparison machinery; d: edits what a test runner loads.
  std::string rule;
  std::string text;            // the line, cut, or what changed
  std::string why;             // a sentence
  std::string test_file = {};  // rule b: a test file that holds the literal (shown to the judge beside it)
};

// A folder the run created: its files are mutations of their own, but the folder's mode is a
// fact of its own (one made writable by others is suspicious).
struct CreatedFolder {
  std::string path;  // ends in '/'
  std::uint32_t mode = 0;
  std::string owner;  // "uid:gid" when not the run's own, else ""
};

// One independent review of the goal (the reviewer gate).
struct GoalValidation {
  int attempt = 1;
  ReviewVerdict verdict = ReviewVerdict::kNone;
  std::string reason;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

struct Usage {
  int llm_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  // Calls whose server reported no usage: their tokens are candor's estimate (characters / 4).
  int estimated_calls = 0;
};

// Whether change detection saw the whole workspace. A path it could not read is not evidence of
// anything (neither unchanged nor deleted), so an incomplete scan blocks `success`.
struct ScanCoverage {
  bool complete = true;
  std::vector<std::string> unread;  // workspace-relative paths the scans could not read
  // How the scans after the snapshot before the run looked (docs/design.md, "Change detection in
  // O(changes)"): how many looked only where the change events said, and each that walked the
  // whole workspace though events were asked for, with its reason.
  struct FullWalk {
    std::string step;  // the step whose scan it was; "" for the final scan
    std::string reason;
    bool operator==(const FullWalk&) const = default;
  };
  int by_events = 0;
  std::vector<FullWalk> full_walks;
  // The fsmonitor the gate's stop asked between processes ("watchman"); "": inotify within the run.
  std::string fsmonitor;
  // With config snapshot.fsmonitor, how the snapshot before a run looked: "watchman" (by its answer
  // since the base saved with the snapshot index) or "walk", and why it walked; "" without one.
  std::string before_run;
  std::string before_run_reason;
};

struct RunFacts {
  std::string run_id;
  std::string source = "run";  // what produced the run: run | exec | git | gate | trajectory
  // The LLM the run used, as PROVIDER:MODEL (llm::Provider::describe, never a key): the planner's
  // for `run`, the judge's when `exec` or `verify` asked one; "" when no LLM was used.
  std::string provider;
  // The tier-2 policy the stored verdict was computed under (auto | always | never: `--judge` of
  // run or exec; never when exec had no LLM to ask); "" for a run recorded before it was kept.
  // `candor verify` asks the judge the same way unless told otherwise.
  std::string judge_policy;
  std::string goal;
  GoalKind goal_kind = GoalKind::kModify;
  std::string workspace;
  RunStatus status = RunStatus::kRunning;
  std::string status_detail;  // why the loop ended that way, e.g. the failed step
  int steps_planned = 0;
  std::vector<StepRecord> steps;
  std::vector<AssertionRecord> assertions;
  std::vector<Mutation> mutations;
  BudgetState budget;
  std::optional<std::string> final_answer;
  // Round 1's questions: the planner's own reading of the goal. The judge is shown them as that
  // reading, never asked them (the agent does not write its own exam).
  std::vector<std::string> planner_questions;
  int last_round = 1;
  Usage usage;
  std::string snapshot_before;  // tree id
  std::string snapshot_after;   // tree id
  std::vector<GoalValidation> goal_validations;
  // The process sandbox's protections for this run's shell steps (sandbox::Protections::to_json),
  // null when unknown (a run recorded before it existed).
  nlohmann::json sandbox;
  // The acceptance report ({passed, checkpoints}) when a spec was given, else null.
  nlohmann::json acceptance;
  ScanCoverage scan;
  // Changes under the workspace's own .git/ or .candor/ that no git_commit step accounts for,
  // one sentence each: suspicious whatever else the run did.
  std::vector<std::string> protected_changes;
  // The paths the change may touch (--scope, config `scope`: gitignore-style globs); empty = any.
  std::vector<std::string> scope;
  // Paths suspicious when changed, beyond the built-in ones (CI definitions, .candor/): config `sensitive`.
  std::vector<std::string> sensitive;
  // For `source: "git"`: {range, base, head, base_tree, head_tree} (commit and tree ids); null otherwise.
  nlohmann::json git;
  // For `source: "gate"` (a turn of another agent, checked live by `candor gate`): {agent,
  // session_id, turn_id, turn, stop, blocks, decision, ...} (app/gate.h); null otherwise.
  nlohmann::json gate;
  std::vector<CreatedFolder> created_folders;
  // candor's umask when the run started: the permission bits a new file or folder does not get
  // unless a step asks for them (tier 1 calls a step that adds them back suspicious). -1: unknown.
  int umask = -1;
  // The credential files when the run started (workspace-relative, sorted): names only. A later
  // `candor report --html` or `candor verify` reads them from the pre-run snapshot to mask their
  // values again (snapshot/store.h, run_credentials), having no other way to know them.
  std::vector<std::string> credential_files;
  // Test-aware changes found when the run ended (evidence/test_aware.h), in path and line order.
  std::vector<TestAwareFlag> test_aware;
  // The commits the run's git_commit steps made, as two trees: the HEAD the first was made on (git's
  // empty tree for a first commit) and the last one's. Both "" when no commit was made.
  std::string commits_from_tree, commits_to_tree;
};

// Whether `s` is valid UTF-8 (what a JSON string can hold as it is).
bool valid_utf8(std::string_view s);

nlohmann::json to_json(const StepRecord& s);
nlohmann::json to_json(const ScanCoverage& s);
nlohmann::json to_json(const ProgramRun& r);
ProgramRun program_run_from_json(const nlohmann::json& j);  // a field missing or of another type leaves its default
nlohmann::json to_json(const AssertionRecord& a);
// The fields of an `assertion` event or of a stored record, read back into `r` (seq left alone);
// a field missing or of another type leaves its default.
void read_assertion_fields(const nlohmann::json& j, AssertionRecord& r);
nlohmann::json to_json(const Mutation& m);
nlohmann::json to_json(const TestAwareFlag& f);
nlohmann::json to_json(const GoalValidation& g);
nlohmann::json to_json(const RunFacts& f);
Result<RunFacts> run_facts_from_json(const nlohmann::json& j);

// Lexically normalised workspace-relative path: "./a//b/../c" -> "a/c". Used to compare the
// path an assertion names with the path a mutation reports.
std::string normalize_relative_path(const std::string& path);

}  // namespace candor
