// `not`: passes when the inner assertion was checked and failed. An inner check that could not be
// made (a crash, a timeout, an unknown type) is never turned into a pass.
#include <fmt/format.h>

#include "assertions/builtins.h"

namespace candor::assertions {
namespace {

class Not final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{"not",
                             "the inner assertion is checked and fails (e.g. not file_exists, after a deletion)",
                             {{"assertion", ArgType::kAssertion, true, "the assertion to negate"}}};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    const nlohmann::json& inner = a.at("assertion");
    std::string type = json_str(inner, "type");
    if (ctx.registry == nullptr) return {false, "not: no registry to evaluate the inner assertion", "", true};
    // Recursion as deep as `not` is nested: bounded because every assertion came through
    // parse_json_text (at most kMaxJsonDepth levels, core/json_text.h).
    Outcome o = ctx.registry->evaluate(inner, ctx);
    if (o.error)
      return {false, fmt::format("not {}: the inner check could not be made: {}", type, o.message), o.path, true};
    return {!o.passed,
            fmt::format("not {}: {} ({})", type, o.message, o.passed ? "it holds, so this fails" : "as required"),
            o.path};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_not() { return std::make_unique<Not>(); }

}  // namespace candor::assertions
