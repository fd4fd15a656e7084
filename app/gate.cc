// The live gate's hook (answer_hook) and a turn's start (Session::gate_begin). A turn's stop is
// app/gate_turn.cc's.
#include "app/gate.h"

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>

#include <fmt/format.h>

#include "app/config_provenance.h"
#include "app/gate_fsmonitor.h"
#include "app/gate_install.h"
#include "app/gate_internal.h"
#include "app/inputs.h"
#include "app/run_end.h"
#include "app/run_opening.h"
#include "core/arg_schema.h"
#include "core/clock.h"
#include "core/deadline.h"
#include "core/events.h"
#include "core/json_text.h"
#include "executor/config.h"
#include "sandbox/blob_id.h"
#include "sandbox/credential_registry.h"
#include "sandbox/secret_files.h"
#include "snapshot/store.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* kConfigPath = ".candor/config.json";

// The config a turn is checked with, read when it begins: its text (kept with the turn, so the
// Stop reads these very bytes whatever the agent writes to the file meanwhile), or, when the file
// cannot be used, the config the workspace's last turn began with.
struct TurnConfig {
  executor::WorkspaceConfig config;
  std::optional<std::string> text;
  std::string warning;  // "" = the workspace's own file (or none) is used
  bool usable = true;   // false: checked without any config
};

// Who left `text` as the workspace's config, when an agent's gated turn did (its Stop recorded the
// file's blob after a change under .candor/): the newest such turn of this workspace decides, so
// a file the person changed since is theirs. "" when none did.
// `blob` is the file's git blob id now, or "none" when there is no file: a turn that deleted the
// config left "none" (its absence is a change too, and the next turn refuses it).
std::string left_by_gated_agent(const store::RunStore& store, const std::string& root, const std::string& blob) {
  auto ids = store.runs_whose_facts_mention("\"config_left\"");
  if (!ids.ok()) return "";
  for (const auto& id : *ids) {
    auto run = store.load(id);
    if (!run.ok() || !run->facts.is_object() || json_str(run->facts, "workspace") != root) continue;
    const nlohmann::json& gate = run->facts.contains("gate") ? run->facts["gate"] : nlohmann::json();
    if (!gate.is_object() || !gate.contains("config_left")) continue;
    if (json_str(gate, "config_left") != blob) return "";
    return fmt::format("{}'s turn {} (run {})", json_str(gate, "agent"), gate.value("turn", 0), id);
  }
  return "";
}

TurnConfig read_turn_config(const store::RunStore& store, const std::string& root) {
  TurnConfig out;
  auto loaded = executor::load_config(root);
  std::string refused;
  if (!loaded.ok()) {
    refused = loaded.error().message;
  } else if (loaded->file_text) {
    // A config an agent wrote (in a run, or in a gated turn) would decide how its own work is checked.
    if (Status p = check_config_provenance(store, root, *loaded->file_text, false, nullptr); !p.ok()) {
      refused = p.error().message;
    } else if (std::string by = left_by_gated_agent(store, root, sandbox::git_blob_id(*loaded->file_text));
               !by.empty()) {
      refused = fmt::format("{}/{} is as {} left it, not as you wrote it: change it yourself to use it", root,
                            kConfigPath, by);
    }
  } else if (std::string by = left_by_gated_agent(store, root, "none"); !by.empty()) {
    // No file: deleted by the agent's turn, not by the person (who writes it again, or deletes it
    // outside a turn after one that did not).
    refused = fmt::format("{}/{} was deleted by {}, not by you: write it again (`{{}}` for no checks) to change it",
                          root, kConfigPath, by);
  }
  if (refused.empty()) {
    out.text = loaded->file_text;
    out.config = std::move(loaded.value());
    return out;
  }
  auto previous = store.latest_gate_turn_with_config(root);
  if (previous.ok() && *previous) {
    std::string text = json_str((*previous)->start, "config_text");
    if (auto config = executor::parse_config_text(text, kConfigPath); config.ok()) {
      out.text = text;
      out.config = std::move(config.value());
      out.warning = fmt::format("{}; this turn is checked with the config turn {} began with (run {})", refused,
                                (*previous)->turn, (*previous)->run_id);
      return out;
    }
  }
  out.usable = false;
  out.warning = refused + "; this turn is checked without it";
  return out;
}

// The turn's start as the store keeps it: what its Stop reads instead of the workspace.
nlohmann::json start_record(const std::string& tree, const TurnConfig& config, const snapshot::ProtectedState& state,
                            const std::vector<std::string>& credential_files, const nlohmann::json& modes,
                            const HookInput& in) {
  return {{"tree", tree},
          {"modes", modes},
          {"config_text", config.text ? nlohmann::json(*config.text) : nlohmann::json(nullptr)},
          {"config_error", config.usable ? std::string() : config.warning},
          {"config_warning", config.warning},
          {"protected", snapshot::to_json(state)},
          {"credential_files", credential_files},
          {"transcript_path", in.transcript_path},
          {"notes", in.notes}};
}

