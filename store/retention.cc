#include "store/retention.h"

#include "core/clock.h"

namespace candor::store {

RetentionChoice choose_runs_to_remove(const std::vector<RunSummary>& newest_first, const RetentionPolicy& policy,
                                      std::chrono::system_clock::time_point now,
                                      const std::function<bool(const RunSummary&)>& maybe_live) {
  RetentionChoice out;
  // created_at is always format_timestamp's fixed-width UTC form, so text order is time order.
  std::optional<std::string> cutoff;
  if (policy.older_than) cutoff = format_timestamp(now - *policy.older_than);
  for (std::size_t i = 0; i < newest_first.size(); ++i) {
    const RunSummary& run = newest_first[i];
    bool beyond_keep = !policy.keep || i >= *policy.keep;
    bool old_enough = !cutoff || run.created_at < *cutoff;
    bool chosen = (policy.keep || policy.older_than) && beyond_keep && old_enough;
    if (chosen && run.status == "running" && maybe_live(run)) {
      out.kept_live.push_back(run);
      chosen = false;
    }
    if (chosen) {
      out.remove.push_back(run);
    } else {
      ++out.kept;
    }
  }
  return out;
}

}  // namespace candor::store
