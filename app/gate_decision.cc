#include "app/gate_decision.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "report/escape.h"
#include "verify/scope.h"

namespace candor::app {
namespace {

// "command_succeeds `pytest -q`", "file_contains css/style.css": an assertion as a person names it.
std::string name_of(const AssertionRecord& a) {
  std::string what = a.type;
  if (a.assertion.contains("command") && a.assertion["command"].is_string()) {
    what += " `" + a.assertion["command"].get<std::string>() + "`";
  } else if (!a.path.empty()) {
    what += " " + a.path;
  } else if (a.assertion.contains("path") && a.assertion["path"].is_string()) {
    what += " " + a.assertion["path"].get<std::string>();
  }
  return what;
}

// The last evaluation of each of the user's assertions (by its JSON), in the order first made.
std::vector<const AssertionRecord*> last_user_evaluations(const RunFacts& f) {
  std::map<std::string, const AssertionRecord*> last;
  std::vector<std::string> order;
  for (const auto& a : f.assertions) {
    if (a.by != Provenance::kUser || a.reads_step) continue;
    std::string key = (a.guard ? "guard " : "expect ") + a.assertion.dump();
    if (last.count(key) == 0) order.push_back(key);
    last[key] = &a;
  }
  std::vector<const AssertionRecord*> out;
  for (const auto& k : order) out.push_back(last[k]);
  return out;
}

void add_acceptance(const RunFacts& f, std::vector<GateFinding>& out) {
  const nlohmann::json& acc = f.acceptance;
  if (!acc.is_object() || acc.value("passed", true) || acc.contains("error")) return;
  if (!acc.contains("checkpoints") || !acc["checkpoints"].is_array()) return;
  for (const auto& c : acc["checkpoints"]) {
    if (!c.is_object() || !c.value("essential", true) || c.value("matched", false)) continue;
    std::string why = json_str(c, "why");
    out.push_back({"checkpoint", fmt::format("the essential checkpoint `{}` of the acceptance spec was not reached{}",
                                             json_str(c, "id"), why.empty() ? "" : ": " + why)});
  }
}

void add_judge(const RunFacts& f, const verify::JudgeOutcome* judge, std::vector<GateFinding>& out) {
  if (judge == nullptr || !judge->asked) return;
  if (f.mutations.empty() && judge->asks_for_change.value_or(false)) {
    out.push_back({"unchanged", "the request asks for a change, and nothing in the workspace changed"});
  }
  if (!judge->answered) return;
  for (const auto& a : judge->answers) {
    if (verify::good_answer(*judge, a) || a.not_shown) continue;
    std::string q = a.question >= 1 && a.question <= static_cast<int>(judge->questions.size())
                        ? judge->questions[static_cast<std::size_t>(a.question - 1)]
                        : fmt::format("question {}", a.question);
    if (q == verify::kTestAwareQuestion) {
      // Evidence of tampering (docs/design.md, rule 3b), not a goal left unmet.
      out.push_back({"tampering", fmt::format("the judge says the change special-cases the tests{}",
                                              a.reason.empty() ? "" : ": " + a.reason)});
      continue;
    }
    out.push_back(
        {"judge", fmt::format("the judge answered no to \"{}\"{}", q, a.reason.empty() ? "" : ": " + a.reason)});
  }
}

// What to do about a kind of finding, said to the agent.
const char* advice(const std::string& kind) {
  static const std::map<std::string, const char*> kAdvice = {
      {"expectation", "make the failing checks pass by fixing the work itself; never weaken, skip or delete a check"},
      {"checkpoint", "do the steps the acceptance spec requires that are missing"},
      {"sandbox",
       "a check failed because candor's sandbox kept it from a path outside the workspace, which your work cannot "
       "change: do not edit the check; tell the person it needs that path in sandbox.read_paths "
       "(.candor/config.json)"},
      {"protected",
       "put back what you changed under .git/ or .candor/ and in the agents' hook settings: those are not yours to "
       "change"},
      {"sensitive",
       "undo the changes to the sensitive paths named; if the person asked for them, stop and tell them so "
       "(candor's `scope` must name such a path)"},
      {"scope", "undo the changes outside the paths this workspace allows (config `scope`)"},
      {"scan", "make the paths named readable again, or remove what you created there, so they can be checked"},
      {"suspicious", "undo the permission, owner or special-file changes named"},
      {"judge", "address what the reviewer answered no to"},
      {"tampering",
       "put the tests back as they were and make them pass by fixing the code: never edit, skip or delete a test "
       "to make it pass, and never special-case the tests' inputs or the test runner"},
      {"unchanged", "the request asks for a change: make it"},
  };
  auto it = kAdvice.find(kind);
  return it == kAdvice.end() ? "fix what is named above" : it->second;
}

std::string masked(const SecretMasker* masker, const std::string& text) {
  return masker == nullptr ? text : masker->mask(text);
}

std::string block_reason(const GateDecisionInput& in, const std::vector<GateFinding>& blocking,
                         const SecretMasker* masker) {
  std::string head = fmt::format(
      "candor checked the workspace before letting you stop and found {} problem{} (stop blocked, {} of {}):\n",
      blocking.size(), blocking.size() == 1 ? "" : "s", in.blocks_before + 1, in.max_blocks);
  std::vector<std::string> kinds;
  for (const auto& f : blocking) {
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  }
  std::string todo = "What to do:\n";
  for (const auto& k : kinds) todo += fmt::format("- {}\n", advice(k));
  todo += fmt::format("Then stop again: candor checks the workspace once more. (candor run {})", in.run_id);
  // The findings that fit between the two, then how many did not.
  std::size_t room =
      kMaxReasonBytes > head.size() + todo.size() + 80 ? kMaxReasonBytes - head.size() - todo.size() - 80 : 0;
  std::string list;
  std::size_t shown = 0;
  for (const auto& f : blocking) {
    std::string line = cut_text(fmt::format("- [{}] {}", f.kind, masked(masker, f.text)), 600) + "\n";
    if (list.size() + line.size() > room) break;
    list += line;
    ++shown;
  }
  if (shown < blocking.size()) {
    list += fmt::format("- ... and {} more (candor report {})\n", blocking.size() - shown, in.run_id);
  }
  return cut_text(masked(masker, head + list + todo), kMaxReasonBytes);
}

// What the agent and the person are told, as every CLI output is: text from the workspace, the
// config and the commands' output made inert (an ESC, OSC or BEL a check printed is shown, never
// sent), then cut.
std::string said(const std::string& text, std::size_t max) {
  return cut_text(report::terminal_safe(text, /*keep_newlines=*/true), max);
}

std::string verdict_line(const GateDecisionInput& in) {
  return fmt::format("verdict {}{} (candor run {})", in.verdict, in.verdict_by.empty() ? "" : " by " + in.verdict_by,
                     in.run_id);
}

}  // namespace

std::string cut_text(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  constexpr std::string_view kCut = " [...]";
  std::size_t limit = max > kCut.size() ? max - kCut.size() : 0;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::size_t line = text.rfind('\n', end);
  if (line != std::string::npos && line > limit / 2) end = line;
  return text.substr(0, end) + std::string(kCut);
}

std::vector<GateFinding> gate_findings(const RunFacts& facts, const verify::Tier1Result& tier1,
                                       const verify::JudgeOutcome* judge) {
  std::vector<GateFinding> out;
  for (const AssertionRecord* a : last_user_evaluations(facts)) {
    if (a->passed) continue;
    // Refused by candor's own sandbox: the agent cannot fix that by changing the work.
    out.push_back(
        {a->sandbox_refused.empty() ? "expectation" : "sandbox",
         fmt::format("{} {} failed: {}", a->guard ? "the guard" : "the expected check", name_of(*a), a->message)});
  }
  // A user's command that passes only through the turn's own edits to its tests (tests of record).
  for (const auto& f : tier1.findings) {
    if (f.text.rfind(verify::kTamperingPhrase, 0) == 0) out.push_back({"tampering", f.text});
  }
  add_acceptance(facts, out);
  // A question answered (nothing changed, and no judge said the turn asks for a change): what the
  // turn did not have to do is no evidence against it.
  bool asks_for_change = judge != nullptr && judge->asks_for_change.value_or(false);
  if (facts.mutations.empty() && !asks_for_change) {
    for (auto& f : out) {
      f.may_block = false;
      f.text += " (this turn changed nothing and is not known to ask for a change: not blocking)";
    }
  }
  std::set<std::string> said;  // tier 1's suspicious sentences this says under another kind
  for (const auto& change : facts.protected_changes) {
    out.push_back({"protected", change});
    said.insert(change);
  }
  for (const auto& s : verify::scope_findings(facts)) {
    out.push_back({s.sensitive ? "sensitive" : "scope", s.reason});
    said.insert(s.reason);
  }
  if (!facts.scan.complete) {
    std::string unread;
    for (std::size_t i = 0; i < facts.scan.unread.size() && i < 10; ++i)
      unread += (i ? ", " : "") + facts.scan.unread[i];
    if (facts.scan.unread.size() > 10) unread += fmt::format(" and {} more", facts.scan.unread.size() - 10);
    out.push_back({"scan", "the scan could not read " + (unread.empty() ? std::string("every path") : unread) +
                               ", so what is there is not known"});
  }
  for (const auto& s : tier1.signals.suspicious) {
    if (said.count(s.reason) == 0) out.push_back({"suspicious", s.reason});
  }
  add_judge(facts, judge, out);
  return out;
}

GateDecision decide_gate(const GateDecisionInput& in, const SecretMasker* masker) {
  GateDecision d;
  for (const auto& f : in.findings) {
    if (f.may_block && std::find(in.block_on.begin(), in.block_on.end(), f.kind) != in.block_on.end())
      d.blocking.push_back(f);
  }
  std::string warnings;
  for (const auto& w : in.warnings) warnings += "\nwarning: " + w;
  if (!d.blocking.empty() && in.blocks_before < in.max_blocks) {
    d.block = true;
    d.reason = said(block_reason(in, d.blocking, masker), kMaxReasonBytes);
    d.message = said(
        masked(masker, fmt::format("candor blocked this stop ({} of {}): {}{}; {}{}", in.blocks_before + 1,
                                   in.max_blocks, d.blocking.front().text,
                                   d.blocking.size() > 1 ? fmt::format(" (and {} more)", d.blocking.size() - 1) : "",
                                   verdict_line(in), warnings)),
        4096);
    return d;
  }
  std::string text;
  if (!d.blocking.empty()) {
    d.limit_reached = true;
    text = fmt::format(
        "warning: candor let this stop through after blocking it {} time{} (gate.max_blocks), though "
        "it still finds {} problem{}: ",
        in.blocks_before, in.blocks_before == 1 ? "" : "s", d.blocking.size(), d.blocking.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < d.blocking.size() && i < 5; ++i)
      text += (i ? "; " : "") + fmt::format("[{}] {}", d.blocking[i].kind, d.blocking[i].text);
    text += "; " + verdict_line(in);
  } else {
    text = "candor: " + verdict_line(in);
    for (std::size_t i = 0; i < in.reasons.size() && i < 3; ++i) text += (i ? "; " : ": ") + in.reasons[i];
    if (in.reasons.size() > 3) text += fmt::format(" (and {} more)", in.reasons.size() - 3);
    for (std::size_t i = 0; i < in.findings.size() && i < 3; ++i)
      text += fmt::format("; not blocking: [{}] {}", in.findings[i].kind, in.findings[i].text);
    if (in.findings.size() > 3) text += fmt::format(" (and {} more findings)", in.findings.size() - 3);
  }
  d.message = said(masked(masker, text + warnings), 4096);
  return d;
}

}  // namespace candor::app
