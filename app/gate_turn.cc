// A turn's stop (Session::gate_end): the turn so far verified as the run its start recorded — the
// snapshot now against the one at its start, the transcript's events of this turn, the config's
// expectations (commands run before and after, as evidence rules want), protected, sensitive and
// out-of-scope paths, the acceptance spec, tier 1 and the judge — through end_run, then the gate's
// answer. A Stop with no recorded start verifies the working tree against HEAD instead.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "app/gate.h"
#include "app/gate_fsmonitor.h"
#include "app/gate_internal.h"
#include "app/inputs.h"
#include "app/run_end.h"
#include "core/arg_schema.h"
#include "core/clock.h"
#include "core/events.h"
#include "core/json_text.h"
#include "executor/change_check.h"
#include "executor/config.h"
#include "executor/tool.h"
#include "import/trajectory_import.h"
#include "import/turn_slice.h"
#include "sandbox/blob_id.h"
#include "sandbox/credential_registry.h"
#include "sandbox/secret_files.h"
#include "sandbox/workspace.h"
#include "snapshot/store.h"
#include "store/run_store.h"
#include "verify/acceptance.h"
#include "verify/tier1.h"

namespace candor::app {
namespace {

// How long a stop's snapshot may read at most, unless gate.start_timeout_s is larger.
constexpr int kStopScanS = 120;

namespace fs = std::filesystem;

constexpr std::size_t kEventTextCap = 8 * 1024;  // a transcript's string as a stored event keeps it

// `j` with every string longer than `cap` cut (a Write's whole file, a tool's whole output):
// stored events stay small; acceptance reads the transcript itself. Depth is bounded by the JSON limits.
void cap_strings(nlohmann::json& j, std::size_t cap) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > cap) j = cut_text(s, cap);
  } else if (j.is_structured()) {
    for (auto& v : j) cap_strings(v, cap);
  }
}

// The transcript's events from `from` on, recorded in the run as tool_called / tool_result /
// final_answer (`source: "transcript"`), so the run's report and `verify RUN --acceptance` see them.
void record_transcript(const std::vector<TrajectoryEvent>& events, std::size_t from, Trajectory& trajectory) {
  for (std::size_t i = from; i < events.size(); ++i) {
    const TrajectoryEvent& e = events[i];
    std::string step = fmt::format("t{}", e.seq);
    nlohmann::json input = e.input;
    cap_strings(input, kEventTextCap);
    if (e.kind == TrajectoryEvent::Kind::kToolCalled) {
      trajectory.record(event::kToolCalled,
                        {{"step", step}, {"tool", e.tool}, {"input", input}, {"source", "transcript"}});
    } else if (e.kind == TrajectoryEvent::Kind::kToolResult) {
      nlohmann::json data = e.result.is_object() ? e.result : nlohmann::json{{"output", e.result}};
      cap_strings(data, kEventTextCap);
      data["step"] = step;
      data["tool"] = e.tool;
      data["source"] = "transcript";
      trajectory.record(event::kToolResult, data);
    } else {
      trajectory.record(event::kFinalAnswer, {{"text", cut_text(e.text, kEventTextCap)}, {"source", "transcript"}});
    }
  }
}

// The config's acceptance spec for this agent, checked over the turn's transcript. Null when there
// is none; a warning when it cannot be used.
nlohmann::json turn_acceptance(GateAgent agent, const executor::GateConfig& gate, const TurnTranscript& transcript,
                               const SecretMasker* masker, std::vector<std::string>& warnings) {
  nlohmann::json spec_json = gate.acceptance;
  if (spec_json.is_object() && !spec_json.contains("checkpoints")) {
    spec_json = spec_json.contains(to_string(agent)) ? spec_json[to_string(agent)] : nlohmann::json();
  }
  if (!spec_json.is_object()) return nullptr;
  std::vector<std::string> tools = import::spec_tools(transcript_format(agent), transcript.tools);
  auto spec = verify::parse_acceptance_spec(spec_json, tools);
  if (!spec.ok()) {
    warnings.push_back("the config's gate.acceptance cannot be used: " + spec.error().message);
    return nullptr;
  }
  if (!transcript.warning.empty()) {
    warnings.push_back("the acceptance spec was not checked: " + transcript.warning);
    return {{"passed", false}, {"error", transcript.warning}, {"checkpoints", nlohmann::json::array()}};
  }
  return verify::to_json(verify::evaluate_acceptance(*spec, transcript.events, masker));
}

