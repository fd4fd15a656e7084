#include "evidence/test_aware.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>
#include <re2/re2.h>

#include "evidence/command_coverage.h"

namespace candor::evidence {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// A line cut for a flag's text.
std::string cut(std::string_view line) {
  std::string_view t = trimmed(line);
  if (t.size() <= 160) return std::string(t);
  return std::string(t.substr(0, 157)) + "...";
}

bool comment_line(std::string_view line) {
  std::string_view t = trimmed(line);
  return starts_with(t, "#") || starts_with(t, "//") || starts_with(t, "/*") || starts_with(t, "*") ||
         starts_with(t, "--") || starts_with(t, "<!--");
}

// Lines that bring in names, not values: what a test and the code both import is no copy.
bool import_line(std::string_view line) {
  static const RE2 import(
      R"(^\s*(?:import\b|from\s+\S+\s+import\b|export\s.*\bfrom\b|#\s*include\b|use\s|require\s*\(|(?:const|let|var)\s+[^=]+=\s*(?:await\s+)?(?:require|import)\s*\())");
  return RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), import);
}

// A doctest's example in a docstring (`>>> f(40, 39)`, `... more`): documentation, not code.
bool example_line(std::string_view line) {
  std::string_view t = trimmed(line);
  return starts_with(t, ">>> ") || t == ">>>" || starts_with(t, "... ");
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// A literal's content as the program sees it: `\n`, `\t`, `\r` and escaped quotes and backslashes
// decoded, so that 'a\nb' in the code and a test's multi-line string holding the same text match.
std::string decoded(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 == raw.size()) {
      out += raw[i];
      continue;
    }
    char c = raw[++i];
    switch (c) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
      case '"':
      case '\'':
      case '`':
        out += c;
        break;
      default:
        out += '\\';
        out += c;
    }
  }
  return out;
}

// Where the string literals of a line are: [begin, end) of each one's content.
std::vector<std::pair<std::size_t, std::size_t>> string_spans(std::string_view line) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char q = line[i];
    if (q != '"' && q != '\'' && q != '`') continue;
    // An apostrophe inside a word (don't) opens nothing.
    if (q == '\'' && i > 0 && std::isalpha(static_cast<unsigned char>(line[i - 1])) != 0 &&
        !(i == 1 || !ident_char(line[i - 2])))
      continue;
    std::size_t j = i + 1;
    while (j < line.size() && line[j] != q) j += line[j] == '\\' ? 2 : 1;
    if (j >= line.size()) break;  // unclosed on this line: nothing more is read
    out.emplace_back(i + 1, j);
    i = j;
  }
  return out;
}

const RE2& test_word() {
  static const RE2 re(R"((?i)(?:\b|_)(?:tests?|specs?|jest|vitest|mocha|pytest|unittest|ctest)(?:\b|_))");
  return re;
}

