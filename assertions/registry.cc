#include <fmt/format.h>

#include "assertions/evaluator.h"

namespace candor::assertions {
namespace {

// The only message an assertion on a credential file may have: which file, and the verdict.
std::string withheld_message(const Outcome& out) {
  return fmt::format("{} ({})", sandbox::content_withheld(out.path.empty() ? "a file it read" : out.path),
                     out.error    ? "the check could not be made"
                     : out.passed ? "the check passed"
                                  : "the check failed");
}

}  // namespace

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
  if (e == nullptr) return {false, fmt::format("unknown assertion type \"{}\"", type), "", true};
  Status valid = validate(assertion, "assert");
  if (!valid.ok()) return {false, valid.error().message, "", true};
  bool credential_seen = false;
  Context with_registry = context;
  with_registry.registry = this;
  if (with_registry.credential_seen == nullptr) with_registry.credential_seen = &credential_seen;
  Outcome out = e->evaluate(assertion, with_registry);
  if (out.error) out.passed = false;
  // Once, here, for every evaluator: by what its reads met (a symlink to .env), and by the path
  // it names (a message about a file that is missing or too large is withheld too).
  if (*with_registry.credential_seen || (!out.path.empty() && context.workspace.secrets().refused(out.path))) {
    out.message = withheld_message(out);
    out.credential = true;
  }
  return out;
}

Status Registry::validate(const nlohmann::json& assertion, const std::string& path) const {
  std::string type = assertion.is_object() && assertion.contains("type") && assertion["type"].is_string()
                         ? assertion["type"].get<std::string>()
                         : "";
  const Evaluator* e = find(type);
  if (e == nullptr)
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: unknown assertion type \"{}\"", path, type));
  TRY_STATUS(validate_args(assertion, e->signature(), path, {"type"}));
  // Recursive like `not` itself; bounded by the JSON depth limit every input passed (core/json_text.h).
  return for_each_nested_assertion(
      assertion, e->signature().args, path,
      [&](const nlohmann::json& inner, const std::string& inner_path) { return validate(inner, inner_path); });
}

bool Registry::reads_files(const nlohmann::json& assertion) const {
  const Evaluator* e = find(json_str(assertion, "type"));
  if (e == nullptr) return false;
  const Signature& sig = e->signature();
  if (sig.reads_files) return true;
  // A wrapper such as `not` reads what the assertion it wraps reads (recursive: bounded by the JSON
  // depth limit, core/json_text.h).
  bool nested = false;
  for (const auto& spec : sig.args) {
    if (spec.type != ArgType::kAssertion || !assertion.contains(spec.name)) continue;
    if (!reads_files(assertion[spec.name])) return false;
    nested = true;
  }
  return nested;
}

bool Registry::proves_content(const nlohmann::json& assertion) const {
  if (!reads_files(assertion)) return false;
  const Evaluator* e = find(json_str(assertion, "type"));
  const Signature& sig = e->signature();
  if (sig.reads_files) return sig.proves_content;
  for (const auto& spec : sig.args) {
    if (spec.type == ArgType::kAssertion && assertion.contains(spec.name) && !proves_content(assertion[spec.name]))
      return false;
  }
  return true;
}

bool Registry::reads_step(const nlohmann::json& assertion) const {
  const Evaluator* e = find(json_str(assertion, "type"));
  if (e == nullptr) return false;
  const Signature& sig = e->signature();
  if (sig.reads_step) return true;
  for (const auto& spec : sig.args) {
    if (spec.type == ArgType::kAssertion && assertion.contains(spec.name) && reads_step(assertion[spec.name]))
      return true;
  }
  return false;
}

bool Registry::command_evidence(const nlohmann::json& assertion) const {
  const Evaluator* e = find(json_str(assertion, "type"));
  if (e == nullptr || !e->signature().command_evidence) return false;
  return !e->signature().reads_files || json_str(assertion, "path").empty();
}

}  // namespace candor::assertions