// The process's umask without changing it (the hook's is the agent's): what a new file does not get
// unless the agent asked for it (tier 1's rule for modes).
int process_umask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) != 0) continue;
    try {
      return static_cast<int>(std::stoul(line.substr(6), nullptr, 8));
    } catch (const std::exception&) {
      return -1;
    }
  }
  return -1;
}

// What a turn's stop works with, gathered step by step.
struct Stop {
  GateAgent agent{};
  const HookInput& in;
  const GateOptions& options;
  RunOpening& run;  // the store, the deadline, the snapshots, the masker, the trajectory
  store::RunStore& store;
  store::GateTurn turn{};
  std::string root{};
  executor::WorkspaceConfig config{};
  std::vector<std::string> warnings{};
  TurnTranscript transcript{};
  RunFacts facts{};
  std::string created_at{};
  std::string config_left{};  // the blob of .candor/config.json when the turn changed .candor/
};

Status read_start(Stop& s) {
  const nlohmann::json& start = s.turn.start;
  std::string tree = json_str(start, "tree");
  if (tree.size() != 40) return make_error(ErrorCode::kIo, "the turn's start record is damaged (no snapshot)");
  s.facts.snapshot_before = tree;
  if (std::string warning = json_str(start, "config_warning"); !warning.empty())
    s.warnings.push_back("at the turn's start: " + warning);
  if (start.contains("config_text") && start["config_text"].is_string()) {
    auto config = executor::parse_config_text(start["config_text"].get<std::string>(),
                                              s.root + "/.candor/config.json (as the turn began)");
    if (config.ok()) {
      s.config = std::move(config.value());
    } else {
      s.warnings.push_back(config.error().message + "; this turn is checked without it");
    }
  }
  s.facts.credential_files = start.value("credential_files", std::vector<std::string>{});
  return ok_status();
}

// The run as its start recorded it, and the trajectory that goes on from its last event.
Status open_run(Stop& s) {
  TRY(store::StoredRun run, s.store.load(s.turn.run_id));
  s.facts.run_id = s.turn.run_id;
  s.facts.source = "gate";
  s.facts.goal = run.summary.goal;
  s.facts.workspace = s.root;
  s.facts.umask = process_umask();
  s.created_at = run.summary.created_at;
  s.facts.budget.limits.max_replans = 0;
  s.facts.scope = s.config.scope;
  s.facts.sensitive = s.config.sensitive;
  s.run.mask_known(s.run.snapshots().trees(), s.facts);
  s.run.continue_run(s.facts.run_id, run.events.empty() ? 0 : run.events.back().seq);
  return ok_status();
}

// Whether `m` is a credential file's change: by its name, or by holding a credential file's content
// of the turn's start before or after.
bool credential_change(const Stop& s, const sandbox::SecretFilter& secrets, const Mutation& m) {
  if (secrets.refused(m.path)) return true;
  if (std::find(s.facts.credential_files.begin(), s.facts.credential_files.end(), m.path) !=
      s.facts.credential_files.end())
    return true;
  auto holds = [&](const std::string& tree, std::int64_t size) {
    if (tree.empty() || size <= 0 || !s.run.credentials()->has_size(static_cast<std::uint64_t>(size))) return false;
    auto content = s.run.snapshots().read(tree, m.path);
    return content.ok() && content->has_value() && s.run.credentials()->has_content(**content);
  };
  return (m.change != "added" && holds(s.facts.snapshot_before, m.bytes_before)) ||
         (m.change != "deleted" && holds(s.facts.snapshot_after, m.bytes_after));
}

