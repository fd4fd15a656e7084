// The run store: SQLite (WAL) holding runs and their events. It lives outside the workspace so
// no step can rewrite its own record. The only place that includes <sqlite3.h>.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/secret_masker.h"
#include "core/trajectory.h"

struct sqlite3;

namespace candor::store {

struct RunSummary {
  std::string id;
  std::string created_at;
  std::string goal;
  std::string workspace;
  std::string status;   // "running" until the run ends (or forever, if it was killed)
  std::string verdict;  // "" until the run ends
  std::string verdict_by;
  std::string undone_at;  // "" unless `candor undo` restored the workspace from this run's snapshot
};

struct StoredRun {
  RunSummary summary;
  nlohmann::json facts;   // null for a run that never finished
  nlohmann::json report;  // null for a run that never finished
  std::vector<Event> events;
};

struct RunVerdict {
  std::string status;
  std::string verdict;
  std::string verdict_by;
  nlohmann::json facts;
  nlohmann::json report;
};

// One turn of another agent that `candor gate` watches (app/gate.h): begun by the agent's
// UserPromptSubmit hook, ended (perhaps several times, when a stop was blocked) by its Stop hook.
// The turn is one run (`run_id`); this is what the next hook call needs to find it again.
struct GateTurn {
  std::string agent{};     // claude-code | codex
  std::string session{};   // the agent's session id
  std::string turn_key{};  // the agent's turn id (Codex turn_id, Claude Code prompt_id), or one candor made
  std::int64_t turn = 0;   // 1, 2, ... within the session
  std::string run_id{};
  std::string workspace{};
  std::string started_at{};
  nlohmann::json start{};              // what the turn's start fixed (app/gate.cc): the snapshot, the config, ...
  std::int64_t stops = 0;              // Stop hooks checked
  std::int64_t blocks = 0;             // ... of which the gate blocked
  std::int64_t transcript_events = 0;  // transcript events already recorded in the run
  std::string decision{};              // the last stop's: block | allow | "" before any
  std::string verdict{};
  std::string updated_at{};
};

// The store folder: --store, else $CANDOR_HOME, else $XDG_STATE_HOME/candor, else
// ~/.local/state/candor.
std::string default_store_dir();
// The same for a process whose environment `env` answers (NAME -> value, "" when unset).
std::string default_store_dir(const std::function<std::string(const char*)>& env);
// Where the store is without $CANDOR_HOME: $XDG_STATE_HOME/candor, else ~/.local/state/candor. What
// a hook resolves in an agent's environment, which does not carry a CANDOR_HOME set for one shell.
std::string state_store_dir(const std::function<std::string(const char*)>& env);

// Creates the store folder `dir` (private to its owner: run records hold file contents and
// commands) when it is missing, and returns it as RunStore::dir() will name it (absolute).
Result<std::string> prepare_store_dir(const std::string& dir);

// Not thread-safe; one per process. Several processes may share a store (WAL, busy timeout).
class RunStore final : public EventSink {
 public:
  static Result<std::unique_ptr<RunStore>> open(const std::string& dir);
  ~RunStore() override;
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::string& dir() const { return dir_; }
  // Masks the strings of everything written from now on (goals, events, facts, reports): the
  // last guard before the disk, for text that reached the store by a path that did not mask it
  // (an event recorded after the run, a report built elsewhere). May be null.
  void set_masker(std::shared_ptr<const SecretMasker> masker) { masker_ = std::move(masker); }
  const std::shared_ptr<const SecretMasker>& masker() const { return masker_; }  // may be null

  Status create_run(const std::string& id, const std::string& created_at, const std::string& goal,
                    const std::string& workspace);
  // A run under a fresh id (new_run_id), drawn again if the id is taken: two runs started in the
  // same second, even by two processes, never share an id. Returns the id.
  Result<std::string> create_new_run(std::chrono::system_clock::time_point now, const std::string& created_at,
                                     const std::string& goal, const std::string& workspace);
  Status append(const std::string& run_id, const Event& event) override;
  // Synced to disk before it returns (with every event before it in the log), unless `sync` is false:
  // then by the next synced write, for a caller that stores the run once more at once (the gate
  // stores each stop's verdict, then the same run with its answer).
  Status finish_run(const std::string& id, const RunVerdict& verdict, bool sync = true);
  // The run's stored events masked again with the masker as it is now: values the run learned late
  // (a credential file a step wrote, after its tool call was recorded) leave no event holding them.
  Status remask_events(const std::string& run_id);

  // list, resolve and load: kIo when what they read cannot be read whole (a damaged page, a stored
  // text that is not JSON, SQLite failing mid-query), never the part read so far as if it were all.

