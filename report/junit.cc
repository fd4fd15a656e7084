#include <fmt/format.h>

#include "report/formats.h"
#include "report/report.h"

namespace candor::report {
namespace {

std::string str(const nlohmann::json& j, const char* key) { return json_str(j, key); }

}  // namespace

std::string render_junit(const std::vector<nlohmann::json>& reports) {
  std::string suites;
  int total_tests = 0, total_failures = 0, total_errors = 0;
  for (const auto& r : reports) {
    std::string verdict = str(r, "verdict");
    std::string reasons;
    for (const auto& reason : r.value("reasons", nlohmann::json::array())) reasons += reason.get<std::string>() + "\n";
    int tests = 1, failures = 0, errors = 0;
    std::string cases = fmt::format("    <testcase classname=\"candor.run\" name=\"{}\" time=\"{}\">\n",
                                    escape_xml(str(r, "goal")), r["budget"]["time_s"][0].get<double>());
    if (verdict == "fail") {
      ++failures;
      cases += fmt::format("      <failure type=\"fail\" message=\"{}\">{}</failure>\n",
                           escape_xml(reasons.substr(0, reasons.find('\n'))), escape_xml(reasons));
    } else if (verdict == "partial") {
      ++errors;
      cases += fmt::format("      <error type=\"partial\" message=\"{}\">{}</error>\n",
                           escape_xml(reasons.substr(0, reasons.find('\n'))), escape_xml(reasons));
    }
    cases += "    </testcase>\n";
    for (const auto& a : r.value("assertions", nlohmann::json::array())) {
      ++tests;
      std::string where = a["step"].is_string() ? a["step"].get<std::string>() : "goal";
      cases += fmt::format("    <testcase classname=\"candor.assertion.{}\" name=\"{} {}\">", escape_xml(where),
                           escape_xml(str(a, "type")),
                           escape_xml(a["path"].is_string() ? a["path"].get<std::string>() : ""));
      if (!a.value("passed", false)) {
        ++failures;
        cases += fmt::format("<failure type=\"assertion\" message=\"{}\"/>", escape_xml(str(a, "message")));
      } else {
        std::string runs;
        for (const auto& run : program_runs(a)) {
          runs += "\n" + run.label + ": " + run.outcome;
          for (const auto& line : run.output) runs += "\n  | " + line;
        }
        cases += fmt::format("<system-out>{} ({}){}</system-out>", escape_xml(str(a, "message")),
                             escape_xml(assertion_provenance(a)), escape_xml(runs));
      }
      cases += "</testcase>\n";
    }
    std::string acceptance_property;
    if (const auto& acc = r.value("acceptance", nlohmann::json()); acc.is_object()) {
      bool passed = acc.value("passed", false);
      acceptance_property =
          fmt::format("      <property name=\"acceptance\" value=\"{}\"/>\n", passed ? "passed" : "not_passed");
      ++tests;
      cases += fmt::format("    <testcase classname=\"candor.acceptance\" name=\"acceptance\">{}</testcase>\n",
                           passed ? "" : "<failure type=\"acceptance\" message=\"the acceptance spec did not pass\"/>");
      if (!passed) ++failures;
    }
    if (const auto& u = r.value("undone", nlohmann::json()); u.is_object()) {
      acceptance_property +=
          fmt::format("      <property name=\"undone_at\" value=\"{}\"/>\n", escape_xml(str(u, "at")));
    }
    suites += fmt::format(
        "  <testsuite name=\"candor run {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" timestamp=\"{}\">\n"
        "    <properties>\n"
        "      <property name=\"verdict\" value=\"{}\"/>\n      <property name=\"verdict_by\" value=\"{}\"/>\n"
        "      <property name=\"status\" value=\"{}\"/>\n      <property name=\"workspace\" value=\"{}\"/>\n"
        "{}    </properties>\n{}  </testsuite>\n",
        escape_xml(str(r, "run_id")), tests, failures, errors, escape_xml(str(r, "created_at")), escape_xml(verdict),
        escape_xml(str(r, "verdict_by")), escape_xml(str(r, "status")), escape_xml(str(r, "workspace")),
        acceptance_property, cases);
    total_tests += tests;
    total_failures += failures;
    total_errors += errors;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"candor\" tests=\"{}\" failures=\"{}\" "
      "errors=\"{}\">\n{}</testsuites>\n",
      total_tests, total_failures, total_errors, suites);
}

}  // namespace candor::report
