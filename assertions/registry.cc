#include <fmt/format.h>

#include "assertions/evaluator.h"

namespace candor::assertions {

Status Registry::add(std::unique_ptr<Evaluator> evaluator) {
  const std::string& name = evaluator->signature().name;
  if (find(name) != nullptr) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("assertion type \"{}\" is already registered", name));
  }
  evaluators_.push_back(std::move(evaluator));
  return ok_status();
}

const Evaluator* Registry::find(const std::string& type) const {
  for (const auto& e : evaluators_) {
    if (e->signature().name == type) return e.get();
  }
  return nullptr;
}

std::vector<Signature> Registry::signatures() const {
  std::vector<Signature> out;
  for (const auto& e : evaluators_) out.push_back(e->signature());
  return out;
}

Outcome Registry::evaluate(const nlohmann::json& assertion, const Context& context) const {
  std::string type = assertion.is_object() && assertion.contains("type") && assertion["type"].is_string()
                         ? assertion["type"].get<std::string>()
                         : "";
  const Evaluator* e = find(type);
  if (e == nullptr) return {false, fmt::format("unknown assertion type \"{}\"", type), ""};
  Status valid = validate_args(assertion, e->signature().args, "assert", {"type"});
  if (!valid.ok()) return {false, valid.error().message, ""};
  return e->evaluate(assertion, context);
}

}  // namespace candor::assertions