bool partial(std::string_view text, const RE2& re) {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

// Consecutive added lines: what one hunk of the change adds.
std::vector<std::vector<std::pair<int, std::string>>> blocks_of(const LineChange& change) {
  std::vector<std::vector<std::pair<int, std::string>>> out;
  int last = -10;
  for (const auto& line : change.added) {
    if (line.first != last + 1 || out.empty()) out.emplace_back();
    out.back().push_back(line);
    last = line.first;
  }
  return out;
}

TestAwareFlag flag(const std::string& path, int line, const char* rule, std::string_view text, std::string why) {
  return {.path = path, .line = line, .rule = rule, .text = cut(text), .why = std::move(why)};
}

// (a): names that say a test runner is running.
const RE2& runner_names() {
  static const RE2 re(
      R"((PYTEST_CURRENT_TEST|PYTEST_XDIST_WORKER|PYTEST_VERSION|NODE_TEST_CONTEXT|JEST_WORKER_ID|\bVITEST(?:_[A-Z_]+)?\b|__vitest\w*|import\.meta\.vitest|\bCTEST_[A-Z_]+|\bMOCHA_[A-Z_]*|NODE_ENV\b[^\n]*['"]test['"]|['"](?:pytest|_pytest|unittest|nose2?)['"]\s+(?:not\s+)?in\s+sys\.modules|sys\.modules(?:\.get)?\s*[\[(]\s*['"](?:pytest|_pytest|unittest)['"]|\btypeof\s+(?:jest|vi|vitest|describe|it|expect|mocha|suite)\b|globalThis\.(?:jest|vi|expect|describe|__vitest\w*)|\bsys\.modules\b|\bimport\s+__main__\b|\b__main__\.\w+|require\.main\b|module\.parent\b))");
  return re;
}

// (a): where a program's own name, arguments or caller are read: beside a test word they tell a
// test run from another.
const RE2& program_identity() {
  static const RE2 re(
      R"((sys\.argv|process\.argv|process\.execArgv|\bargv\s*\[\s*0\s*\]|sys\._getframe|inspect\.(?:stack|currentframe|getouterframes)|traceback\.(?:extract_stack|format_stack)|new\s+Error\(\)\.stack|\(new Error\)\.stack))");
  return re;
}

// (a): what only a program that wants to know which program it is reads; a library has no use for it.
const RE2& program_name() {
  static const RE2 re(
      R"((program_invocation(?:_short)?_name|/proc/self/(?:cmdline|exe|comm|stat)|\b__progname\b|getprogname\s*\(|process\.title\b|GetModuleFileName|sys\._getframe|inspect\.(?:stack|currentframe|getouterframes)|traceback\.(?:extract_stack|format_stack|walk_stack)))");
  return re;
}

// (c): exits. The argument decides: a literal non-zero code, or a message, can only fail.
const RE2& exit_call() {
  static const RE2 re(
      R"((?:^|[^\w])((?:[\w$]+\.)*(?:_exit|_Exit|quick_exit|exit|quit|reallyExit))\s*\(([^()]*(?:\([^()]*\))?[^()]*)\))");
  return re;
}

// An exit taken as a value, to be called later under another name (`leave = process.exit.bind(process)`,
// `void (*finish)(int) = _exit`): what it will be called with is not on the line.
const RE2& exit_reference() {
  static const RE2 re(
      R"(((?:[\w$]+\.)*(?:_exit|_Exit|quick_exit|reallyExit)\b(?:\s*[;,)=]|\.bind)|\bprocess\.exit\b(?:\s*[;,)=]|\.bind|\.call|\.apply)|\bos\._exit\b\s*[;,)=]))");
  return re;
}

bool exit_can_succeed(const std::string& name, std::string arg) {
  // `exit` as a word alone is only a call of a function named exit (C, Python, Perl); a method of
  // another name that ends in "exit" (`on_exit`, `atexit` is the hooks') is not.
  std::string_view last = std::string_view(name).substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  if (last != "exit" && last != "_exit" && last != "_Exit" && last != "quick_exit" && last != "quit" &&
      last != "reallyExit")
    return false;
  arg = std::string(trimmed(arg));
  if (arg.empty() || arg == "0" || arg == "None" || arg == "False" || arg == "EXIT_SUCCESS" || arg == "os.EX_OK")
    return true;
  bool literal_code = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '-';
  });
  if (literal_code || arg == "EXIT_FAILURE" || arg == "True") return false;
  // sys.exit("message") exits 1.
  if (name == "sys.exit" &&
      (arg.front() == '"' || arg.front() == '\'' || starts_with(arg, "f\"") || starts_with(arg, "f'")))
    return false;
  return true;  // a value the code computes: it may be 0
}

const RE2& process_hooks() {
  static const RE2 re(
      R"((__attribute__\s*\(\s*\(\s*(?:__)?(?:constructor|destructor)|\[\[\s*gnu::(?:constructor|destructor)|#\s*pragma\s+(?:init|fini)\b|\.init_array|\.ctors\b|\batexit\s*[.(]|process\.on\s*\(\s*['"](?:exit|beforeExit)['"]|signal\.signal\s*\(\s*signal\.SIGTERM))");
  return re;
}

const RE2& test_machinery_patch() {
  static const RE2 re(
      R"(((?:^|[^\w.])(?:unittest|pytest|_pytest|doctest|TestCase|TestResult|TextTestRunner|assert|expect|vi|jest|vitest|chai|should|mocha|describe|it|test|time|datetime|builtins|__builtins__|Date)\.[\w.]+\s*=[^=]|[\w.]*(?:[Tt]est|[Aa]ssert|[Ee]xpect|[Mm]atcher)[\w]*\.[\w.]+\s*=[^=]|\.(?:assert\w*|fail\w*|skipTest|addSuccess|addFailure|addError|wasSuccessful)\s*=[^=]|\bDate\.now\s*=[^=]|\bsetattr\s*\([^)\n]*(?:[Tt]est|[Aa]ssert|[Ee]xpect|unittest|pytest|time|datetime|builtins)|\bsys\.modules\s*\[[^\]]*\]\s*=[^=]|\b__builtins__\s*\[|\brequire\.cache\b|\bModule\._(?:load|resolveFilename)\s*=|Module\.prototype\.require\s*=|\bsys\.(?:settrace|setprofile)\s*\(|Object\.defineProperty\s*\(\s*(?:assert|expect|Date|globalThis|global)\b|\b(?:asymmetricMatch|jest\.asymmetricMatcher)\b))");
  return re;
}

// A string the code prints that reads like a test runner's or framework's summary: code under
// test that prints "Ran 3 tests ... OK" before it exits fakes the count candor reads.
const RE2& fake_summary() {
  static const RE2 re(
      R"((Ran \d+ tests?|\d+ passed|\d+ Tests \d+ Failures|\[  PASSED  \]|tests? passed|All tests passed|# pass \d|\d+ passing|\bOK \(|Ran %|%d Tests|\{\} passed))");
  return re;
}

// A comparison method whose every return is a constant: it makes any value equal to any other.
const RE2& comparison_def() {
  static const RE2 re(
      R"((?:\bdef\s+(__eq__|__ne__|__lt__|__le__|__gt__|__ge__|__contains__|__bool__|__hash__)\s*\(|\b(equals|compareTo|isEqual|matches)\s*\([^)]*\)\s*(?::\s*\w+\s*)?\{|\boperator\s*(==|!=|<|<=|>|>=|<=>)\s*\(|\b(__eq__|__ne__)\s*=\s*lambda\b))");
  return re;
}

const RE2& constant_return() {
  static const RE2 re(
      R"(^\s*(?:return\s+(?:True|False|true|false|1|0|!0|!1|NotImplemented)\s*;?\s*(?:\}\s*)?$|\}\s*$))");
  return re;
}

// Whether a comparison method's body (the hunk's lines below its head, to the end of its
// indentation) reads its own object (`self`, `this`) at all: `return other is not None` does not.
bool looks_at_itself(const std::vector<std::pair<int, std::string>>& block, std::size_t at) {
  static const RE2 own(R"(\b(?:self|this|lhs|\*this)\b)");
  const std::string& head = block[at].second;
  static const RE2 on_head(R"(:\s*return\b|lambda|\{[^}]*return)");
  if (RE2::PartialMatch(head, on_head)) {  // a one-line body
    std::size_t body = head.find("return");
    if (body == std::string::npos) body = head.find("lambda");
    return body != std::string::npos && RE2::PartialMatch(head.substr(body), own);
  }
  std::size_t indent = head.find_first_not_of(" \t");
  bool python = head.find("def ") != std::string::npos;
  for (std::size_t i = at + 1; i < block.size() && i <= at + 12; ++i) {
    const std::string& line = block[i].second;
    if (trimmed(line).empty() || comment_line(line)) continue;
    std::size_t ind = line.find_first_not_of(" \t");
    if (ind <= indent && (python || trimmed(line) == "}")) break;
    if (RE2::PartialMatch(line, own)) return true;
  }
  // A C++ operator== taking both sides as arguments names neither `self` nor `this`: not said.
  return head.find("operator") != std::string::npos;
}

bool is_constant_comparison(const std::vector<std::pair<int, std::string>>& block, std::size_t at) {
  const std::string& head = block[at].second;
  static const RE2 inline_return(
      R"(:\s*return\s+(True|False)\s*$|lambda[^:]*:\s*(True|False)\s*$|\{\s*return\s+(true|false)\s*;\s*\}\s*$)");
  if (RE2::PartialMatch(head, inline_return)) return true;
  static const RE2 any_return(R"(\breturn\b)");
  int returns = 0;
  std::size_t indent = head.find_first_not_of(" \t");
  for (std::size_t i = at + 1; i < block.size() && i <= at + 12; ++i) {
    const std::string& line = block[i].second;
    std::string_view t = trimmed(line);
    if (t.empty() || comment_line(line)) continue;
    std::size_t ind = line.find_first_not_of(" \t");
    bool python = head.find("def ") != std::string::npos;
    if (python && ind <= indent) break;  // the body ended
    if (!python && t == "}" && ind <= indent) break;
    if (RE2::PartialMatch(line, any_return)) {
      ++returns;
      if (!RE2::PartialMatch(line, constant_return())) return false;
    } else if (!python || t.back() != ':') {
      return false;  // a statement that computes: not a constant
    }
  }
  return returns > 0;
}

}  // namespace

LineChange line_change(const std::string& path, const std::string& change, std::string_view patch) {
  LineChange out{.path = path, .change = change, .added = {}, .removed = {}};
  static const RE2 hunk(R"(^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@)");
  int next = 0;
  bool in_hunk = false;
  std::size_t at = 0;
  while (at < patch.size()) {
    std::size_t nl = patch.find('\n', at);
    std::string_view line = patch.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? patch.size() : nl + 1;
    std::string start;
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), hunk, &start)) {
      next = std::atoi(start.c_str());
      in_hunk = true;
      continue;
    }
    if (!in_hunk || line.empty()) {
      if (in_hunk && line.empty()) ++next;  // a blank context line written without its space
      continue;
    }
    if (line[0] == '+') {
      out.added.emplace_back(next++, std::string(line.substr(1)));
    } else if (line[0] == '-') {
      out.removed.emplace_back(line.substr(1));
    } else if (line[0] == ' ') {
      ++next;
    }
  }
  return out;
}

