// The run store: runs and their events, the live gate's turns and the evals, behind one interface
// with two backends (store/sqlite_store.h, the default; store/postgres_store.h, the team store). It
// lives outside the workspace so no step can rewrite its own record.
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
  std::string source;     // RunFacts::source: run | exec | git | gate | eval | trajectory ("" until it ends)
  std::string machine;    // the host that made it: its snapshots are there
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

// Whether `given` names a PostgreSQL store (postgres:// or postgresql://) rather than a folder.
bool is_store_url(const std::string& given);
// `url` fit to print: its password, and any password= or sslpassword= parameter, replaced by ***.
std::string masked_store_url(const std::string& url);

// Where runs are recorded: --store (a folder, or a postgres:// URL), else $CANDOR_STORE_URL, else
// default_store_dir(). `dir` is always a folder on this machine: the SQLite store's, and the
// snapshots' (they stay on the machine that made them, whichever store holds the runs).
struct StoreLocation {
  std::string url;  // "" = the SQLite store in `dir`
  std::string dir;
};
StoreLocation store_location(const std::string& given);
StoreLocation store_location(const std::string& given, const std::function<std::string(const char*)>& env);

// Creates the store folder `dir` (private to its owner: run records hold file contents and
// commands) when it is missing, and returns it as RunStore::dir() will name it (absolute).
Result<std::string> prepare_store_dir(const std::string& dir);

// One attempt of one task of an eval (`candor eval`, docs/eval.md), keyed by (eval_id, task_id,
// attempt): written again as the attempt goes (running, then done), never twice.
struct EvalAttempt {
  std::string eval_id{};
  std::string task_id{};
  std::int64_t attempt = 1;
  std::string agent{};    // claude-code | codex | candor | command:PROG
  std::string state{};    // running | done | infra_error (the task's repository or commit, not the agent)
  std::string run_id{};   // "" until the attempt's run is opened
  std::string claimed{};  // the agent's claim: success | failure | none (no final answer)
  std::string verdict{};  // success | partial | fail; "" unless done
  std::string machine{};  // where it ran (its snapshots and worktree are there)
  std::string updated_at{};
  nlohmann::json record = nlohmann::json::object();  // the rest: answer, findings, cheats, tokens, cost, wall time
};

// An eval's task list, fixed by its first shard: a later shard with another task file is refused,
// and `eval report` names the tasks no shard reported.
struct EvalPlan {
  std::string eval_id{};
  std::string tasks_digest{};  // the task file's tasks as parsed, hashed (fnv1a64:..., app/eval_tasks.h)
  std::int64_t shards = 1;
  std::string created_at{};
  nlohmann::json tasks = nlohmann::json::array();  // [{"id", "shard"}], in the file's order
};

// A run in a store: SQLite in a folder (the default), or PostgreSQL (the team store). Both keep
// the same schema, migrated forward by version; a store written by a newer candor is refused.
// Not thread-safe; one per thread. Several processes (and machines, on PostgreSQL) may share one.
class RunStore : public EventSink {
 public:
  // `given` as store_location() takes it: a folder, a postgres:// URL, or "" (the default).
  static Result<std::unique_ptr<RunStore>> open(const std::string& given);
  ~RunStore() override = default;
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // The local folder: the SQLite store's, and the snapshots' on this machine.
  const std::string& dir() const { return dir_; }
  // What to call the store in a message: its folder, or its URL with any password masked.
  virtual std::string describe() const { return dir_; }
  // Masks the strings of everything written from now on (goals, events, facts, reports): the
  // last guard before the disk, for text that reached the store by a path that did not mask it
  // (an event recorded after the run, a report built elsewhere). May be null.
  void set_masker(std::shared_ptr<const SecretMasker> masker) { masker_ = std::move(masker); }
  const std::shared_ptr<const SecretMasker>& masker() const { return masker_; }  // may be null

