#include <fmt/format.h>

#include "assertions/evaluator.h"

namespace candor::assertions {

nlohmann::json describe_evaluators(const Registry& registry) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& sig : registry.signatures()) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& a : sig.args) {
      args.push_back({{"name", a.name},
                      {"type", arg_type_name(a.type)},
                      {"required", a.required},
                      {"description", a.description}});
    }
    out.push_back({{"type", sig.name}, {"description", sig.description}, {"args", args}, {"open_args", sig.open_args}});
  }
  return out;
}

std::string list_evaluators(const Registry& registry) {
  std::string out;
  for (const auto& sig : registry.signatures()) {
    std::string args;
    for (const auto& a : sig.args) {
      args += fmt::format("{}{}{}: {}", args.empty() ? "" : ", ", a.name, a.required ? "" : "?", arg_type_name(a.type));
    }
    if (sig.open_args) args += args.empty() ? "any arguments" : ", ...";
    out += fmt::format("{:<18} {}\n{:<18}   {}\n", sig.name, args, "", sig.description);
  }
  return out;
}

}  // namespace candor::assertions