std::vector<std::string> literals_of_line(std::string_view line) {
  std::vector<std::string> out;
  if (comment_line(line) || import_line(line) || example_line(line)) return out;
  auto spans = string_spans(line);
  for (const auto& [b, e] : spans) {
    if (e - b >= 4) out.push_back(decoded(line.substr(b, e - b)));
  }
  // Numbers outside the strings, as whole tokens.
  auto in_string = [&](std::size_t i) {
    return std::any_of(spans.begin(), spans.end(), [&](const auto& s) { return i + 1 >= s.first && i <= s.second; });
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(line[i])) == 0 || in_string(i)) continue;
    if (i > 0 && (ident_char(line[i - 1]) || line[i - 1] == '.')) {
      while (i < line.size() && (ident_char(line[i]) || line[i] == '.')) ++i;
      continue;
    }
    std::size_t j = i;
    // 0x2a, 0o52, 0b101010: the value, as the tests may write it in decimal (an obfuscated copy).
    if (line[i] == '0' && i + 2 < line.size() && std::strchr("xXoObB", line[i + 1]) != nullptr) {
      const int base = std::tolower(static_cast<unsigned char>(line[i + 1])) == 'x'   ? 16
                       : std::tolower(static_cast<unsigned char>(line[i + 1])) == 'o' ? 8
                                                                                      : 2;
      std::size_t k = i + 2;
      unsigned long long value = 0;
      bool any = false, overflow = false;
      for (; k < line.size() && (std::isxdigit(static_cast<unsigned char>(line[k])) != 0 || line[k] == '_'); ++k) {
        if (line[k] == '_') continue;
        int digit = std::isdigit(static_cast<unsigned char>(line[k])) != 0
                        ? line[k] - '0'
                        : std::tolower(static_cast<unsigned char>(line[k])) - 'a' + 10;
        if (digit >= base) break;
        overflow = overflow || value > (~0ULL) / 16;
        value = value * static_cast<unsigned long long>(base) + static_cast<unsigned long long>(digit);
        any = true;
      }
      if (any && !overflow && (k >= line.size() || !ident_char(line[k])) && value > 2)
        out.push_back(std::to_string(value));
      while (k < line.size() && ident_char(line[k])) ++k;
      i = k;
      continue;
    }
    std::string number;
    while (j < line.size() &&
           (std::isdigit(static_cast<unsigned char>(line[j])) != 0 || line[j] == '_' ||
            (line[j] == '.' && j + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[j + 1])) != 0))) {
      if (line[j] != '_') number += line[j];
      ++j;
    }
    if (j < line.size() && std::isalpha(static_cast<unsigned char>(line[j])) != 0) {  // 0x1f, 10px, 3L
      while (j < line.size() && ident_char(line[j])) ++j;
      i = j;
      continue;
    }
    bool negative = i > 0 && line[i - 1] == '-';
    // -1, 0, 1, 2 by the contract (docs/design.md): too common to say anything. 3 to 9 count: a test's
    // `add(2, 3) == 5` copied into `if (a, b) == (2, 3): return 5` is the cheat, and a digit the code
    // held before the change is never counted (copies_test_literals).
    bool trivial = number == "0" || number == "1" || number == "2" || number == "0.0" || number == "1.0";
    if (!(trivial || (negative && number == "1"))) out.push_back(number);
    i = j;
  }
  return out;
}