// Modes the trees cannot hold: a file the turn made setuid, setgid or writable by others, against
// the notable modes its start recorded (the start's other files had git's modes, 644 or 755).
void add_mode_changes(const Stop& s, std::vector<Mutation>& mutations) {
  const nlohmann::json& start =
      s.turn.start.contains("modes") && s.turn.start["modes"].is_object() ? s.turn.start["modes"] : nlohmann::json();
  bool appended = false;
  for (const auto& [path, mode] :
       s.run.snapshots().held_modes([](std::string_view, std::uint32_t m) { return notable_mode(m); })) {
    std::uint32_t before = start.is_object() && start.contains(path) && start[path].is_number_unsigned()
                               ? start[path].get<std::uint32_t>()
                               : 0;
    if (before == mode) continue;
    if (before == 0) {
      auto entry = s.run.snapshots().stat(s.facts.snapshot_before, path);
      if (entry.ok() && entry->has_value() && !(*entry)->directory) before = (*entry)->mode;
    }
    auto same = std::find_if(mutations.begin(), mutations.end(), [&](const Mutation& m) { return m.path == path; });
    if (same != mutations.end()) {
      if (same->change != "added") same->mode_before = before;
      same->mode_after = mode;
      continue;
    }
    Mutation m;
    m.path = path;
    m.change = before == 0 ? "added" : "mode";
    m.mode_before = before;
    m.mode_after = mode;
    mutations.push_back(std::move(m));
    appended = true;
  }
  if (appended) {
    std::stable_sort(mutations.begin(), mutations.end(),
                     [](const Mutation& a, const Mutation& b) { return a.path < b.path; });
  }
}

