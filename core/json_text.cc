#include "core/json_text.h"

#include <fmt/format.h>

namespace candor {

Result<nlohmann::json> parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Translate the byte offset into line:column, which is what a person looks for.
    std::size_t byte = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    int line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    std::string what = e.what();
    auto pos = what.find("syntax error");
    if (pos != std::string::npos) what = what.substr(pos);
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}:{}:{}: not valid JSON: {}", source, line, byte - line_start + 1, what));
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1E999") is an out_of_range error, not a parse_error
    // (found by fuzz/plan_parser). It carries no position.
    std::string what = e.what();
    auto pos = what.find("] ");
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: not valid JSON: {}", source, pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

}  // namespace candor
