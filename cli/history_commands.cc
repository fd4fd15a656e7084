// `candor runs` and `candor report`: the recorded runs, and one run's report in any rendering.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include <fmt/format.h>

#include "app/history.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "report/escape.h"
#include "report/formats.h"
#include "report/report.h"

namespace candor::cli {

Status write_output(const std::string& path, const std::string& text, const std::string& what) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return make_error(ErrorCode::kIo, fmt::format("cannot write {}: {}", path, std::strerror(errno ? errno : EIO)));
  out << text;
  out.flush();
  if (!out)
    return make_error(ErrorCode::kIo, fmt::format("cannot write {}: {}", path, std::strerror(errno ? errno : EIO)));
  // Said on stderr, so that --json beside it stays one document.
  std::fprintf(stderr, "wrote %s (%s, %.1f KB)\n", report::terminal_safe(path).c_str(), what.c_str(),
               static_cast<double>(text.size()) / 1024.0);
  return ok_status();
}

namespace {

// Cut to `width` characters (UTF-8 aware: never inside a character), "..." marking the cut.
std::string fit(const std::string& s, std::size_t width) {
  auto chars = [](const std::string& t) {
    std::size_t n = 0;
    for (unsigned char c : t) n += (c & 0xC0) != 0x80;
    return n;
  };
  if (chars(s) <= width) return s;
  std::size_t keep = width > 3 ? width - 3 : 0, n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == keep) break;
  }
  return s.substr(0, i) + "...";
}

// Cut from the left ("...end"), for paths, whose end says the most.
std::string fit_left(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s;
  std::size_t from = s.size() - (width > 3 ? width - 3 : 0);
  while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
  return "..." + s.substr(from);
}

std::string pad(const std::string& s, std::size_t width) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n >= width ? s : s + std::string(width - n, ' ');
}