// The workspace now against the turn's start: the snapshot, the mutations (one step, the turn's),
// the protected paths, what could not be read.
Status observe_workspace(Stop& s) {
  TRY(std::string after, s.run.snapshots().write_tree());
  s.facts.snapshot_after = after;
  (void)s.run.snapshots().pin(after, "runs/" + s.facts.run_id + "/after");
  if (Status saved = s.run.snapshots().flush(); !saved.ok()) {
    s.run.trajectory().record(event::kScanFailed, {{"step", nullptr}, {"error", saved.error().message}});
  }
  TRY(std::vector<Mutation> mutations, s.run.snapshots().diff(s.facts.snapshot_before, after));
  add_mode_changes(s, mutations);
  sandbox::SecretFilter secrets(s.config.secrets_allow);
  std::vector<std::string> paths;
  for (auto& m : mutations) {
    m.credential = credential_change(s, secrets, m);
    paths.push_back(m.path);
    // A credential file the turn made or changed: its values are secrets from now on, before the
    // transcript (whose Write call holds them) is read, anything is stored or the judge is asked.
    if (m.credential && m.change != "deleted") {
      auto content = s.run.snapshots().read(after, m.path);
      if (content.ok() && content->has_value()) s.run.credentials()->learn(m.path, **content);
    }
  }
  if (Status kept = s.run.snapshots().retain({s.facts.snapshot_before, after}, paths); !kept.ok())
    s.warnings.push_back("the turn's changes could not all be kept for undo: " + kept.error().message);
  s.facts.goal_kind = mutations.empty() ? GoalKind::kInspect : GoalKind::kModify;
  s.run.trajectory().record(event::kGoalKind,
                            {{"kind", to_string(s.facts.goal_kind)},
                             {"by", mutations.empty() ? "gate: nothing changed" : "gate: files changed"}});
  if (!mutations.empty()) {
    StepRecord step;
    step.id = "turn";
    step.tool = std::string("agent:") + to_string(s.agent);
    step.target = "the turn's changes";
    step.effect_tool = true;
    step.ok = true;
    step.changed_paths = paths;
    step.seq = s.run.trajectory().record(event::kWorkspaceChanged, {{"step", "turn"}, {"paths", paths}}).seq;
    for (auto& m : mutations) {
      m.steps = {"turn"};
      m.last_change_seq = step.seq;
    }
    s.facts.steps = {step};
    s.facts.steps_planned = 1;
    s.facts.budget.used.steps = 1;
  }
  s.facts.mutations = std::move(mutations);
  // .git/ and .candor/ as the turn began, against now; a `.candor` below the root is in the snapshots.
  for (const auto& m : s.facts.mutations) {
    if (sandbox::in_candor_folder(m.path)) {
      s.facts.protected_changes.push_back(
          fmt::format("`{}` ({}) is a .candor folder or lies in one, which no agent may change", m.path, m.change));
    }
  }
  std::vector<std::string> unread = s.run.snapshots().unread();
  snapshot::ProtectedState before = snapshot::protected_state_from_json(
      s.turn.start.contains("protected") ? s.turn.start["protected"] : nlohmann::json());
  // The repositories below the root the start knew, with those the stop's scan met: a scan that
  // looked only where Watchman said met only those that changed.
  std::set<std::string> nested = s.run.snapshots().nested_git();
  for (const auto& [path, entry] : before.entries) {
    if (path.ends_with("/.git")) nested.insert(path);
  }
  auto now = snapshot::capture_protected_state(s.root, nested);
  if (now.ok()) {
    auto changes = snapshot::protected_changes_by_agent(before, *now);
    s.facts.protected_changes.insert(s.facts.protected_changes.end(), changes.begin(), changes.end());
    unread.insert(unread.end(), now->unread.begin(), now->unread.end());
  } else {
    unread.push_back(".git/ and .candor/ (" + now.error().message + ")");
  }
  unread.insert(unread.end(), before.unread.begin(), before.unread.end());
  // What the turn's start could not read within its budget: nothing shows it unchanged.
  if (s.turn.start.contains("unread") && s.turn.start["unread"].is_array()) {
    for (const auto& p : s.turn.start["unread"]) {
      if (p.is_string()) unread.push_back(p.get<std::string>() + " (at the turn's start)");
    }
  }
  // The agents' hook settings (docs/design.md: hook settings are protected): the workspace's changed in
  // the turn, and the user's and managed layers against the start.
  for (const auto& m : s.facts.mutations) {
    for (const char* hook :
         {".claude/settings.json", ".claude/settings.local.json", ".codex/hooks.json", ".codex/config.toml"}) {
      if (m.path == hook)
        s.facts.protected_changes.push_back(fmt::format(
            "the agent's hook settings {} were {} during the turn (an agent that edits them can turn its gate off)",
            m.path, m.change));
    }
  }
  if (s.turn.start.contains("hook_files") && s.turn.start["hook_files"].is_object()) {
    nlohmann::json now = hook_file_states(s.root);
    for (const auto& [path, was] : s.turn.start["hook_files"].items()) {
      if (now.contains(path) && now[path] != was)
        s.facts.protected_changes.push_back(fmt::format(
            "the agent's hook settings {} were changed during the turn (an agent that edits them can turn its gate "
            "off)",
            path));
    }
  }
  // The turn changed .candor/: what it left is remembered, so the next turn's start refuses a
  // config the agent wrote (app/gate.cc).
  bool candor_changed = std::any_of(s.facts.protected_changes.begin(), s.facts.protected_changes.end(),
                                    [](const std::string& c) { return c.find("`.candor") != std::string::npos; });
  if (candor_changed) {
    auto left = executor::load_config(s.root);
    s.config_left = left.ok() && left->file_text ? sandbox::git_blob_id(*left->file_text)
                    : left.ok()                  ? "none"
                                                 : "unreadable";
  }
  std::sort(unread.begin(), unread.end());
  unread.erase(std::unique(unread.begin(), unread.end()), unread.end());
  s.facts.scan.complete = unread.empty();
  s.facts.scan.unread = unread;
  return ok_status();
}

