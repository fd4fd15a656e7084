#include "core/test_summary.h"

#include <fmt/format.h>

namespace candor {

std::string describe(const TestSummary& s) {
  std::string out = fmt::format("ran {} test{}", s.ran, s.ran == 1 ? "" : "s");
  if (s.passed > 0) out += fmt::format(", {} passed", s.passed);
  if (s.failed > 0) out += fmt::format(", {} failed", s.failed);
  if (s.skipped > 0) out += fmt::format(", {} skipped", s.skipped);
  return out;
}

nlohmann::json to_json(const TestSummary& s) {
  return {{"runner", s.runner}, {"ran", s.ran}, {"passed", s.passed}, {"failed", s.failed}, {"skipped", s.skipped}};
}

std::optional<TestSummary> test_summary_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  TestSummary s;
  for (auto [key, field] : {std::pair{"ran", &s.ran}, std::pair{"passed", &s.passed}, std::pair{"failed", &s.failed},
                            std::pair{"skipped", &s.skipped}}) {
    if (!j.contains(key) || !j[key].is_number_integer()) return std::nullopt;
    *field = j[key].get<int>();
  }
  if (j.contains("runner") && j["runner"].is_string()) s.runner = j["runner"].get<std::string>();
  return s;
}

}  // namespace candor
