// `candor eval report` rendered from its JSON (app/eval_summary.h, docs/eval.md): the terminal, a
// Markdown summary that fits a pull request comment, a self-contained HTML page, JUnit XML.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace candor::report {

std::string render_eval_terminal(const nlohmann::json& eval);
// At most `max_bytes` (GitHub's comment limit is 65,536): per-attempt rows beyond it are cut, saying so.
std::string render_eval_markdown(const nlohmann::json& eval, std::size_t max_bytes = 60000);
std::string render_eval_html(const nlohmann::json& eval);
// One test case per attempt (class AGENT, name TASK#ATTEMPT): a failure unless verified success; an
// infrastructure error is an error, not a failure; a missing task is skipped, named.
std::string render_eval_junit(const nlohmann::json& eval);

}  // namespace candor::report
