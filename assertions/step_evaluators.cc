// Assertions about the step the assertion follows.
#include <fmt/format.h>

#include "assertions/builtins.h"

namespace candor::assertions {
namespace {

class OutputContains final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{.name = "output_contains",
                             .description = "the step's output contains `text`",
                             .args = {{"text", ArgType::kString, true, "exact text to look for"}},
                             .reads_step = true};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string text = a.at("text").get<std::string>();
    if (ctx.step == nullptr) return {false, "output_contains needs a step; it cannot be a goal-level assertion", ""};
    const std::string& output = ctx.step->output;
    bool found = output.find(text) != std::string::npos;
    std::string observed =
        found ? fmt::format("the output of {} contains {}", ctx.step->id, quote_excerpt(text))
              : fmt::format("the output of {} ({} bytes) does not contain {}; it begins {}", ctx.step->id,
                            output.size(), quote_excerpt(text), quote_excerpt(output, 80));
    return {found, observed, ""};
  }
};

class ExitCodeEq final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{.name = "exit_code_eq",
                             .description = "the step's exit code equals `code`",
                             .args = {{"code", ArgType::kInteger, true, "expected exit code", 0, 255}},
                             .reads_step = true};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    int code = a.at("code").get<int>();
    if (ctx.step == nullptr) return {false, "exit_code_eq needs a step; it cannot be a goal-level assertion", ""};
    if (!ctx.step->exit_code) {
      return {false, fmt::format("{} ({}) has no exit code", ctx.step->id, ctx.step->tool), ""};
    }
    int got = *ctx.step->exit_code;
    return {got == code, fmt::format("{} exited with {} (expected {})", ctx.step->id, got, code), ""};
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_output_contains() { return std::make_unique<OutputContains>(); }
std::unique_ptr<Evaluator> make_exit_code_eq() { return std::make_unique<ExitCodeEq>(); }

}  // namespace candor::assertions