// The config's expect and guard, on the snapshot now, each discriminated against the turn's start.
Status check_expectations(Stop& s) {
  assertions::Registry evaluators = assertions::builtin_evaluators();
  executor::ToolRegistry tools = executor::builtin_tools();
  std::string where = s.root + "/.candor/config.json (as the turn began)";
  TRY_STATUS(assertions::add_external_evaluators(evaluators, s.config.evaluators, where));
  planner::Catalog catalog = executor::make_catalog(tools, evaluators);
  TRY(std::vector<nlohmann::json> expects, parse_expects({}, s.config.expect, catalog, where));
  TRY(std::vector<nlohmann::json> guards, parse_expects({}, s.config.guard, catalog, where, "guard"));
  if (expects.empty() && guards.empty()) return ok_status();
  executor::ChangeCheckInputs inputs{s.run.snapshots().trees(),
                                     s.facts.snapshot_before,
                                     s.facts.snapshot_after,
                                     evaluators,
                                     sandbox::SecretFilter(s.config.secrets_allow),
                                     s.config.network,
                                     s.config.sandbox};
  for (const auto& m : s.facts.mutations) {
    inputs.changed_paths.push_back({m.path, m.renamed_from});
    if (m.credential && m.change != "deleted") inputs.withheld.push_back(m.path);
  }
  inputs.inputs = executor::workspace_inputs(s.root, s.config);
  inputs.deadline = s.run.deadline();
  executor::ChangeCheck checked = executor::check_change(inputs, expects, s.run.trajectory(), guards);
  s.facts.assertions = std::move(checked.assertions);
  s.facts.sandbox = checked.sandbox;
  return ok_status();
}

void read_transcript(Stop& s) {
  s.transcript = read_turn_transcript(s.agent, s.in, s.turn.turn_key, s.options, s.run.credentials()->masker().get());
  if (!s.transcript.warning.empty()) s.warnings.push_back(s.transcript.warning);
  if (!s.transcript.notice.empty()) s.warnings.push_back(s.transcript.notice);
  // What an earlier stop of this turn recorded stays; the events since are added.
  std::size_t from = static_cast<std::size_t>(std::max<std::int64_t>(0, s.turn.transcript_events));
  if (from > s.transcript.events.size()) from = 0;  // a transcript that shrank: recorded again
  record_transcript(s.transcript.events, from, s.run.trajectory());
  if (s.in.last_assistant_message) {
    s.facts.final_answer = s.in.last_assistant_message;
  } else if (s.transcript.final_answer) {
    s.facts.final_answer = s.transcript.final_answer;
  }
  s.facts.acceptance =
      turn_acceptance(s.agent, s.config.gate, s.transcript, s.run.credentials()->masker().get(), s.warnings);
  if (s.facts.acceptance.is_object()) s.run.trajectory().record(event::kAcceptance, s.facts.acceptance);
}

nlohmann::json gate_record(const Stop& s, GateAgent agent) {
  return {{"agent", to_string(agent)},
          {"session_id", s.in.session_id},
          {"turn_id", s.turn.turn_key},
          {"turn", s.turn.turn},
          {"stop", s.turn.stops + 1},
          {"blocks_before", s.turn.blocks},
          {"max_blocks", s.config.gate.max_blocks},
          {"stop_hook_active", s.in.stop_hook_active},
          {"transcript", s.transcript.record}};
}

void add_config_left(const Stop& s, nlohmann::json& gate) {
  if (!s.config_left.empty()) gate["config_left"] = s.config_left;
  // How the turn's start looked, with snapshot.fsmonitor: by Watchman's answer, or a walk and why.
  if (const auto& f = s.turn.start.value("fsmonitor", nlohmann::json()); f.is_object())
    gate["start_scan"] = {{"looked", f.value("looked", "")}, {"reason", f.value("reason", "")}};
}

// The judge: only the LLM the hook's command line names, per policy (--judge, else gate.judge,
// else auto). Null when none.
Result<std::unique_ptr<llm::Provider>> gate_judge(const GateOptions& options, const executor::GateConfig& gate,
                                                  const ProviderFactory& make_provider,
                                                  std::shared_ptr<const SecretMasker> masker, std::string& policy) {
  policy = !options.judge.empty() ? options.judge : !gate.judge.empty() ? gate.judge : "auto";
  if (options.llm.empty() || policy == "never") {
    policy = "never";
    return std::unique_ptr<llm::Provider>();
  }
  llm::ProviderOptions provider_options;
  provider_options.masker = std::move(masker);
  return make_provider(options.llm, provider_options);
}

}  // namespace

