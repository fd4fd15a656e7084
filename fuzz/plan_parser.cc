// libFuzzer target: any bytes given to the plan parser are either a valid plan or an error with a
// message; never a crash, a hang, or a plan that breaks its own invariants.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "executor/tool.h"
#include "planner/plan.h"

using namespace candor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const executor::ToolRegistry tools = executor::builtin_tools();
  static const assertions::Registry evaluators = assertions::builtin_evaluators();
  static const planner::Catalog catalog = executor::make_catalog(tools, evaluators);
  std::string text(reinterpret_cast<const char*>(data), size);
  auto plan = planner::parse_plan_text(text, catalog, "fuzz.json");
  if (plan.ok()) {
    // A valid plan has steps, each naming a tool the catalog knows.
    if (plan->steps.empty()) __builtin_trap();
    for (const auto& step : plan->steps) {
      bool known = std::any_of(catalog.tools.begin(), catalog.tools.end(),
                               [&](const Signature& s) { return s.name == step.tool; });
      if (step.id.empty() || !known) __builtin_trap();
    }
  } else if (plan.error().message.empty()) {
    __builtin_trap();  // every refusal says what was wrong
  }
  return 0;
}
