// libFuzzer target: deep and huge JSON through every parser of outside input (plan, config,
// acceptance spec, planner and judge replies, each transcript format), and the limits themselves
// against nlohmann's own parse (docs/design.md, Trust boundary: Budgets bound everything).
//
// Input: byte 0 picks the parser; byte 1 is a repeat count R and byte 2 a unit length U (1..32):
// the text is the U bytes after the header repeated R * 500 times, then the rest (R = 0: all of it). A few bytes of
// input so become a megabyte nested 100,000 deep (`[` x 100000, or `{"type":"not","assertion":`).
// A finding: a crash, a stack overflow, a timeout, an error without a message, a parser that
// accepts text nested deeper than 64, or the limits refusing JSON within them, or missing JSON
// beyond them.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_text.h"
#include "executor/config.h"
#include "executor/tool.h"
#include "import/trajectory_import.h"
#include "llm/json_reply.h"
#include "planner/plan.h"
#include "verify/acceptance.h"
#include "verify/judge.h"

using namespace candor;

namespace {

// The deepest nesting nlohmann's own (iterative) parser sees: an oracle independent of the scan.
class DepthProbe : public nlohmann::json_sax<nlohmann::json> {
 public:
  int max_depth = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  int depth_ = 0;
  bool open() {
    max_depth = std::max(max_depth, ++depth_);
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
};

// Every refusal says what was wrong; a refusal for depth says so whatever the parser.
void check_refusal(const Error& e) {
  if (e.message.empty()) __builtin_trap();
}

template <typename R>
void check(const R& result, bool too_deep) {
  if (result.ok()) {
    if (too_deep) __builtin_trap();  // a parser took JSON past the limit
  } else {
    check_refusal(result.error());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const executor::ToolRegistry tools = executor::builtin_tools();
  static const assertions::Registry evaluators = assertions::builtin_evaluators();
  static const planner::Catalog catalog = executor::make_catalog(tools, evaluators);
  if (size < 3) return 0;
  unsigned which = data[0] % 14, repeat = data[1];  // 5..13: the nine transcript formats
  // R = 0: no unit, the text is everything after the header.
  std::size_t unit = repeat == 0 ? 0 : std::min<std::size_t>(1 + data[2] % 32, size - 3);
  std::string text;
  text.reserve(unit * repeat * 500 + size);
  for (unsigned i = 0; i < repeat * 500; ++i) text.append(reinterpret_cast<const char*>(data) + 3, unit);
  text.append(reinterpret_cast<const char*>(data) + 3 + unit, size - 3 - unit);

  // The limits agree with nlohmann on every text it parses: within 64 read, beyond refused.
  DepthProbe probe;
  // nlohmann's lexer ends the input at a NUL byte; candor refuses the text (see parse_json_text).
  bool valid = nlohmann::json::sax_parse(text, &probe, nlohmann::json::input_format_t::json, /*strict=*/true) &&
               text.find('\0') == std::string::npos;
  auto limited = parse_json_text(text, "fuzz.json", JsonLimits{std::size_t{64} << 20, kMaxJsonDepth});
  if (valid && probe.max_depth <= kMaxJsonDepth && !limited.ok()) __builtin_trap();
  if (valid && probe.max_depth > kMaxJsonDepth &&
      (limited.ok() || limited.error().message.find("nested deeper than 64 levels") == std::string::npos)) {
    __builtin_trap();
  }
  bool too_deep = valid && probe.max_depth > kMaxJsonDepth;

  switch (which) {
    case 0:
      check(planner::parse_plan_text(text, catalog, "plan.json"), too_deep);
      break;
    case 1:
      check(executor::parse_config_text(text, "config.json"), too_deep);
      break;
    case 2:
      check(verify::parse_acceptance_spec_text(text, {"file_read", "shell", "Bash", "Write"}, "spec.json"), too_deep);
      break;
    case 3: {
      // What the planner does with a reply: the object in it, within the reply limits, as a plan.
      auto object = llm::extract_json_object(text);
      if (object) {
        auto j = parse_json_text(*object, "reply", kReplyLimits);
        if (j.ok()) (void)planner::parse_plan(*j, catalog);
      }
      break;
    }
    case 4: {
      auto answers = verify::parse_judge_reply(text, 2);
      if (answers.ok() && answers->size() != 2) __builtin_trap();
      if (!answers.ok()) check_refusal(answers.error());
      auto questions = verify::parse_questions_reply(text);
      if (!questions.ok()) check_refusal(questions.error());
      break;
    }
    default: {
      // Each format, from the text as one document and as JSON Lines (the same bytes).
      auto format = static_cast<import::Format>((which - 5) % import::format_names().size());
      auto imported = import::import_trajectory(text, format, "transcript");
      if (imported.ok()) {
        for (const auto& e : imported->events) (void)e.input.dump();  // what acceptance does with them
      } else {
        check_refusal(imported.error());
      }
      break;
    }
  }
  return 0;
}
