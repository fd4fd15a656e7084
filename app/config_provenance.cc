#include "app/config_provenance.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "app/inputs.h"
#include "core/clock.h"
#include "snapshot/store.h"

namespace candor::app {
namespace {

// `.candor/config.json` of `workspace_root` as a path of the workspace `run_root`, when it lies in it.
std::optional<std::string> config_path_in(const std::string& workspace_root, const std::string& run_root) {
  if (!path_within(workspace_root, run_root)) return std::nullopt;
  std::error_code ec;
  auto rel = std::filesystem::relative(std::filesystem::weakly_canonical(workspace_root, ec),
                                       std::filesystem::weakly_canonical(run_root, ec), ec);
  if (ec) return std::nullopt;
  std::string prefix = rel.string() == "." ? "" : rel.string() + "/";
  return prefix + ".candor/config.json";
}

}  // namespace

Status check_config_provenance(const store::RunStore& store, const std::string& workspace_root,
                               const std::string& config_text, bool trusted, RunObserver* observer) {
  TRY(std::vector<std::string> ids, store.runs_whose_facts_mention(".candor/config.json"));
  for (const auto& id : ids) {
    TRY(store::StoredRun run, store.load(id));
    if (!run.summary.undone_at.empty()) continue;  // undo put back what was there before
    auto facts = run_facts_from_json(run.facts);
    if (!facts.ok()) continue;
    auto path = config_path_in(workspace_root, facts->workspace);
    if (!path) continue;
    auto written = std::find_if(facts->mutations.begin(), facts->mutations.end(),
                                [&](const Mutation& m) { return m.path == *path && m.change != "deleted"; });
    if (written == facts->mutations.end()) continue;
    // The newest run that wrote it decides: did it leave these very bytes?
    auto snapshots = snapshot::SnapshotStore::open(store.dir(), facts->workspace, system_clock());
    if (!snapshots.ok()) return snapshots.error().wrap(fmt::format("reading what run {} wrote to {}", id, *path));
    TRY(auto left, (*snapshots)->read(facts->snapshot_after, *path));
    if (!left || *left != config_text) return ok_status();  // changed since, by someone: the user's
    std::string steps;
    for (const auto& s : written->steps) steps += (steps.empty() ? "" : ", ") + s;
    std::string who = fmt::format("run {}{}", id, steps.empty() ? "" : " (step " + steps + ")");
    if (trusted) {
      if (observer != nullptr) {
        observer->warning(fmt::format(
            "warning: {}/.candor/config.json was written by {}; used as given (--trust-config)", workspace_root, who));
      }
      return ok_status();
    }
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("{}/.candor/config.json was written by {}, not by you: a config an agent planted would decide how "
                    "its own work is checked. Review it, then run again with --trust-config, or `candor undo {}`",
                    workspace_root, who, id));
  }
  return ok_status();
}

}  // namespace candor::app