// Why `path` is not read as the agent's transcript, or "" when it may be: it lies (symlinks
// resolved) in one of the agent's transcript folders, is a regular `.jsonl` file, and its name
// carries the session's id.
std::string transcript_refusal(GateAgent agent, const std::string& path, const std::string& session,
                               const GateOptions& options, std::string& real) {
  std::error_code ec;
  fs::path resolved = fs::canonical(path, ec);
  if (ec) return fmt::format("the hook's transcript_path cannot be read ({})", ec.message());
  std::vector<std::string> roots = transcript_roots(agent, gate_env(options));
  bool inside = false;
  for (const auto& r : roots) {
    fs::path root = fs::canonical(r, ec);
    if (!ec && path_within(resolved.string(), root.string())) inside = true;
  }
  if (!inside) {
    std::string list;
    for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r;
    return fmt::format("the hook's transcript_path lies outside the folders {} keeps its transcripts in ({}): not read",
                       to_string(agent), list.empty() ? "none known: HOME is not set" : list);
  }
  if (!fs::is_regular_file(resolved, ec) || resolved.extension() != ".jsonl")
    return "the hook's transcript_path is not a .jsonl file: not read";
  if (resolved.filename().string().find(session) == std::string::npos)
    return "the hook's transcript_path is not this session's transcript (its name lacks the session id): not read";
  real = resolved.string();
  return "";
}

TurnTranscript read_turn_transcript(GateAgent agent, const HookInput& in, const std::string& turn_key,
                                    const GateOptions& options, const SecretMasker* masker) {
  TurnTranscript t;
  if (in.transcript_path.empty()) {
    t.warning = "the hook gave no transcript_path: the turn's steps are not checked";
    return t;
  }
  std::string real;
  t.warning = transcript_refusal(agent, in.transcript_path, in.session_id, options, real);
  t.record["path"] = in.transcript_path;
  if (!t.warning.empty()) {
    t.record["error"] = t.warning;
    return t;
  }
  import::Format format = transcript_format(agent);
  // Read a line at a time, twice (where the turn begins, then the turn): a long session's
  // transcript is never held whole.
  std::ifstream file;
  Status opened = import::open_transcript(real, file);
  auto slice = opened.ok() ? import::find_turn(file, format, turn_key) : Result<import::TurnStart>(opened.error());
  if (!slice.ok()) {
    t.warning = "the transcript could not be read: " + slice.error().message;
  } else if (!slice->found) {
    t.warning = "no turn begins in the transcript: the turn's steps are not checked";
  } else {
    t.prompt = slice->prompt;
    t.record["from_line"] = slice->first_line;
    t.record["by_turn_id"] = slice->by_key;
    file.clear();
    file.seekg(slice->offset);
    auto imported = import::import_trajectory(file, format, in.transcript_path + " (this turn)", masker);
    if (!imported.ok()) {
      t.warning = "the transcript could not be read: " + imported.error().message;
    } else {
      t.events = std::move(imported->events);
      t.record["events"] = t.events.size();
      t.record["skipped"] = imported->skipped;
      if (!imported->oversized.empty()) {
        // One record too large to read is named, not a reason to read none of the turn.
        t.record["oversized"] = imported->oversized;
        t.notice = fmt::format("{} transcript record{} over the size limit {} read past, the rest checked: {}",
                               imported->oversized.size(), imported->oversized.size() == 1 ? "" : "s",
                               imported->oversized.size() == 1 ? "was" : "were", imported->oversized.front());
      }
      std::set<std::string> tools;
      for (const auto& e : t.events) {
        if (e.kind == TrajectoryEvent::Kind::kToolCalled && !e.tool.empty()) tools.insert(e.tool);
        if (e.kind == TrajectoryEvent::Kind::kFinalAnswer) t.final_answer = e.text;
      }
      t.tools.assign(tools.begin(), tools.end());
    }
  }
  if (!t.warning.empty()) t.record["error"] = t.warning;
  return t;
}

