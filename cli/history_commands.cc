// `candor runs`, `candor report`, `candor evaluators`, and the error-to-exit-code mapping.
#include <cstdio>

#include <fmt/format.h>

#include "assertions/evaluator.h"
#include "cli/commands.h"
#include "report/report.h"
#include "store/run_store.h"

namespace candor::cli {
namespace {

Result<std::unique_ptr<store::RunStore>> open_store(const std::string& dir) {
  return store::RunStore::open(dir.empty() ? store::default_store_dir() : dir);
}

std::string fit(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

}  // namespace

int report_error(const Error& error) {
  std::fprintf(stderr, "candor: %s\n", error.message.c_str());
  switch (error.code) {
    case ErrorCode::kUsage: return kExitUsage;
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound: return kExitInvalidInput;
    case ErrorCode::kUnavailable: return kExitUnavailable;
    default: return kExitInternal;
  }
}

int runs_command(const RunsArgs& args) {
  auto store = open_store(args.store_dir);
  if (!store.ok()) return report_error(store.error());
  auto runs = (*store)->list(args.limit);
  if (!runs.ok()) return report_error(runs.error());
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : *runs) {
      out.push_back({{"run_id", r.id}, {"created_at", r.created_at}, {"goal", r.goal}, {"workspace", r.workspace},
                     {"status", r.status}, {"verdict", r.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verdict)},
                     {"verdict_by", r.verdict_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verdict_by)}});
    }
    std::puts(out.dump(2).c_str());
    return kExitSuccess;
  }
  if (runs->empty()) {
    std::printf("no runs recorded in %s\n", (*store)->dir().c_str());
    return kExitSuccess;
  }
  std::printf("%-22s  %-8s  %-16s  %s\n", "RUN", "VERDICT", "STATUS", "GOAL");
  for (const auto& r : *runs) {
    std::string verdict = r.verdict.empty() ? "-" : r.verdict;
    std::printf("%-22s  %-8s  %-16s  %s\n", r.id.c_str(), verdict.c_str(), r.status.c_str(), fit(r.goal, 26).c_str());
  }
  return kExitSuccess;
}

int report_command(const ReportArgs& args) {
  auto store = open_store(args.store_dir);
  if (!store.ok()) return report_error(store.error());
  auto id = (*store)->resolve(args.run);
  if (!id.ok()) return report_error(id.error());
  auto run = (*store)->load(*id);
  if (!run.ok()) return report_error(run.error());
  if (run->report.is_null() || run->report.is_discarded()) {
    // No run_ended: the process was killed, or is still running. Say what is known.
    std::string msg = fmt::format("run {} has no verdict: it never ended (killed, or still running); {} events recorded, "
                                  "the last of type {}",
                                  *id, run->events.size(), run->events.empty() ? "none" : run->events.back().type);
    if (args.json) {
      std::puts(nlohmann::json({{"run_id", *id}, {"goal", run->summary.goal}, {"status", run->summary.status},
                                {"verdict", nullptr}, {"events", run->events.size()}, {"message", msg}})
                    .dump(2)
                    .c_str());
    } else {
      std::puts(msg.c_str());
    }
    return kExitPartial;
  }
  if (args.json) {
    std::puts(run->report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::fputs(report::render_terminal(run->report, {report::want_color(1), 80}).c_str(), stdout);
  }
  return kExitSuccess;
}

int evaluators_command(bool json) {
  assertions::Registry registry = assertions::builtin_evaluators();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& sig : registry.signatures()) {
      nlohmann::json args = nlohmann::json::array();
      for (const auto& a : sig.args) {
        args.push_back({{"name", a.name}, {"type", arg_type_name(a.type)}, {"required", a.required}, {"description", a.description}});
      }
      out.push_back({{"type", sig.name}, {"description", sig.description}, {"args", args}});
    }
    std::puts(out.dump(2).c_str());
    return kExitSuccess;
  }
  for (const auto& sig : registry.signatures()) {
    std::string args;
    for (const auto& a : sig.args) {
      args += fmt::format("{}{}{}: {}", args.empty() ? "" : ", ", a.name, a.required ? "" : "?", arg_type_name(a.type));
    }
    std::printf("%-18s %s\n%-18s   %s\n", sig.name.c_str(), args.c_str(), "", sig.description.c_str());
  }
  return kExitSuccess;
}

}  // namespace candor::cli