  // Newest first. `verdict` ("" = any) and `since` (an RFC 3339 time, "" = any) filter.
  Result<std::vector<RunSummary>> list(int limit, const std::string& verdict = "", const std::string& since = "") const;
  // Appends an event after the run's last one (for undo and verify, after the run ended).
  Status append_late(const std::string& run_id, const std::string& type, const nlohmann::json& data,
                     const std::string& ts);
  // Records an undo of the run in its stored report: `undone` = {"at", "restored", "removed", ...}.
  Status set_undone(const std::string& id, const nlohmann::json& undone);
  // A full id, a unique prefix of one, a unique suffix (the random part), or "last" (or ""): the
  // store's latest run, whatever workspace it was made in. Several matches are an error naming them.
  Result<std::string> resolve(const std::string& ref) const;
  // As resolve(ref), but "last" (or "") is the latest run that belongs to `workspace`
  // (run_belongs_to); kNotFound naming the workspace and `--any` when none does. An id, a prefix or
  // a suffix names its run whatever workspace it was made in.
  // REQUIRES: `workspace` is absolute and canonical, as runs record theirs.
  Result<std::string> resolve(const std::string& ref, const std::string& workspace) const;
  Result<StoredRun> load(const std::string& id) const;
  // The finished runs whose recorded facts hold `text` anywhere (a path a mutation names), newest
  // first: a cheap filter before loading them.
  Result<std::vector<std::string>> runs_whose_facts_mention(const std::string& text) const;
  Result<std::int64_t> count_runs() const;

  // The live gate's turns. begin_gate_turn records `turn` unless a turn with its key (agent,
  // session, turn_key) is recorded already, and returns the one stored: the first start of a turn
  // wins, so a second UserPromptSubmit for it (or a forged one) cannot move its snapshot.
  Result<GateTurn> begin_gate_turn(const GateTurn& turn);
  Result<std::optional<GateTurn>> gate_turn(const std::string& agent, const std::string& session,
                                            const std::string& turn_key) const;
  // The session's turn begun last; nullopt when none.
  Result<std::optional<GateTurn>> latest_gate_turn(const std::string& agent, const std::string& session) const;
  // The session's turns still open (no stop let through yet, a start recorded), the earliest first:
  // a stop is checked against the earliest (docs/design.md: a start cannot be moved).
  Result<std::vector<GateTurn>> open_gate_turns(const std::string& agent, const std::string& session) const;
  // A turn a later, real prompt superseded: closed without a stop (decision `superseded`).
  Status close_gate_turn(const GateTurn& key, const std::string& decision, const std::string& updated_at);
  Result<std::int64_t> count_gate_turns(const std::string& agent, const std::string& session) const;
  // The turn of `workspace` begun last (any agent, any session) whose start kept a usable config.
  Result<std::optional<GateTurn>> latest_gate_turn_with_config(const std::string& workspace) const;
  // One stop of the turn checked: stops + 1, blocks + 1 when `blocked`, and the rest set.
  Status record_gate_stop(const GateTurn& key, bool blocked, const std::string& decision, const std::string& verdict,
                          std::int64_t transcript_events, const std::string& run_id, const std::string& updated_at);
  // The turns last updated, newest first.
  Result<std::vector<GateTurn>> list_gate_turns(int limit) const;
  // The runs of the gate's turns `candor gc` must keep (docs/design.md, the gate against the agent it
  // gates): every open turn (no stop let through yet: the agent may still be working) and the
  // latest turn of each session (what a stop without a start in that session compares with).
  Result<std::set<std::string>> gate_runs_to_keep() const;

  // Removes the runs and their events, a few runs per transaction, so that a live run writing
  // its events meanwhile waits briefly (within the busy timeout), never fails. Unknown ids are
  // no error: a second gc may have removed them first.
  Status remove_runs(const std::vector<std::string>& ids);
  // Gives the pages removed runs freed back to the file system, where the database allows it:
  // stores created by a candor with `gc` use auto_vacuum=incremental; older ones keep the free
  // pages for later runs (a full VACUUM would block live runs). Returns whether the file could
  // shrink.
  Result<bool> compact();

 private:
  RunStore(std::string dir, sqlite3* db);
  Status exec(const char* sql) const;
  std::string text_of(const nlohmann::json& j) const;  // masked, then serialised
  std::string masked(const std::string& text) const;
  std::string dir_;
  std::shared_ptr<const SecretMasker> masker_;
  sqlite3* db_;
};

// Whether a run recorded with `run_workspace` and `source` (RunFacts::source) belongs to the
// workspace `folder`, which `last` then may name (docs/design.md, "The CLI"): its workspace is
// `folder`, or it is a `verify --git` run (source "git", whose workspace is the repository's root)
// and `folder` lies beneath that root. Paths are compared as written (absolute and canonical):
// nothing is read from the disk.
bool run_belongs_to(const std::string& run_workspace, const std::string& source, const std::string& folder);

// A new run id: sortable by time, unique: 20261122T031607-3f9a1c.
std::string new_run_id(std::chrono::system_clock::time_point now);

}  // namespace candor::store
