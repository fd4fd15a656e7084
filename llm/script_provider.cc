// `script:FILE`: every call is answered by the next line of FILE. Reproducible offline runs.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "llm/local_providers.h"

namespace candor::llm {
namespace {

struct ScriptLine {
  int line_no = 0;
  std::string reply;
  std::string expect;
  std::optional<std::pair<std::int64_t, std::int64_t>> usage;
};

class ScriptProvider final : public Provider {
 public:
  ScriptProvider(std::string path, std::vector<ScriptLine> lines) : path_(std::move(path)), lines_(std::move(lines)) {}

  Result<Reply> complete(const Request& request) override {
    if (next_ >= lines_.size()) {
      return make_error(ErrorCode::kUnavailable,
                        fmt::format("script {}: no line left for call {} ({}): the script has {} repl{}", path_,
                                    next_ + 1, request.role, lines_.size(), lines_.size() == 1 ? "y" : "ies"));
    }
    const ScriptLine& line = lines_[next_++];
    std::string prompt = request.system;
    for (const auto& m : request.messages) prompt += "\n" + m.content;
    if (!line.expect.empty() && prompt.find(line.expect) == std::string::npos) {
      return make_error(ErrorCode::kUnavailable,
                        fmt::format("script {}:{}: the {} prompt does not contain the expected text \"{}\"", path_,
                                    line.line_no, request.role, line.expect));
    }
    Reply r;
    r.text = line.reply;
    if (line.usage) {
      r.input_tokens = line.usage->first;
      r.output_tokens = line.usage->second;
    } else {
      r.usage_estimated = true;
      r.input_tokens = estimate_tokens(prompt);
      r.output_tokens = estimate_tokens(r.text);
    }
    return r;
  }
  std::string describe() const override { return "script:" + path_; }

 private:
  std::string path_;
  std::vector<ScriptLine> lines_;
  std::size_t next_ = 0;
};

Error bad_line(const std::string& path, int line_no, const std::string& what) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("script {}:{}: {}", path, line_no, what));
}

}  // namespace

Result<std::unique_ptr<Provider>> make_script_provider(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kInvalidInput, fmt::format("script {}: cannot read it", path));
  std::vector<ScriptLine> lines;
  std::string text;
  int line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines separate nothing
    // A line is a document of its own: the reply it carries as a string is checked again when it
    // is read as a plan or a verdict; one given as `reply_json` is bounded here (dump() recurses).
    if (Status within = check_json_limits(text, fmt::format("script {}:{}", path, line_no)); !within.ok())
      return within.error();
    auto j = parse_within_limits_or_discarded(text);
    if (j.is_discarded() || !j.is_object()) return bad_line(path, line_no, "not a JSON object");
    ScriptLine line;
    line.line_no = line_no;
    bool has_reply = false;
    for (const auto& [key, value] : j.items()) {
      if (key == "reply") {
        if (!value.is_string()) return bad_line(path, line_no, "reply: expected a string");
        line.reply = value.get<std::string>();
        has_reply = true;
      } else if (key == "reply_json") {
        line.reply = value.dump();
        has_reply = true;
      } else if (key == "expect") {
        if (!value.is_string()) return bad_line(path, line_no, "expect: expected a string");
        line.expect = value.get<std::string>();
      } else if (key == "usage") {
        if (!value.is_object() || !value.value("input_tokens", nlohmann::json()).is_number_unsigned() ||
            !value.value("output_tokens", nlohmann::json()).is_number_unsigned()) {
          return bad_line(path, line_no, "usage: expected {\"input_tokens\": N, \"output_tokens\": N}");
        }
        line.usage =
            std::make_pair(value["input_tokens"].get<std::int64_t>(), value["output_tokens"].get<std::int64_t>());
      } else {
        return bad_line(path, line_no,
                        fmt::format("unknown field \"{}\" (expected reply, reply_json, expect, usage)", key));
      }
    }
    if (j.contains("reply") && j.contains("reply_json"))
      return bad_line(path, line_no, "give reply or reply_json, not both");
    if (!has_reply) return bad_line(path, line_no, "needs reply or reply_json");
    lines.push_back(std::move(line));
  }
  return std::unique_ptr<Provider>(new ScriptProvider(path, std::move(lines)));
}

}  // namespace candor::llm
