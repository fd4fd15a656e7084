// libFuzzer target: the Markdown, terminal and HTML renderers (report, step log, progress lines), fed
// two ways. (1) The input as a JSON report of any shape: rendering ends without an exception, the
// terminal text (no colour) holds no control character, C1 or invalid UTF-8, and every Markdown
// table row has its five cells. (2) The input cut at NUL bytes into strings of any bytes, placed in
// every text field of a well-formed report: besides (1), no line starts the way only candor's
// lines do, and the Markdown's active syntax (punctuation outside escapes and code spans) is the
// same as for a report whose strings are all "a"s of the same lengths; every tag in the HTML is one
// candor writes (no agent text opens one); the live status line of a step with those strings is one
// line that fits its width.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/credentials.h"
#include "report/escape.h"
#include "report/formats.h"
#include "report/progress.h"
#include "report/report.h"
#include "report/status_line.h"
#include "tests/render_check.h"

using namespace candor;
using nlohmann::json;

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

void check_markdown(const std::string& md) {
  require(!testing::has_raw_control(md));
  require(testing::lines_are_ours(md));
  for (const auto& line : testing::lines_of(md)) {
    if (line.rfind("| ", 0) == 0) require(testing::gfm_cells(line) == 5);
  }
}

// Every '<' in the page opens one of candor's own tags: agent text is escaped, so it opens none.
void check_html(const std::string& html) {
  static const std::vector<std::string> tags = {
      "!DOCTYPE", "html", "head", "meta",  "title", "style", "body", "header", "main", "h1",      "h2",  "h3", "p",
      "span",     "ul",   "li",   "table", "tr",    "th",    "td",   "code",   "pre",  "section", "div", "br"};
  for (std::size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    std::size_t start = at + 1 + (html.compare(at + 1, 1, "/") == 0 ? 1 : 0);
    std::size_t end = html.find_first_of(" >", start);
    require(end != std::string::npos);
    require(std::find(tags.begin(), tags.end(), html.substr(start, end - start)) != tags.end());
  }
}

void check_terminal(const std::string& text) {
  require(!testing::has_raw_control(text));
  require(testing::terminal_lines_are_ours(text));
}

std::string progress_lines(const StepRecord& step, const AssertionRecord& assertion, const std::string& note) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = ::open_memstream(&buf, &len);
  {
    report::TerminalProgress p(f, true, false);
    p.step_finished(step, {assertion});
    p.note(note);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

// Strings s[0..] (cycled) in every text field of a report shaped as build_report makes it.
json report_of(const std::vector<std::string>& s) {
  std::size_t k = 0;
  auto next = [&] { return s[k++ % s.size()]; };
  json r = {{"run_id", next()}, {"goal", next()}, {"verdict", "fail"}, {"verdict_by", next()}, {"status", next()}};
  r["reasons"] = {next(), next()};
  r["warnings"] = {next()};
  r["steps"] = {{"planned", 2}, {"executed", 2}, {"failed", 1}};
  r["budget"] = {
      {"exhausted", next()}, {"replans", {0, 3}}, {"steps", {2, 50}}, {"tokens", {0, 9}}, {"time_s", {0.5, 60}}};
  r["mutations"] = json::array({{{"path", next()}, {"change", next()}, {"lines_added", 1}, {"steps", {next(), next()}}},
                                {{"path", next()}, {"change", "deleted"}, {"binary", true}, {"steps", json::array()}}});
  r["suspicious"] = json::array({{{"reason", next()}}});
  r["assertions"] = json::array(
      {{{"step", next()}, {"type", next()}, {"passed", false}, {"message", next()}, {"by", next()}},
       {{"step", nullptr}, {"type", next()}, {"passed", true}, {"message", next()}, {"discriminating", true}}});
  r["tier2"] = {{"answers", json::array({{{"question", 1}, {"text", next()}, {"answer", next()}, {"reason", next()}}})},
                {"error", next()}};
  r["goal_validations"] = json::array({{{"attempt", 1}, {"verdict", next()}, {"reason", next()}}});
  r["acceptance"] = {{"passed", false},
                     {"checkpoints", json::array({{{"id", next()}, {"matched", false}, {"why", next()}},
                                                  {{"id", next()}, {"matched", true}, {"seq", 3}}})}};
  r["sandbox"] = {{"missing", {next()}}, {"network", next()}};
  r["step_results"] =
      json::array({{{"id", next()}, {"tool", next()}, {"target", next()}, {"ok", false}, {"error", next()}}});
  r["final_answer"] = next();
  return r;
}

void fuzz_json_report(const std::string& text) {
  json r = json::parse(text, nullptr, false);
  if (r.is_discarded()) return;
  check_markdown(report::render_markdown(r));
  std::string plain = report::render_terminal(r, {false, 80});
  require(!testing::has_raw_control(plain));
  (void)report::render_terminal(r, {true, 80});
  std::vector<Event> events;
  for (const auto& e : r.is_array() ? r : json::array({r})) {
    events.push_back({1, "", json_str(e, "type", "tool_result"), e.is_object() ? e : json::object()});
  }
  require(!testing::has_raw_control(report::render_step_log(events, 200, false)));
  check_html(report::render_html(r, events, {}));
}

// `text` as inert letters of its length, its line breaks kept: a goal of several lines is shown in a
// block of its own whatever its words, so the plain report keeps that shape too.
std::string plain_word(const std::string& text) {
  std::string out(text.size(), 'a');
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') out[i] = '\n';
  }
  return out;
}

