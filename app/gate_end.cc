// Session::gate_end: a Stop finds the turn its start recorded (app/gate_turn.cc), or, with none (the
// gate installed mid-session, a start that failed), verifies the working tree against HEAD as
// `verify --git HEAD..` does, with the transcript's last prompt as the goal.
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

#include "app/gate.h"
#include "app/gate_internal.h"
#include "app/hook_protocol.h"
#include "core/clock.h"
#include "core/events.h"
#include "executor/config.h"
#include "import/turn_slice.h"
#include "sandbox/credential_registry.h"
#include "snapshot/range.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

// The config of HEAD's tree (what the fallback verified with): its gate settings. Defaults when
// there is none or it cannot be read.
executor::GateConfig head_gate_config(const std::string& root, const RunFacts& facts) {
  std::string tree = facts.git.is_object() ? facts.git.value("base_tree", "") : "";
  auto repo = snapshot::GitRepository::open(root);
  if (tree.empty() || !repo.ok()) return {};
  auto text = (*repo)->trees().read(tree, ".candor/config.json");
  if (!text.ok() || !text->has_value()) return {};
  auto config = executor::parse_config_text(**text, "HEAD:.candor/config.json");
  return config.ok() ? config->gate : executor::GateConfig{};
}

// The fallback's turn in the store (a row of its own, so its stops are counted like any turn's).
Result<store::GateTurn> fallback_turn(store::RunStore& store, GateAgent agent, const HookInput& in,
                                      const std::optional<store::GateTurn>& found, const std::string& root,
                                      const std::string& run_id, const std::string& now) {
  if (found) return *found;
  TRY(std::int64_t earlier, store.count_gate_turns(to_string(agent), in.session_id));
  std::string key = in.turn_key.empty() ? derived_turn_key(earlier + 1) : in.turn_key;
  return store.begin_gate_turn({.agent = to_string(agent),
                                .session = in.session_id,
                                .turn_key = key,
                                .turn = earlier + 1,
                                .run_id = run_id,
                                .workspace = root,
                                .started_at = now,
                                .start = {{"fallback", "HEAD"}}});
}

// Whether the session's transcript holds the prompt that began the turn `key` names (Claude Code's
// promptId, Codex's turn_id): a real prompt, which the agent's own run of the hook cannot add.
bool transcript_names_turn(GateAgent agent, const HookInput& in, const std::string& key, const GateOptions& options) {
  if (in.transcript_path.empty() || key.empty()) return false;
  std::string real;
  if (!transcript_refusal(agent, in.transcript_path, in.session_id, options, real).empty()) return false;
  std::ifstream file;
  if (!import::open_transcript(real, file).ok()) return false;
  auto start = import::find_turn(file, transcript_format(agent), key);
  return start.ok() && start->found && start->by_key;
}

// The turn a stop is checked against (docs/design.md: a start cannot be moved): the session's earliest
// open turn, unless the stop names a later open turn whose prompt the transcript holds (a real
// prompt came after the earlier turn's start, which it supersedes). Without an open turn, the turn
// the stop names, else the session's latest.
Result<std::optional<store::GateTurn>> turn_to_check(GateAgent agent, const HookInput& in, const GateOptions& options,
                                                     store::RunStore& store, std::vector<std::string>& notes) {
  std::optional<store::GateTurn> named;
  if (!in.turn_key.empty()) {
    TRY(named, store.gate_turn(to_string(agent), in.session_id, in.turn_key));
  }
  TRY(std::vector<store::GateTurn> open, store.open_gate_turns(to_string(agent), in.session_id));
  if (open.empty()) {
    if (named) return named;
    // No start of this turn was recorded, but the session has turns: this one is checked from the
    // latest of them (everything since it begins), never from HEAD (where an agent that committed
    // its work shows nothing changed).
    TRY(std::optional<store::GateTurn> latest, store.latest_gate_turn(to_string(agent), in.session_id));
    if (latest && !latest->start.contains("fallback")) {
      notes.push_back(fmt::format(
          "no start of this turn was recorded: it was checked from the start of the session's turn {} ({}), which "
          "holds every change since",
          latest->turn, latest->started_at));
    }
    return latest;
  }
  const store::GateTurn& earliest = open.front();
  if (named && named->turn_key == earliest.turn_key) return named;
  bool named_open = named && std::any_of(open.begin(), open.end(),
                                         [&](const store::GateTurn& t) { return t.turn_key == named->turn_key; });
  if (named_open && transcript_names_turn(agent, in, named->turn_key, options)) {
    SystemClock clock;
    std::string now = format_timestamp(clock.wall());
    for (const auto& t : open) {
      if (t.turn >= named->turn) break;
      TRY_STATUS(store.close_gate_turn(t, "superseded", now));
    }
    return named;
  }
  notes.push_back(fmt::format(
      "this stop was checked against turn {} of the session, begun {}, still open: a later start ({}) without a "
      "prompt of its own in the transcript cannot move where the turn's changes are counted from",
      earliest.turn, earliest.started_at,
      named                 ? fmt::format("turn {}", named->turn)
      : in.turn_key.empty() ? std::string("unnamed")
                            : in.turn_key));
  return std::optional<store::GateTurn>(earliest);
}

}  // namespace