HookReply fail_open(GateAgent agent, HookEvent event, const std::string& what) {
  HookReply r;
  r.event = event;
  r.warnings.push_back(what);
  r.stdout_text = render_hook_answer(agent, event, {false, "", "warning: " + what});
  return r;
}

HookReply answer(Session& session, GateAgent agent, std::string_view input, const GateOptions& options) {
  auto parsed = parse_hook_input(input, agent);
  if (!parsed.ok()) {
    return fail_open(
        agent, HookEvent::kStop,
        fmt::format("candor gate could not read the hook's input ({}): nothing was checked", parsed.error().message));
  }
  const HookInput& in = *parsed;
  HookReply reply;
  reply.event = in.event;
  if (in.event == HookEvent::kUserPromptSubmit) {
    auto begun = session.gate_begin(agent, in, options);
    if (!begun.ok()) {
      return fail_open(agent, in.event,
                       fmt::format("candor gate could not record this turn's start ({}); its stop will be checked "
                                   "against HEAD where the workspace is a git repository",
                                   begun.error().message));
    }
    reply.run_id = begun->run_id;
    reply.warnings = begun->warnings;
    std::string message;
    for (const auto& w : reply.warnings) message += (message.empty() ? "warning: " : "; ") + w;
    reply.stdout_text = render_hook_answer(agent, in.event, {false, "", message});
    return reply;
  }
  if (in.event == HookEvent::kStop) {
    auto ended = session.gate_end(agent, in, options);
    if (!ended.ok()) {
      return fail_open(agent, in.event,
                       fmt::format("candor gate could not check this stop ({}): nothing was verified, the stop is let "
                                   "through",
                                   ended.error().message));
    }
    reply.run_id = ended->run.facts.run_id;
    reply.blocked = ended->decision.block;
    reply.warnings = ended->warnings;
    reply.stdout_text =
        render_hook_answer(agent, in.event, {ended->decision.block, ended->decision.reason, ended->decision.message});
    return reply;
  }
  reply.stdout_text = render_hook_answer(agent, in.event, {});
  return reply;
}

}  // namespace

std::function<std::string(const char*)> gate_env(const GateOptions& options) {
  if (options.env) return options.env;
  return [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
}

std::vector<std::string> transcript_roots(GateAgent agent, const std::function<std::string(const char*)>& env) {
  std::vector<std::string> out;
  std::string home = env("HOME");
  if (agent == GateAgent::kClaudeCode) {
    if (std::string dir = env("CLAUDE_CONFIG_DIR"); !dir.empty()) out.push_back(dir + "/projects");
    if (!home.empty()) out.push_back(home + "/.claude/projects");
  } else {
    if (std::string dir = env("CODEX_HOME"); !dir.empty()) out.push_back(dir + "/sessions");
    if (!home.empty()) out.push_back(home + "/.codex/sessions");
  }
  return out;
}

Result<std::string> gate_workspace(const std::string& cwd, const std::string& store_dir) {
  std::error_code ec;
  fs::path real = fs::canonical(cwd, ec);
  if (ec) return make_error(ErrorCode::kInvalidInput, fmt::format("the hook's cwd {}: {}", cwd, ec.message()));
  if (!fs::is_directory(real, ec))
    return make_error(ErrorCode::kInvalidInput, "the hook's cwd " + cwd + " is not a folder");
  if (real == "/") {
    return make_error(ErrorCode::kInvalidInput,
                      "the hook's cwd is /, the whole file system: candor gates a project's folder, not that");
  }
  if (path_within(store_dir, real.string()) || path_within(real.string(), store_dir)) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("the run store {} and the workspace {} overlap: the store must lie outside the "
                                  "workspace (--store DIR on the hook's command, or CANDOR_HOME)",
                                  store_dir, real.string()));
  }
  return real.string();
}

// The agents' hook settings outside the workspace (the user's and the managed layers): each file's
// git blob id, or "absent". The stop compares: an agent that edits them turns its gate off.
nlohmann::json hook_file_states(const std::string& root) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : hook_settings_files(root, nullptr)) {
    if (!f.rel.empty()) continue;  // the workspace's own: the snapshots see them
    auto text = read_input_file(f.path, 4 * kMaxDocumentBytes);
    std::error_code ec;
    out[f.path] = text.ok()                             ? sandbox::git_blob_id(*text)
                  : std::filesystem::exists(f.path, ec) ? "unreadable"
                                                        : "absent";
  }
  return out;
}

std::string derived_turn_key(std::int64_t turn) { return fmt::format("turn-{}", turn); }

HookReply answer_hook(Session& session, GateAgent agent, std::string_view input, const GateOptions& options) {
  try {
    return answer(session, agent, input, options);
  } catch (const std::exception& e) {
    return fail_open(agent, HookEvent::kStop,
                     std::string("candor gate failed inside (") + e.what() + "): nothing was verified");
  }
}