  virtual Status create_run(const std::string& id, const std::string& created_at, const std::string& goal,
                            const std::string& workspace) = 0;
  // A run under a fresh id (new_run_id), drawn again if the id is taken: two runs started in the
  // same second, even by two processes, never share an id. Returns the id.
  virtual Result<std::string> create_new_run(std::chrono::system_clock::time_point now, const std::string& created_at,
                                             const std::string& goal, const std::string& workspace) = 0;
  // Synced to disk before it returns (with every event before it in the log), unless `sync` is false:
  // then by the next synced write, for a caller that stores the run once more at once (the gate
  // stores each stop's verdict, then the same run with its answer). The run's source is its facts'.
  virtual Status finish_run(const std::string& id, const RunVerdict& verdict, bool sync = true) = 0;
  // The run's stored events masked again with the masker as it is now: values the run learned late
  // (a credential file a step wrote, after its tool call was recorded) leave no event holding them.
  virtual Status remask_events(const std::string& run_id) = 0;

  // list, resolve and load: kIo when what they read cannot be read whole (a damaged page, a stored
  // text that is not JSON, the database failing mid-query), never the part read so far as if it were all.

  // Newest first. `verdict`, `source` ("" = any) and `since` (an RFC 3339 time, "" = any) filter.
  virtual Result<std::vector<RunSummary>> list(int limit, const std::string& verdict = "",
                                               const std::string& since = "", const std::string& source = "") const = 0;
  // Appends an event after the run's last one (for undo and verify, after the run ended).
  virtual Status append_late(const std::string& run_id, const std::string& type, const nlohmann::json& data,
                             const std::string& ts) = 0;
  // Records an undo of the run in its stored report: `undone` = {"at", "restored", "removed", ...}.
  virtual Status set_undone(const std::string& id, const nlohmann::json& undone) = 0;
  // A full id, a unique prefix of one, a unique suffix (the random part), or "last" (or ""): the
  // store's latest run, whatever workspace it was made in. Several matches are an error naming them.
  Result<std::string> resolve(const std::string& ref) const;
  // As resolve(ref), but "last" (or "") is the latest run that belongs to `workspace`
  // (run_belongs_to); kNotFound naming the workspace and `--any` when none does. An id, a prefix or
  // a suffix names its run whatever workspace it was made in.
  // REQUIRES: `workspace` is absolute and canonical, as runs record theirs.
  Result<std::string> resolve(const std::string& ref, const std::string& workspace) const;
  virtual Result<StoredRun> load(const std::string& id) const = 0;
  // The finished runs whose recorded facts hold `text` anywhere (a path a mutation names), newest
  // first: a cheap filter before loading them.
  virtual Result<std::vector<std::string>> runs_whose_facts_mention(const std::string& text) const = 0;
  virtual Result<std::int64_t> count_runs() const = 0;

  // The live gate's turns. begin_gate_turn records `turn` unless a turn with its key (agent,
  // session, turn_key) is recorded already, and returns the one stored: the first start of a turn
  // wins, so a second UserPromptSubmit for it (or a forged one) cannot move its snapshot.
  virtual Result<GateTurn> begin_gate_turn(const GateTurn& turn) = 0;
  virtual Result<std::optional<GateTurn>> gate_turn(const std::string& agent, const std::string& session,
                                                    const std::string& turn_key) const = 0;
  // The session's turn begun last; nullopt when none.
  virtual Result<std::optional<GateTurn>> latest_gate_turn(const std::string& agent,
                                                           const std::string& session) const = 0;
  // The session's turns still open (no stop let through yet, a start recorded), the earliest first:
  // a stop is checked against the earliest (docs/design.md: a start cannot be moved).
  virtual Result<std::vector<GateTurn>> open_gate_turns(const std::string& agent, const std::string& session) const = 0;
  // A turn a later, real prompt superseded: closed without a stop (decision `superseded`).
  virtual Status close_gate_turn(const GateTurn& key, const std::string& decision, const std::string& updated_at) = 0;
  virtual Result<std::int64_t> count_gate_turns(const std::string& agent, const std::string& session) const = 0;
  // The turn of `workspace` begun last (any agent, any session) whose start kept a usable config.
  virtual Result<std::optional<GateTurn>> latest_gate_turn_with_config(const std::string& workspace) const = 0;
  // One stop of the turn checked: stops + 1, blocks + 1 when `blocked`, and the rest set.
  virtual Status record_gate_stop(const GateTurn& key, bool blocked, const std::string& decision,
                                  const std::string& verdict, std::int64_t transcript_events, const std::string& run_id,
                                  const std::string& updated_at) = 0;
  // The turns last updated, newest first.
  virtual Result<std::vector<GateTurn>> list_gate_turns(int limit) const = 0;
  // The runs of the gate's turns `candor gc` must keep (docs/design.md, the gate against the agent it
  // gates): every open turn (no stop let through yet: the agent may still be working) and the
  // latest turn of each session (what a stop without a start in that session compares with).
  virtual Result<std::set<std::string>> gate_runs_to_keep() const = 0;