Result<GateEnded> Session::gate_end(GateAgent agent, const HookInput& in, const GateOptions& options) {
  TRY_STATUS(verify::checked_judge_policy(options.judge, "GateOptions.judge"));
  std::string store_dir = store::store_location(options.store_dir).dir;
  TRY(std::string root, gate_workspace(in.cwd, store_dir));
  TRY(std::unique_ptr<RunOpening> run, RunOpening::open(options.store_dir, observer_));
  store::RunStore* store = &run->store();
  std::optional<store::GateTurn> turn;
  std::vector<std::string> notes;
  TRY(turn, turn_to_check(agent, in, options, *store, notes));
  if (turn && !turn->start.contains("fallback")) {
    auto ended = end_gate_turn(agent, in, options, *run, *turn, make_provider_, observer_);
    if (ended.ok()) ended->warnings.insert(ended->warnings.begin(), notes.begin(), notes.end());
    return ended;
  }

  // No start recorded: the working tree against HEAD, the transcript's last prompt the goal.
  GateEnded out;
  out.fallback = true;
  // The values to mask: the variables' (the verdict's texts are masked when stored).
  sandbox::CredentialRegistry secrets;
  secrets.add_environment(::environ, {});
  TurnTranscript transcript = read_turn_transcript(agent, in, in.turn_key, options, secrets.masker().get());
  if (!transcript.warning.empty()) out.warnings.push_back(transcript.warning);
  out.warnings.push_back(
      "no start of this turn was recorded (was the gate installed during the session?): the "
      "working tree was verified against HEAD, changes made before the turn included");
  for (const auto& note : in.notes) out.warnings.push_back(note);
  std::string policy = !options.judge.empty() ? options.judge : "auto";
  VerifyGitRequest request;
  request.range = "HEAD..";
  request.repo = root;
  request.goal = !transcript.prompt.empty() ? transcript.prompt
                                            : "(the turn's prompt is not known: no turn start was recorded and the "
                                              "transcript gave none)";
  request.store_dir = store_dir;
  request.judge = options.llm.empty() ? "never" : policy;
  request.llm = options.llm;
  request.gate = {{"agent", to_string(agent)},
                  {"session_id", in.session_id},
                  {"turn_id", turn ? turn->turn_key : in.turn_key},
                  {"fallback", "HEAD"},
                  {"stop_hook_active", in.stop_hook_active},
                  {"transcript", transcript.record}};
  auto verified = verify_git(request);
  if (!verified.ok()) {
    return verified.error().wrap(
        "no start of this turn was recorded, and the working tree could not be verified against HEAD");
  }
  RunResult result = std::move(verified.value());
  SystemClock clock;
  std::string now = format_timestamp(clock.wall());
  TRY(store::GateTurn row, fallback_turn(*store, agent, in, turn, root, result.facts.run_id, now));
  result.facts.gate["turn"] = row.turn;
  result.facts.gate["turn_id"] = row.turn_key;
  result.facts.gate["stop"] = row.stops + 1;
  result.facts.gate["blocks_before"] = row.blocks;
  executor::GateConfig gate = head_gate_config(root, result.facts);
  result.facts.gate["max_blocks"] = gate.max_blocks;
  if (result.judge.provider_failed)
    out.warnings.push_back("the judge's LLM could not be reached: " + result.judge.error);
  std::vector<GateFinding> findings;
  out.blocks_before = row.blocks;
  out.decision = decide_stop(result, row, gate, secrets.masker().get(), out.warnings, findings);
  count_stop(*store, row, result, 0, now, out.decision);
  record_decision(*store, row, result, out.decision, findings, out.warnings, [&](const nlohmann::json& g) {
    (void)store->append_late(result.facts.run_id, event::kGateDecision, g, now);
  });
  out.run = std::move(result);
  return out;
}

}  // namespace candor::app