Result<GateBegun> Session::gate_begin(GateAgent agent, const HookInput& in, const GateOptions& options) {
  std::string store_dir = store::store_location(options.store_dir).dir;
  TRY(std::string root, gate_workspace(in.cwd, store_dir));
  TRY(std::unique_ptr<RunOpening> run, RunOpening::open(options.store_dir, observer_));
  store::RunStore* store = &run->store();
  GateBegun out;
  // The first start of a turn stands: a second UserPromptSubmit for it (or one an agent forged
  // with the same key) moves nothing.
  if (!in.turn_key.empty()) {
    TRY(auto existing, store->gate_turn(to_string(agent), in.session_id, in.turn_key));
    if (existing) {
      out.run_id = existing->run_id;
      out.turn = existing->turn;
      out.already = true;
      return out;
    }
  }
  TRY(std::int64_t earlier, store->count_gate_turns(to_string(agent), in.session_id));
  std::int64_t turn = earlier + 1;
  std::string key = in.turn_key.empty() ? derived_turn_key(turn) : in.turn_key;

  // The config as it is now, before the agent works: what this turn is checked with.
  TurnConfig config = read_turn_config(*store, root);
  if (!config.warning.empty()) out.warnings.push_back(config.warning);
  for (const auto& note : in.notes) out.warnings.push_back(note);

  // The start answers within its own budget, below every agent's hook timeout (a 2 TB sparse file
  // must not make the agent give up on the hook and record nothing): what the scan could not read
  // by then is recorded with the start, and the stop treats it as an incomplete scan.
  run->start_deadline(config.config.gate.start_timeout_s);
  TRY_STATUS(run->open_snapshots(root, config.config.snapshot_ignore));
  snapshot::SnapshotStore* snapshots = &run->snapshots();
  auto fsmonitor = scan_turn_start(*snapshots, root, config.config.fsmonitor, snapshot::kWatchmanTimeout, out.warnings);
  if (!fsmonitor.ok()) return fsmonitor.error().wrap("snapshot at the turn's start");
  TRY_STATUS(snapshots->freeze_ignore_rules(config.config.snapshot_ignore));
  TRY(snapshot::ProtectedState state, snapshot::capture_protected_state(root, snapshots->nested_git()));
  TRY(std::string tree, snapshots->write_tree());
  for (const auto& unread : snapshots->unread()) out.warnings.push_back("the turn's start could not read " + unread);

  // The files whose mode is notable now (setuid, writable by others): the stop compares.
  nlohmann::json notable_modes = nlohmann::json::object();
  for (const auto& [path, mode] :
       snapshots->held_modes([](std::string_view, std::uint32_t m) { return notable_mode(m); }))
    notable_modes[path] = mode;
  // The credential files by name, and the values to mask (theirs and the scrubbed variables').
  sandbox::SecretFilter secrets(config.config.secrets_allow);
  RunFacts known;
  known.snapshot_before = tree;
  known.credential_files = snapshots->held_paths([&](std::string_view p) { return secrets.refused(p); });
  run->mask_known(snapshots->trees(), known);

  std::string goal = in.prompt.empty() ? std::string("(the hook gave no prompt)") : in.prompt;
  TRY_STATUS(run->create_run(goal, root));
  const std::string& run_id = run->run_id();
  const std::string& created_at = run->created_at();
  TRY_STATUS(snapshots->pin(tree, "runs/" + run_id + "/before"));
  if (Status saved = snapshots->flush(); !saved.ok())
    out.warnings.push_back("snapshot index: " + saved.error().message);

  store::GateTurn record{.agent = to_string(agent),
                         .session = in.session_id,
                         .turn_key = key,
                         .turn = turn,
                         .run_id = run_id,
                         .workspace = root,
                         .started_at = created_at,
                         .start = start_record(tree, config, state, known.credential_files, notable_modes, in)};
  record.start["unread"] = snapshots->unread();
  if (!fsmonitor->is_null()) record.start["fsmonitor"] = *fsmonitor;
  record.start["hook_files"] = hook_file_states(root);
  TRY(store::GateTurn stored, store->begin_gate_turn(record));
  Trajectory& trajectory = run->trajectory();
  nlohmann::json gate = {{"agent", to_string(agent)},
                         {"session_id", in.session_id},
                         {"turn_id", key},
                         {"turn", turn},
                         {"turn_id_from", in.turn_key.empty() ? "candor" : "agent"}};
  trajectory.record(
      event::kRunStarted,
      {{"goal", goal}, {"workspace", root}, {"snapshot_before", tree}, {"source", "gate"}, {"gate", gate}});
  if (stored.run_id != run_id) {
    // Another start of this turn was recorded between the look-up and now: it stands.
    (void)store->finish_run(run_id, {"error", "fail", "tier1", nullptr, nullptr});
    out.run_id = stored.run_id;
    out.turn = stored.turn;
    out.already = true;
    return out;
  }
  trajectory.record(event::kGateTurnStarted,
                    {{"gate", gate},
                     {"config", config.text ? nlohmann::json(kConfigPath) : nlohmann::json(nullptr)},
                     {"config_warning", config.warning},
                     {"credential_files", known.credential_files.size()},
                     {"unread", snapshots->unread()}});
  out.run_id = run_id;
  out.turn = turn;
  return out;
}

}  // namespace candor::app