  // Evals (`candor eval`). register_eval records `plan` unless the eval is recorded already, and
  // returns the one stored: the first shard's task list stands.
  virtual Result<EvalPlan> register_eval(const EvalPlan& plan) = 0;
  virtual Result<std::optional<EvalPlan>> eval_plan(const std::string& eval_id) const = 0;
  // Writes the attempt, replacing the one recorded under its key: a shard re-run after a kill
  // records each (task, attempt) once.
  virtual Status put_eval_attempt(const EvalAttempt& attempt) = 0;
  // The eval's attempts, by task and attempt.
  virtual Result<std::vector<EvalAttempt>> eval_attempts(const std::string& eval_id) const = 0;
  // The evals recorded, newest first.
  virtual Result<std::vector<EvalPlan>> list_evals(int limit) const = 0;

  // Removes the runs and their events, a few runs per transaction, so that a live run writing
  // its events meanwhile waits briefly, never fails. Unknown ids are no error: a second gc may have
  // removed them first.
  virtual Status remove_runs(const std::vector<std::string>& ids) = 0;
  // Gives the pages removed runs freed back to the file system, where the database allows it.
  // Returns whether the file could shrink (never for PostgreSQL: its own VACUUM does that).
  virtual Result<bool> compact() = 0;

 protected:
  explicit RunStore(std::string dir) : dir_(std::move(dir)) {}
  std::string text_of(const nlohmann::json& j) const;  // masked, then serialised
  std::string masked(const std::string& text) const;
  // The runs (id, workspace, source) of `workspace` and of the folders above it, newest first.
  struct Candidate {
    std::string id, workspace, source;
  };
  virtual Result<std::vector<Candidate>> runs_at_or_above(const std::string& workspace) const = 0;
  // Up to `limit` ids that begin or end with `ref`, in id order.
  virtual Result<std::vector<std::string>> ids_matching(const std::string& ref, int limit) const = 0;

 private:
  std::string dir_;
  std::shared_ptr<const SecretMasker> masker_;
};

// Whether a run recorded with `run_workspace` and `source` (RunFacts::source) belongs to the
// workspace `folder`, which `last` then may name (docs/design.md, "The CLI"): its workspace is
// `folder`, or it is a `verify --git` run (source "git", whose workspace is the repository's root)
// and `folder` lies beneath that root. Paths are compared as written (absolute and canonical):
// nothing is read from the disk.
bool run_belongs_to(const std::string& run_workspace, const std::string& source, const std::string& folder);

// A run's source as its facts say (RunFacts::source), "" when they do not.
std::string run_source(const nlohmann::json& facts);

// The host name runs record as their machine ("" when it cannot be read).
std::string this_machine();

// A new run id: sortable by time, unique: 20261122T031607-3f9a1c.
std::string new_run_id(std::chrono::system_clock::time_point now);

}  // namespace candor::store