void fuzz_strings(const std::string& text) {
  std::vector<std::string> s;
  std::size_t start = 0;
  for (std::size_t nul; (nul = text.find('\0', start)) != std::string::npos; start = nul + 1)
    s.push_back(text.substr(start, nul - start));
  s.push_back(text.substr(start));
  // Each string lands in ~40 fields: short ones keep a run cheap (a long one adds nothing new).
  for (auto& one : s) one.resize(std::min<std::size_t>(one.size(), 256));
  std::vector<std::string> plain_words;
  // A credential file's name is rendered with "content withheld" beside it: a plain word keeps
  // that property, so the two reports still have one shape.
  for (const auto& one : s) plain_words.push_back(looks_secret(one) ? std::string(".env") : plain_word(one));

  std::string md = report::render_markdown(report_of(s));
  check_markdown(md);
  require(testing::skeletons(md) == testing::skeletons(report::render_markdown(report_of(plain_words))));
  std::string plain = report::render_terminal(report_of(s), {false, 80});
  check_terminal(plain);
  require(plain.rfind("FAIL  ", 0) == 0);

  std::size_t k = 0;
  auto next = [&] { return s[k++ % s.size()]; };
  std::vector<Event> events = {
      {1, "", "plan", {{"round", 1}}},
      {2, "", "tool_called", {{"step", next()}, {"tool", next()}, {"input", {{"command", next()}}}}},
      {3, "", "tool_result", {{"step", next()}, {"ok", false}, {"error", next()}, {"output", next()}}},
      {4, "", "assertion", {{"type", next()}, {"passed", false}, {"message", next()}}}};
  require(!testing::has_raw_control(report::render_step_log(events, 64, false)));
  events.push_back({5, "", "replan", {{"round", 2}, {"reason", next()}}});
  events.push_back(
      {6, "", "plan", {{"round", 2}, {"plan", {{"steps", {{{"id", next()}, {"tool", next()}, {"why", next()}}}}}}}});
  check_html(report::render_html(report_of(s), events, {{next(), next()}}));

  StepRecord step;
  step.id = next();
  step.tool = next();
  step.target = next();
  step.ok = false;
  step.error = next();
  AssertionRecord assertion;
  assertion.type = next();
  assertion.message = next();
  require(!testing::has_raw_control(progress_lines(step, assertion, next())));

  // The live status line: one line, never wider than the terminal, whatever the agent named.
  std::size_t width = 1 + s.size() * 7 % 200;
  std::string status =
      report::status_line({std::nullopt, step.id, step.tool, step.target}, std::chrono::seconds(s.size()), width);
  require(!testing::has_raw_control(status));
  require(status.find('\n') == std::string::npos);
  require(report::column_bound(status) <= width - 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  fuzz_json_report(text);
  fuzz_strings(text);
  return 0;
}