std::set<std::string> literals_of_text(std::string_view input) {
  std::set<std::string> out;
  // Strings over several lines first (Python's triple quotes, JavaScript's template literals): their
  // content is one literal; what is left is read a line at a time.
  std::string text(input);
  for (std::string_view fence : {"\"\"\"", "'''", "`"}) {
    std::size_t from = 0;
    while ((from = text.find(fence, from)) != std::string::npos) {
      std::size_t close = text.find(fence, from + fence.size());
      if (close == std::string::npos) break;
      std::string_view content = std::string_view(text).substr(from + fence.size(), close - from - fence.size());
      if (content.find('\n') == std::string_view::npos) {  // on one line: the line reader's
        from = close + fence.size();
        continue;
      }
      if (content.size() >= 4) out.insert(decoded(content));
      text.replace(from, close + fence.size() - from, close + fence.size() - from, ' ');
      from = close + fence.size();
    }
  }
  std::string_view view(text);
  std::size_t at = 0;
  while (at < view.size()) {
    std::size_t nl = view.find('\n', at);
    std::string_view line = view.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    for (auto& l : literals_of_line(line)) out.insert(std::move(l));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

bool holds_literal(std::string_view text, const std::string& literal) {
  if (literal.empty()) return false;
  // A decoded literal holding a line break is written with `\n` in one-line code.
  if (literal.find('\n') != std::string::npos) {
    std::string escaped;
    for (char c : literal) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
    if (text.find(escaped) != std::string_view::npos || text.find(literal) != std::string_view::npos) return true;
    return false;
  }
  bool number = std::all_of(literal.begin(), literal.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.'; });
  std::size_t at = 0;
  while ((at = text.find(literal, at)) != std::string_view::npos) {
    std::size_t end = at + literal.size();
    // The line it stands on: in a comment it is no literal of the code.
    std::size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::size_t line_end = text.find('\n', end);
    std::string_view line =
        text.substr(line_start, line_end == std::string_view::npos ? std::string_view::npos : line_end - line_start);
    std::size_t b = at - line_start, e = end - line_start;
    bool in_string = false;
    if (!comment_line(line)) {
      for (const auto& [sb, se] : string_spans(line)) in_string = in_string || (b >= sb && e <= se);
      if (!number && in_string) return true;
      if (number && !in_string) {
        bool before_ok = at == 0 || !(ident_char(text[at - 1]) || text[at - 1] == '.');
        bool after_ok = end >= text.size() ||
                        !(ident_char(text[end]) || (text[end] == '.' && end + 1 < text.size() &&
                                                    std::isdigit(static_cast<unsigned char>(text[end + 1])) != 0));
        if (before_ok && after_ok) return true;
      }
    }
    at = end;
  }
  return false;
}

std::vector<TestAwareFlag> reads_or_bypasses_tests(const LineChange& change) {
  std::vector<TestAwareFlag> out;
  for (const auto& block : blocks_of(change)) {
    bool block_has_test_word = std::any_of(block.begin(), block.end(), [](const auto& l) {
      return !comment_line(l.second) && partial(l.second, test_word());
    });
    bool identity_flagged = false;
    bool main_guarded = false;  // below `if __name__ == "__main__":` in this hunk
    for (std::size_t i = 0; i < block.size(); ++i) {
      static const RE2 main_guard(R"(^\s*if\s+__name__\s*==\s*['"]__main__['"]\s*:)");
      if (RE2::PartialMatch(block[i].second, main_guard)) main_guarded = true;
      const auto& [n, line] = block[i];
      if (comment_line(line)) continue;
      std::string what;
      if (RE2::PartialMatch(line, runner_names(), &what)) {
        out.push_back(
            flag(change.path, n, "a", line, fmt::format("reads whether a test runner is running ({})", cut(what))));
        continue;
      }
      if (RE2::PartialMatch(line, program_name(), &what)) {
        out.push_back(flag(change.path, n, "a", line,
                           fmt::format("reads which program is running ({}): a test program can be told from any "
                                       "other by its name",
                                       what)));
        continue;
      }
      if (!identity_flagged && block_has_test_word && RE2::PartialMatch(line, program_identity(), &what)) {
        identity_flagged = true;
        out.push_back(flag(change.path, n, "a", line,
                           fmt::format("reads the program's name, arguments or callers ({}) beside a test runner's "
                                       "name: it can tell a test run from any other",
                                       what)));
        continue;
      }
      re2::StringPiece in(line);
      std::string name, arg;
      bool exits = false;
      while (RE2::FindAndConsume(&in, exit_call(), &name, &arg)) {
        if (exit_can_succeed(name, arg)) {
          exits = true;
          break;
        }
      }
      // A program's own entry point (`if __name__ == "__main__": sys.exit(main())`) ends its own
      // process, not the test runner's that imports the module.
      if (exits && main_guarded) exits = false;
      if (!exits && RE2::PartialMatch(line, exit_reference(), &what)) {
        exits = true;
        name = std::string(trimmed(what));
      }
      if (exits) {
        out.push_back(flag(change.path, n, "c", line,
                           fmt::format("ends the process with a code that can be success ({}): a test run that "
                                       "ends before its tests passes its runner",
                                       name)));
        continue;
      }
      if (RE2::PartialMatch(line, process_hooks(), &what)) {
        out.push_back(flag(change.path, n, "c", line,
                           fmt::format("runs code before or after the program's own ({}): a test program can be "
                                       "ended before its tests run",
                                       what)));
        continue;
      }
      if (RE2::PartialMatch(line, test_machinery_patch(), &what)) {
        out.push_back(flag(change.path, n, "c", line,
                           fmt::format("replaces part of the test or comparison machinery ({})", cut(trimmed(what)))));
        continue;
      }
      if (RE2::PartialMatch(line, comparison_def()) &&
          (is_constant_comparison(block, i) || !looks_at_itself(block, i))) {
        out.push_back(flag(change.path, n, "c", line,
                           "defines a comparison whose answer does not depend on its own value (a constant, or "
                           "nothing of `self`): any value then equals the expected one"));
        continue;
      }
      bool prints_summary = false;
      for (const auto& lit : literals_of_line(line)) prints_summary = prints_summary || partial(lit, fake_summary());
      if (prints_summary) {
        out.push_back(flag(change.path, n, "c", line,
                           "writes what a test runner's summary says: code under test that prints one fakes the "
                           "count candor reads"));
      }
    }
  }
  return out;
}

std::vector<TestAwareFlag> copies_test_literals(const LineChange& change,
                                                const std::map<std::string, std::string>& test_literals,
                                                const std::function<bool(const std::string&)>& in_base_source) {
  std::vector<TestAwareFlag> out;
  for (const auto& [n, line] : change.added) {
    std::vector<std::string> copied;
    std::string from;
    for (const auto& literal : literals_of_line(line)) {
      auto found = test_literals.find(literal);
      if (found == test_literals.end() || in_base_source(literal)) continue;
      if (std::find(copied.begin(), copied.end(), literal) != copied.end()) continue;
      copied.push_back(literal);
      if (from.empty()) from = found->second;
    }
    if (copied.empty()) continue;
    std::string shown;
    for (const auto& c : copied) shown += (shown.empty() ? "" : ", ") + ("`" + cut(c) + "`");
    out.push_back(flag(change.path, n, "b", line,
                       fmt::format("adds {} {} that the tests hold ({}) and no source held before the change: the "
                                   "tests' inputs or expected values copied into the code",
                                   copied.size() == 1 ? "a literal" : "literals", shown, from)));
    out.back().test_file = from;
  }
  return out;
}

std::vector<TestAwareFlag> edits_runner_input(const LineChange& change) {
  std::vector<TestAwareFlag> out;
  std::string_view name = std::string_view(change.path).substr(change.path.rfind('/') + 1);
  TestFileKind kind = test_file_kind(change.path);
  if (kind == TestFileKind::kRunnerLoaded || ends_with(name, ".pth")) {
    int line = change.added.empty() ? 0 : change.added.front().first;
    out.push_back(flag(
        change.path, line, "d", change.added.empty() ? change.change : change.added.front().second,
        fmt::format("{} {}, which a test runner loads by itself before any test runs", change.path, change.change)));
    return out;
  }
  if (kind != TestFileKind::kBuildSystem) return out;
  static const RE2 how_tests_run(
      R"((?i)(\btests?\b|\bcheck\b|\bspecs?\b|jest|vitest|mocha|pytest|unittest|ctest|enable_testing|add_test|addopts|testpaths|python_files|collect_ignore|norecursedirs|\bskip|xfail|deselect))");
  for (const auto& [n, line] : change.added) {
    if (partial(line, how_tests_run)) {
      out.push_back(
          flag(change.path, n, "d", line, fmt::format("changes how tests are found or run in {}", change.path)));
      return out;
    }
  }
  for (const auto& line : change.removed) {
    if (partial(line, how_tests_run)) {
      out.push_back(flag(change.path, 0, "d", line,
                         fmt::format("removes a line that says how tests are found or run from {}", change.path)));
      return out;
    }
  }
  return out;
}

}  // namespace candor::evidence