GateDecision decide_stop(const RunResult& result, const store::GateTurn& turn, const executor::GateConfig& gate,
                         const SecretMasker* masker, std::vector<std::string> warnings,
                         std::vector<GateFinding>& findings) {
  verify::Tier1Result tier1 = verify::evaluate_tier1(result.facts);
  findings = gate_findings(result.facts, tier1, result.judge.asked ? &result.judge : nullptr);
  return decide_gate({.findings = findings,
                      .run_id = result.facts.run_id,
                      .verdict = to_string(result.decision.verdict),
                      .verdict_by = result.decision.by,
                      .reasons = result.decision.reasons,
                      .blocks_before = static_cast<int>(turn.blocks),
                      .max_blocks = gate.max_blocks,
                      .block_on = gate.block_on,
                      .warnings = std::move(warnings)},
                     masker);
}

void count_stop(store::RunStore& store, const store::GateTurn& turn, const RunResult& result, std::size_t events,
                const std::string& now, GateDecision& d) {
  Status counted =
      store.record_gate_stop(turn, d.block, d.block ? "block" : "allow", to_string(result.decision.verdict),
                             static_cast<std::int64_t>(events), result.facts.run_id, now);
  if (counted.ok()) return;
  std::string warning = "warning: the stop could not be counted in the store (" + counted.error().message + ")";
  if (d.block) {
    d.block = false;
    d.message = warning + "; so it is let through, though candor would have blocked it: " + d.reason;
    d.reason.clear();
  } else {
    d.message += "\n" + warning;
  }
}

void record_decision(store::RunStore& store, const store::GateTurn& turn, RunResult& result, const GateDecision& d,
                     const std::vector<GateFinding>& findings, const std::vector<std::string>& warnings,
                     const std::function<void(const nlohmann::json&)>& record_event) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : findings) list.push_back({{"kind", f.kind}, {"text", f.text}});
  nlohmann::json& gate = result.facts.gate;
  gate["decision"] = d.block ? "block" : "allow";
  gate["blocks"] = turn.blocks + (d.block ? 1 : 0);
  gate["limit_reached"] = d.limit_reached;
  gate["findings"] = list;
  gate["warnings"] = warnings;
  gate["message"] = d.message;
  if (d.block) gate["reason"] = d.reason;
  record_event(gate);
  result.report["gate"] = gate;
  if (store.masker() != nullptr) store.masker()->mask_json(result.report);
  result.stored =
      store.finish_run(result.facts.run_id, {to_string(result.facts.status), to_string(result.decision.verdict),
                                             result.decision.by, to_json(result.facts), result.report});
}

