// `candor runs`, `candor report`, `candor evaluators`, and the error-to-exit-code mapping.
#include <cstdio>

#include <fmt/format.h>

#include "assertions/evaluator.h"
#include "cli/commands.h"
#include "report/report.h"
#include "store/run_store.h"
#include "report/escape.h"
#include "report/formats.h"
#include "sandbox/secret_files.h"
#include "verify/snapshot.h"

#include <cctype>
#include <fstream>
#include <map>

namespace candor::cli {
namespace {

Result<std::unique_ptr<store::RunStore>> open_store(const std::string& dir) {
  return store::RunStore::open(dir.empty() ? store::default_store_dir() : dir);
}

Status write_output(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) return make_error(ErrorCode::kIo, fmt::format("cannot write {}", path));
  return ok_status();
}

}  // namespace

Result<std::string> since_cutoff(const std::string& since, std::chrono::system_clock::time_point now) {
  if (since.size() >= 2 && std::isdigit(static_cast<unsigned char>(since[0]))) {
    char unit = since.back();
    std::string digits = since.substr(0, since.size() - 1);
    if (digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 9) {
      long n = std::stol(digits);
      long seconds = unit == 'd' ? n * 86400 : unit == 'h' ? n * 3600 : unit == 'm' ? n * 60 : unit == 's' ? n : -1;
      if (seconds >= 0) return format_timestamp(now - std::chrono::seconds(seconds));
    }
  }
  if (since.size() >= 10 && since[4] == '-' && since[7] == '-') return since;  // an RFC 3339 date or time
  return make_error(ErrorCode::kUsage, fmt::format("--since \"{}\": expected 2d, 12h, 30m, 45s or an RFC 3339 time", since));
}

int report_error(const Error& error) {
  std::fprintf(stderr, "candor: %s\n", report::terminal_safe(error.message, true).c_str());
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
  std::string since;
  if (!args.since.empty()) {
    auto cutoff = since_cutoff(args.since, std::chrono::system_clock::now());
    if (!cutoff.ok()) return report_error(cutoff.error());
    since = *cutoff;
  }
  auto runs = (*store)->list(args.limit, args.verdict, since);
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
    std::printf("%-22s  %-8s  %-16s  %s\n", r.id.c_str(), verdict.c_str(), r.status.c_str(), report::shorten(report::terminal_safe(r.goal), 26).c_str());
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
  } else if (args.markdown) {
    std::fputs(report::render_markdown(run->report).c_str(), stdout);
  } else if (args.html_file.empty() && args.junit_file.empty()) {
    std::fputs(report::render_terminal(run->report, {report::want_color(1), 80}).c_str(), stdout);
    if (args.verbose) std::fputs(("\nsteps\n" + report::render_step_log(run->events, 2000, report::want_color(1))).c_str(), stdout);
  }
  if (!args.html_file.empty()) {
    std::map<std::string, std::string> diffs;
    auto facts = run_facts_from_json(run->facts);
    auto snapshots = facts.ok() ? verify::SnapshotStore::open((*store)->dir(), facts->workspace)
                                : Result<std::unique_ptr<verify::SnapshotStore>>(facts.error());
    if (facts.ok() && snapshots.ok()) {
      for (const auto& m : facts->mutations) {
        if (sandbox::looks_secret(m.path)) continue;  // render_html withholds it; do not even load it
        auto patch = (*snapshots)->patch_text(facts->snapshot_before, facts->snapshot_after, m.path, 64 * 1024);
        if (patch.ok()) diffs[m.path] = *patch;
      }
    }
    if (Status s = write_output(args.html_file, report::render_html(run->report, run->events, diffs)); !s.ok()) return report_error(s.error());
  }
  if (!args.junit_file.empty()) {
    if (Status s = write_output(args.junit_file, report::render_junit({run->report})); !s.ok()) return report_error(s.error());
  }
  return kExitSuccess;
}

}  // namespace candor::cli