// "3m ago", "2h ago", "5d ago" from an RFC 3339 time; "?" when it does not parse.
std::string age(const std::string& created_at, std::chrono::system_clock::time_point now) {
  std::tm tm{};
  if (created_at.size() < 19 || std::sscanf(created_at.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon,
                                            &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return "?";
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  long long secs =
      static_cast<long long>(std::chrono::system_clock::to_time_t(now)) - static_cast<long long>(timegm(&tm));
  if (secs < 0) secs = 0;
  if (secs < 60) return fmt::format("{}s ago", secs);
  if (secs < 3600) return fmt::format("{}m ago", secs / 60);
  if (secs < 86400) return fmt::format("{}h ago", secs / 3600);
  return fmt::format("{}d ago", secs / 86400);
}

std::string home_relative(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0' || std::string(home) == "/") return path;
  std::string h = home;
  if (path == h) return "~";
  if (path.rfind(h + "/", 0) == 0) return "~" + path.substr(h.size());
  return path;
}

}  // namespace

std::size_t terminal_width(int fd) {
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    char* end = nullptr;
    long n = std::strtol(c, &end, 10);
    if (*end == '\0' && n >= 20 && n <= 10000) return static_cast<std::size_t>(n);
  }
  struct winsize ws {};
  if (::isatty(fd) == 1 && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

namespace {

struct RunsArgs {
  app::RunsRequest request;
  bool json = false;
};

struct ReportArgs {
  app::ReportRequest request;
  bool json = false;
  bool markdown = false;
  bool verbose = false;
  std::string html_file;
  std::string junit_file;
};

// RUN AGE VERDICT STATUS SOURCE WORKSPACE GOAL, the last two sharing what the terminal has left. Piped
// (no terminal, no $COLUMNS), nothing is cut: runs of one workspace must stay told apart by goal.
void print_runs_table(const std::vector<store::RunSummary>& runs) {
  const char* columns = std::getenv("COLUMNS");
  const bool fitted = ::isatty(STDOUT_FILENO) == 1 || (columns != nullptr && *columns != '\0');
  const std::size_t width = terminal_width(STDOUT_FILENO);
  const std::size_t fixed = 22 + 2 + 7 + 2 + 8 + 2 + 9 + 2 + 6 + 2;
  const std::size_t rest = width > fixed + 24 ? width - fixed : 24;
  std::size_t widest_ws = 9;
  for (const auto& r : runs) widest_ws = std::max(widest_ws, report::terminal_safe(home_relative(r.workspace)).size());
  const std::size_t ws_width = fitted ? std::clamp<std::size_t>(rest / 3, 10, 32) : widest_ws;
  const std::size_t goal_width = fitted ? rest - ws_width - 2 : std::string::npos;
  auto now = std::chrono::system_clock::now();
  std::printf("%s\n", (pad("RUN", 22) + "  " + pad("AGE", 7) + "  " + pad("VERDICT", 8) + "  " + pad("STATUS", 9) +
                       "  " + pad("SOURCE", 6) + "  " + pad("WORKSPACE", ws_width) + "  GOAL")
                          .c_str());
  for (const auto& r : runs) {
    std::string verdict = r.verdict.empty() ? "-" : r.verdict;
    std::string status = !r.undone_at.empty() ? "undone" : r.status == "budget_exhausted" ? "budget" : r.status;
    std::string goal = report::terminal_safe(r.goal);
    std::replace(goal.begin(), goal.end(), '\n', ' ');
    std::printf("%s\n", (pad(r.id, 22) + "  " + pad(age(r.created_at, now), 7) + "  " + pad(verdict, 8) + "  " +
                         pad(status, 9) + "  " + pad(r.source.empty() ? "-" : r.source, 6) + "  " +
                         pad(fit_left(report::terminal_safe(home_relative(r.workspace)), ws_width), ws_width) + "  " +
                         fit(goal, goal_width))
                            .c_str());
  }
}

int runs_command(const RunsArgs& args) {
  auto list = app::list_runs(args.request);
  if (!list.ok()) return report_error(list.error());
  if (args.json) {
    std::puts(app::to_json(*list).dump(2).c_str());
  } else if (list->runs.empty()) {
    std::printf("no runs recorded in %s\n", list->store_dir.c_str());
  } else {
    print_runs_table(list->runs);
  }
  return exit_code(app::ExitCategory::kSuccess);
}

// No run_ended: the process was killed, or is still running. Say what is known.
int print_never_ended(const app::StoredReport& r, bool json) {
  const store::StoredRun& run = r.run;
  std::string msg = fmt::format(
      "run {} has no verdict: it never ended (killed, or still running); {} events recorded, "
      "the last of type {}",
      r.run_id, run.events.size(), run.events.empty() ? "none" : run.events.back().type);
  if (json) {
    std::puts(nlohmann::json({{"run_id", r.run_id},
                              {"goal", run.summary.goal},
                              {"status", run.summary.status},
                              {"verdict", nullptr},
                              {"events", run.events.size()},
                              {"message", msg}})
                  .dump(2)
                  .c_str());
  } else {
    std::puts(msg.c_str());
  }
  return exit_code(app::ExitCategory::kPartial);
}

void print_stored_report(const ReportArgs& args, const store::StoredRun& run) {
  if (args.json) {
    std::puts(run.report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else if (args.markdown) {
    std::fputs(report::render_markdown(run.report).c_str(), stdout);
  } else if (args.html_file.empty() && args.junit_file.empty()) {
    std::fputs(report::render_terminal(run.report, {report::want_color(1), 80}).c_str(), stdout);
    if (args.verbose)
      std::fputs(("\nsteps\n" + report::render_step_log(run.events, 2000, report::want_color(1))).c_str(), stdout);
  }
}

int report_command(const ReportArgs& args) {
  auto loaded = app::load_report(args.request);
  if (!loaded.ok()) return report_error(loaded.error());
  const store::StoredRun& run = loaded->run;
  if (run.report.is_null() || run.report.is_discarded()) return print_never_ended(*loaded, args.json);
  print_stored_report(args, run);
  if (!args.html_file.empty()) {
    std::string html = report::render_html(run.report, run.events, app::report_diffs(*loaded));
    if (Status s = write_output(args.html_file, html, "the HTML report of run " + run.summary.id); !s.ok())
      return report_error(s.error());
  }
  if (!args.junit_file.empty()) {
    if (Status s =
            write_output(args.junit_file, report::render_junit({run.report}), "JUnit XML of run " + run.summary.id);
        !s.ok())
      return report_error(s.error());
  }
  return exit_code(app::ExitCategory::kSuccess);
}

}  // namespace

Subcommand add_runs_command(CLI::App& app) {
  auto args = std::make_shared<RunsArgs>();
  auto* cmd = app.add_subcommand("runs", "recorded runs, newest first");
  cmd->add_option("--store", args->request.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_option("--limit", args->request.limit, "how many runs (default 20)")
      ->check(whole_number(1, 1000000, "runs"));
  one_of(cmd->add_option("--verdict", args->request.verdict, "only runs with this verdict"),
         {"success", "partial", "fail"});
  cmd->add_option("--since", args->request.since, "only runs newer than this: 2d, 12h, 30m, or an RFC 3339 time");
  one_of(cmd->add_option("--source", args->request.source,
                         "only runs made this way: run, exec, git (verify --git), gate (a gated agent's turn), eval "
                         "(candor eval)"),
         {"run", "exec", "git", "gate", "eval"});
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->footer(examples("candor runs --source gate", "candor runs --verdict partial --since 2d --json"));
  return {cmd, [args] { return runs_command(*args); }, nullptr};
}

Subcommand add_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "a run's report (default: this workspace's latest)");
  cmd->add_option("run", args->request.run,
                  "run id, a unique prefix or suffix (the random part), or last (this workspace's latest run)");
  cmd->add_option("-C,--workspace", args->request.workspace, "the workspace whose latest run last is (default: .)");
  cmd->add_flag("--any", args->request.any, "last is the store's latest run, whatever workspace it was made in");
  cmd->add_option("--store", args->request.store_dir, "run store: a folder, or a postgres:// URL (the team store)");
  cmd->add_flag("--json", args->json, "print the report JSON");
  cmd->add_flag("--markdown", args->markdown, "print Markdown for a pull-request comment");
  cmd->add_option("--html", args->html_file, "write one self-contained HTML file");
  cmd->add_option("--junit", args->junit_file, "write JUnit XML");
  cmd->add_flag("-v,--verbose", args->verbose, "add every step with its capped output");
  cmd->footer(examples("candor report", "candor report a89108 --html report.html"));
  return {cmd, [args] { return report_command(*args); }, nullptr};
}

}  // namespace candor::cli
