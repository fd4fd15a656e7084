// What app/gate.cc (the hook, a turn's start) and app/gate_turn.cc (a turn's stop) share. Private to app/.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <optional>

#include <nlohmann/json.hpp>

#include "app/gate.h"
#include "app/run_opening.h"
#include "core/result.h"
#include "core/trajectory.h"
#include "executor/config.h"
#include "store/run_store.h"

namespace candor::app {

// The environment lookup of `options`, or the process's own.
std::function<std::string(const char*)> gate_env(const GateOptions& options);

// The hook's `cwd` as the workspace the gate watches: its real path, a folder, not `/`, and apart
// from the store (`store_dir`), which must lie outside it. kInvalidInput saying which.
Result<std::string> gate_workspace(const std::string& cwd, const std::string& store_dir);

// Whether a file's whole mode is one tier 1 calls suspicious when a run gives it (setuid, setgid,
// writable by its group or others): the turn's start records these, its stop compares (a new
// process knows the start's modes only so).
inline bool notable_mode(std::uint32_t mode) { return (mode & 06022) != 0; }

// The agents' hook settings outside the workspace (user and managed layers), each file's git blob id
// or "absent": recorded at a turn's start, compared at its stop (docs/design.md: hook settings are protected).
nlohmann::json hook_file_states(const std::string& root);

// The key a turn is stored under when the agent gives none (Claude Code before prompt_id): the
// turn's number in the session.
std::string derived_turn_key(std::int64_t turn);

// The turn's transcript: read only from where the agent keeps its transcripts (transcript_roots),
// only this session's, only this turn's events (import/turn_slice.h).
struct TurnTranscript {
  std::vector<TrajectoryEvent> events;
  std::optional<std::string> final_answer;
  std::string prompt;                                // the turn's prompt, when found
  std::vector<std::string> tools;                    // the tools it calls
  nlohmann::json record = nlohmann::json::object();  // facts.gate.transcript: path, events, skipped, error
  std::string warning;                               // "" when it was read
  std::string notice;                                // read, but with records read past (oversized)
};
// Why `path` is not read as the agent's transcript, or "" when it may be: it lies (symlinks
// resolved) in one of the agent's transcript folders, is a regular `.jsonl` file, and its name
// carries the session's id. `real`: the resolved path.
std::string transcript_refusal(GateAgent agent, const std::string& path, const std::string& session,
                               const GateOptions& options, std::string& real);

// `masker` (may be null): the run's secret values, masked in the events as they are read (before
// their strings are cut: import_trajectory).
TurnTranscript read_turn_transcript(GateAgent agent, const HookInput& in, const std::string& turn_key,
                                    const GateOptions& options, const SecretMasker* masker);

// The gate's answer to a stop whose verdict is `result` (`findings`: what it found).
GateDecision decide_stop(const RunResult& result, const store::GateTurn& turn, const executor::GateConfig& gate,
                         const SecretMasker* masker, std::vector<std::string> warnings,
                         std::vector<GateFinding>& findings);
// The stop counted in the store before the answer goes out: a block the store cannot count could be
// the first of endless ones, so it is let through instead, with the warning.
void count_stop(store::RunStore& store, const store::GateTurn& turn, const RunResult& result, std::size_t events,
                const std::string& now, GateDecision& d);
// The answer added to the run's facts (`gate`) and report, and stored again; `record_event` records
// the gate_decision event.
void record_decision(store::RunStore& store, const store::GateTurn& turn, RunResult& result, const GateDecision& d,
                     const std::vector<GateFinding>& findings, const std::vector<std::string>& warnings,
                     const std::function<void(const nlohmann::json&)>& record_event);

// A stop of a turn whose start `turn` recorded, verified and answered (app/gate_turn.cc), in `run`
// (its store open; the deadline, the snapshots and the trajectory are opened here).
Result<GateEnded> end_gate_turn(GateAgent agent, const HookInput& in, const GateOptions& options, RunOpening& run,
                                const store::GateTurn& turn, const ProviderFactory& make_provider,
                                RunObserver* observer);

}  // namespace candor::app
