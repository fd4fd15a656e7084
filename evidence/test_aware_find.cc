// find_test_aware: which paths of a run's change each rule of evidence/test_aware.h reads, and the
// tests' and the source's literals, read through core::TreeReader.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/credentials.h"
#include "evidence/command_coverage.h"
#include "evidence/test_aware.h"

namespace candor::evidence {
namespace {

bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

// Code, whose literals are the program's: not documentation, data or configuration.
bool code_file(std::string_view path) {
  static constexpr std::string_view kExtensions[] = {
      ".py",    ".pyi", ".js",  ".mjs", ".cjs", ".jsx", ".ts", ".mts",  ".cts", ".tsx",  ".c",   ".h",     ".cc",
      ".cpp",   ".cxx", ".hpp", ".hh",  ".hxx", ".go",  ".rs", ".java", ".kt",  ".rb",   ".php", ".cs",    ".swift",
      ".scala", ".m",   ".mm",  ".lua", ".pl",  ".pm",  ".sh", ".ex",   ".exs", ".dart", ".vue", ".svelte"};
  return std::any_of(std::begin(kExtensions), std::end(kExtensions),
                     [&](std::string_view e) { return ends_with(path, e); });
}

// The user's commands: the assertions whose reading as tests the rules ask.
std::vector<const AssertionRecord*> user_commands(const RunFacts& facts) {
  std::vector<const AssertionRecord*> out;
  std::set<std::string> seen;
  for (const auto& a : facts.assertions) {
    if (a.by != Provenance::kUser || !a.assertion.is_object()) continue;
    bool command = (a.assertion.contains("command") && a.assertion["command"].is_string()) || a.before.has_value();
    if (!command) continue;
    nlohmann::json key = a.assertion;
    key.erase("covers");
    if (seen.insert(key.dump()).second) out.push_back(&a);
  }
  return out;
}

struct Trees {
  std::string from, to;
};

Trees trees_of(const RunFacts& facts, const Mutation& m) {
  if (m.committed) return {facts.commits_from_tree, facts.commits_to_tree};
  return {facts.snapshot_before, facts.snapshot_after};
}

}  // namespace

Result<std::vector<TestAwareFlag>> find_test_aware(const TreeReader& trees, const RunFacts& facts) {
  std::vector<TestAwareFlag> out;
  if (facts.snapshot_before.empty() || facts.snapshot_after.empty()) return out;
  std::vector<const AssertionRecord*> commands = user_commands(facts);
  std::vector<CommandTests> tests;
  for (const auto* c : commands) tests.emplace_back(c->assertion);
  std::set<std::string> credentials(facts.credential_files.begin(), facts.credential_files.end());
  auto secret = [&](const std::string& path) { return credentials.count(path) > 0 || looks_secret(path); };

  std::vector<LineChange> literal_candidates;  // rule (b): changes a user command's covers take in
  auto wanted = [&](const Mutation& m) {
    Trees t = trees_of(facts, m);
    return !(m.binary || m.credential || m.change == "mode" || secret(m.path) || t.from.empty() || t.to.empty());
  };
  // The patches, one diff per pair of trees (the run's, the commits'), not one per path.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> asked;
  for (const auto& m : facts.mutations) {
    if (!wanted(m)) continue;
    Trees t = trees_of(facts, m);
    asked[{t.from, t.to}].push_back(m.path);
  }
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> patches;
  for (const auto& [pair, paths] : asked) {
    auto got = trees.patch_texts(pair.first, pair.second, paths, kMaxPatchBytes);
    if (got.ok()) patches[pair] = std::move(got.value());  // none to read: the judge's evidence says so
  }
  for (const auto& m : facts.mutations) {
    if (!wanted(m)) continue;
    Trees t = trees_of(facts, m);
    auto of_pair = patches.find({t.from, t.to});
    if (of_pair == patches.end()) continue;
    auto patch = of_pair->second.find(m.path);
    if (patch == of_pair->second.end()) continue;
    LineChange change = line_change(m.path, m.change, patch->second);
    TestFileKind kind = test_file_kind(m.path);
    bool named = false, test_code = false;
    for (const auto& t2 : tests) {
      const auto& n = t2.named();
      named = named || std::find(n.begin(), n.end(), m.path) != n.end();
      // A test by convention or name that the command runs; a source file it merely names
      // (`grep -q x src/a.py`) is the change's, and read.
      test_code = test_code || restored_on_record(t2, m.path);
    }
    if (commands.empty()) test_code = conventional_test_path(m.path);
    if (!named) {
      for (auto& f : edits_runner_input(change)) out.push_back(std::move(f));
    }
    // (a)-(c) read code: not the tests, not documentation (a page about sys.modules is no reader of it).
    if (kind != TestFileKind::kTestCode || test_code || !code_file(m.path)) continue;
    for (auto& f : reads_or_bypasses_tests(change)) out.push_back(std::move(f));
    bool covered = std::any_of(commands.begin(), commands.end(),
                               [&](const AssertionRecord* c) { return command_may_cover(c->assertion, m.path); });
    if (covered && !change.added.empty()) literal_candidates.push_back(std::move(change));
  }

  if (!literal_candidates.empty()) {
    // The literals the change adds, then those of them the tests hold, then those of them no source
    // held before.
    std::set<std::string> added;
    for (const auto& c : literal_candidates) {
      for (const auto& [n, line] : c.added) {
        for (auto& l : literals_of_line(line)) added.insert(std::move(l));
      }
    }
    std::map<std::string, std::string> in_tests;
    if (!added.empty()) {
      // The tests as they were before the change: the ones the change must pass. A literal of a test
      // the change itself edited (an expected value updated with the behaviour) is the change's own.
      TRY(std::vector<std::string> test_files, trees.file_paths(facts.snapshot_before, [&](std::string_view p) {
        std::string path(p);
        if (secret(path) || test_file_kind(path) != TestFileKind::kTestCode) return false;
        return std::any_of(tests.begin(), tests.end(), [&](const CommandTests& t) { return t.reads(path); });
      }));
      // A long string the change adds that a test's literal holds (a prefix of a test's input) is
      // one of the tests' too.
      std::vector<std::string> long_added;
      for (const auto& l : added) {
        if (l.size() >= kMinPartLiteral) long_added.push_back(l);
      }
      std::size_t read = 0;
      for (const auto& path : test_files) {
        if (read >= kMaxTestBytes) break;
        auto text = trees.read(facts.snapshot_before, path);
        if (!text.ok() || !text->has_value()) continue;
        read += (*text)->size();
        for (const auto& l : literals_of_text(**text)) {
          if (added.count(l) > 0) in_tests.emplace(l, path);
          for (const auto& part : long_added) {
            if (l.size() > part.size() && l.find(part) != std::string::npos) in_tests.emplace(part, path);
          }
        }
      }
    }
    std::set<std::string> pending;
    for (const auto& [l, path] : in_tests) pending.insert(l);
    if (!pending.empty()) {
      TRY(std::vector<std::string> source, trees.file_paths(facts.snapshot_before, [&](std::string_view p) {
        std::string path(p);
        return code_file(path) && !secret(path) && !conventional_test_path(path) &&
               test_file_kind(path) == TestFileKind::kTestCode;
      }));
      std::size_t read = 0;
      for (const auto& path : source) {
        if (pending.empty() || read >= kMaxSourceBytes) break;
        auto text = trees.read(facts.snapshot_before, path);
        if (!text.ok() || !text->has_value()) continue;
        read += (*text)->size();
        for (auto it = pending.begin(); it != pending.end();) {
          it = holds_literal(**text, *it) ? pending.erase(it) : std::next(it);
        }
      }
    }
    auto in_base_source = [&](const std::string& l) { return pending.count(l) == 0; };
    for (const auto& c : literal_candidates) {
      for (auto& f : copies_test_literals(c, in_tests, in_base_source)) out.push_back(std::move(f));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const TestAwareFlag& a, const TestAwareFlag& b) {
    return a.path != b.path ? a.path < b.path : a.line < b.line;
  });
  return out;
}

}  // namespace candor::evidence