Result<GateEnded> end_gate_turn(GateAgent agent, const HookInput& in, const GateOptions& options, RunOpening& run,
                                const store::GateTurn& turn, const ProviderFactory& make_provider,
                                RunObserver* observer) {
  Stop s{.agent = agent, .in = in, .options = options, .run = run, .store = run.store(), .turn = turn};
  s.root = turn.workspace;
  TRY_STATUS(read_start(s));
  executor::apply_config_budget(s.config, s.facts.budget.limits);
  run.start_deadline(s.facts.budget.limits.timeout_s);
  if (std::error_code ec; fs::canonical(in.cwd, ec) != fs::path(s.root)) {
    s.warnings.push_back(
        fmt::format("the stop's cwd {} is not the turn's workspace {}: the turn's is checked", in.cwd, s.root));
  }
  TRY_STATUS(run.open_snapshots(s.root, s.config.snapshot_ignore));
  TRY_STATUS(s.run.snapshots().resume(s.facts.snapshot_before, s.config.snapshot_ignore));
  TRY_STATUS(open_run(s));
  s.run.trajectory().record(event::kGateStop, {{"stop", turn.stops + 1},
                                               {"stop_hook_active", in.stop_hook_active},
                                               {"blocks_before", turn.blocks},
                                               {"notes", in.notes}});
  if (in.stop_hook_active && turn.blocks == 0) {
    s.warnings.push_back(
        "the agent stops again after a block, but candor blocked none of this turn's stops: "
        "another hook did");
  }
  for (const auto& note : in.notes) s.warnings.push_back(note);
  // The stop's snapshot answers well within the Stop hook's timeout (600 s as installed; a hook the
  // agent kills lets the stop through unchecked): it reads for kStopScanS, or the start's budget
  // when larger, never past the run's. What it cannot read by then (a file the agent made too big to
  // read) is left unread: a block (`scan`).
  s.run.snapshots().set_deadline(
      s.run.deadline().within(std::chrono::seconds(std::max(kStopScanS, s.config.gate.start_timeout_s))));
  if (Status scanned = scan_turn_stop(s.run.snapshots(), s.root, s.turn.start.value("fsmonitor", nlohmann::json()),
                                      snapshot::kWatchmanTimeout, s.facts.scan);
      !scanned.ok()) {
    return scanned.error().wrap("snapshot at the stop");
  }
  TRY_STATUS(observe_workspace(s));
  read_transcript(s);
  TRY_STATUS(check_expectations(s));
  s.facts.status = RunStatus::kCompleted;
  if (s.run.snapshots().ran_out_of_time()) {
    s.facts.status = RunStatus::kBudgetExhausted;
    s.facts.budget.exhausted = BudgetKind::kTimeout;
    s.facts.status_detail = "the time budget ran out while the workspace was being read";
  }
  s.facts.gate = gate_record(s, agent);
  add_config_left(s, s.facts.gate);
  std::string policy;
  TRY(std::unique_ptr<llm::Provider> judge,
      gate_judge(options, s.config.gate, make_provider, s.run.credentials()->masker(), policy));
  s.facts.judge_policy = policy;
  TRY(verify::JudgePolicy judge_policy, verify::checked_judge_policy(policy, "the gate's judge policy"));
  auto elapsed = [&] { return s.run.deadline().elapsed_s(); };
  s.facts.budget.used.elapsed_s = elapsed();
  RunEnd end{.facts = std::move(s.facts),
             .created_at = s.created_at,
             .trajectory = &s.run.trajectory(),
             .store = &s.store,
             .sync_verdict = false,  // record_decision() stores the run again with the answer, synced
             .acceptance = nullptr,
             .events = nullptr,
             .policy = judge_policy,
             .judge = nullptr,
             .trees = nullptr,
             .before_verdict =
                 [&](RunFacts& f) {
                   f.budget.used.elapsed_s = elapsed();
                   s.run.trajectory().record(event::kRunEnded, {{"status", to_string(f.status)},
                                                                {"snapshot_after", f.snapshot_after},
                                                                {"scan", to_json(f.scan)},
                                                                {"protected_changes", f.protected_changes}});
                 },
             .deadline = &s.run.deadline()};
  snapshot::GitTrees trees = s.run.snapshots().trees();
  end.trees = &trees;
  if (judge != nullptr) {
    end.judge = [&]() -> Result<JudgeSetup> {
      return JudgeSetup{.provider = judge.get(),
                        .trees = s.run.snapshots().trees(),
                        .questions = {},
                        .credentials = s.run.credentials().get()};
    };
  }
  TRY(RunResult result, end_run(std::move(end), observer));
  if (result.judge.provider_failed) s.warnings.push_back("the judge's LLM could not be reached: " + result.judge.error);
  if (!s.run.trajectory().sink_error().empty())
    s.warnings.push_back("some events were not stored: " + s.run.trajectory().sink_error());
  GateEnded out;
  out.blocks_before = turn.blocks;
  std::vector<GateFinding> findings;
  out.decision = decide_stop(result, turn, s.config.gate, s.run.credentials()->masker().get(), s.warnings, findings);
  count_stop(s.store, turn, result, s.transcript.events.size(), format_timestamp(s.run.clock().wall()), out.decision);
  record_decision(s.store, turn, result, out.decision, findings, s.warnings,
                  [&](const nlohmann::json& gate) { s.run.trajectory().record(event::kGateDecision, gate); });
  if (!result.stored.ok()) s.warnings.push_back("the verdict could not be stored: " + result.stored.error().message);
  out.warnings = s.warnings;
  out.run = std::move(result);
  return out;
}

}  // namespace candor::app
