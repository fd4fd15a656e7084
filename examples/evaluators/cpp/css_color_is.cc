// A C++ evaluator, the whole of it: `css_color_is` passes when a CSS property (in any rule of a
// stylesheet) has the expected value, case-insensitively. docs/evaluators.md walks through it.
//
// To ship it in candor: put this file in assertions/, add it to assertions/meson.build, declare
// make_css_color_is() in assertions/builtins.h, and add make_css_color_is to the table in
// builtins.cc. The tests register it into a test registry instead (tests/evaluators_test.cc).
#include <re2/re2.h>

#include <fmt/format.h>

#include "assertions/builtins.h"
#include "core/run_record.h"

namespace candor::assertions {
namespace {

class CssColorIs final : public Evaluator {
 public:
  // Declared once: this drives plan validation (unknown or wrongly typed arguments are refused with
  // their JSON path), `candor evaluators`, and the planner's prompt.
  const Signature& signature() const override {
    // `reads_files`: the verdict depends only on the file at `path`, so candor may evaluate it on the
    // pre-run snapshot too, and a pass covers the change only if it fails there.
    static const Signature s{.name = "css_color_is",
                             .description = "a CSS property in the stylesheet has the expected colour value",
                             .args = {{"path", ArgType::kString, true, "stylesheet, workspace-relative"},
                                      {"property", ArgType::kString, true, "e.g. background-color"},
                                      {"value", ArgType::kString, true, "e.g. #006400 (compared case-insensitively)"}},
                             .reads_files = true};
    return s;
  }

  // Arguments are already validated. Every observation is an Outcome whose message says what was
  // seen, so that a failed check tells the planner (and the person reading the report) why.
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = a.at("path").get<std::string>();
    std::string property = a.at("property").get<std::string>();
    std::string want = lower(a.at("value").get<std::string>());
    Outcome out{false, "", normalize_relative_path(path)};
    auto css = read_for_check(ctx, path, out);  // through the sandbox; a missing file is a failed check
    if (!css) return out;
    RE2 decl("(?i)(?:^|[;{\\s])" + RE2::QuoteMeta(property) + "\\s*:\\s*([^;}]+)");
    re2::StringPiece input(*css);
    std::string value;
    std::vector<std::string> seen;
    while (RE2::FindAndConsume(&input, decl, &value)) {
      while (!value.empty() && (value.back() == ' ' || value.back() == '\n')) value.pop_back();
      if (lower(value) == want) {
        out.passed = true;
        out.message = fmt::format("{}: {} is {}", path, property, value);
        return out;
      }
      seen.push_back(value);
    }
    out.message = seen.empty() ? fmt::format("{} sets no {}", path, property)
                               : fmt::format("{}: {} is {}, not {}", path, property, fmt::join(seen, ", "), want);
    return out;
  }

 private:
  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_css_color_is() { return std::make_unique<CssColorIs>(); }

}  // namespace candor::assertions
