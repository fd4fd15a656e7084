// Assertions about what a file says: a regular expression, JSON validity, a value inside JSON.
#include <re2/re2.h>

#include <fmt/format.h>

#include "assertions/builtins.h"
#include "core/json_text.h"
#include "core/run_record.h"

namespace candor::assertions {
namespace {

ArgSpec path_arg() { return {"path", ArgType::kString, true, "workspace-relative path"}; }

class FileMatches final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{
        .name = "file_matches",
        .description = "the file's content matches an RE2 pattern (searched anywhere; (?m) makes ^ and $ match lines)",
        .args = {path_arg(), {"pattern", ArgType::kRegex, true, "RE2 pattern"}},
        .reads_files = true};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = a.at("path").get<std::string>();
    std::string pattern = a.at("pattern").get<std::string>();
    Outcome out{false, "", normalize_relative_path(path)};
    auto content = read_for_check(ctx, path, out);
    if (!content) return out;
    RE2::Options options;
    options.set_log_errors(false);
    RE2 re(pattern, options);
    if (!re.ok()) return {false, "not a valid RE2 pattern: " + re.error(), out.path, true};
    re2::StringPiece input(*content), match;
    if (!re.Match(input, 0, input.size(), RE2::UNANCHORED, &match, 1)) {
      out.message = fmt::format("{} ({} bytes) has no match for /{}/", path, content->size(), pattern);
      return out;
    }
    std::size_t at = static_cast<std::size_t>(match.data() - content->data());
    int line = 1 + static_cast<int>(std::count(content->begin(), content->begin() + static_cast<long>(at), '\n'));
    out.passed = true;
    out.message = fmt::format("{} line {} matches /{}/: {}", path, line, pattern, quote_excerpt(std::string(match)));
    return out;
  }
};

// A workspace file is read whole up to the content checks' cap; its depth is bounded as any JSON's,
// which keeps the comparison with `value` (recursive) bounded too.
constexpr JsonLimits kCheckedJsonLimits{kMaxCheckedFile, kMaxJsonDepth};

class JsonValid final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{.name = "json_valid",
                             .description = "the file parses as JSON",
                             .args = {path_arg()},
                             .reads_files = true,
                             .proves_content = false};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = a.at("path").get<std::string>();
    Outcome out{false, "", normalize_relative_path(path)};
    auto content = read_for_check(ctx, path, out);
    if (!content) return out;
    // A file nested past the JSON limits is not valid JSON here: a failed check saying so (it is
    // the workspace's content, not candor's input).
    auto parsed = parse_json_text(*content, path, kCheckedJsonLimits);
    out.passed = parsed.ok();
    out.message =
        parsed.ok() ? fmt::format("{} is valid JSON ({})", path, json_type_name(*parsed)) : parsed.error().message;
    return out;
  }
};

// "a.b[0].c", "$.a", "a[\"odd key\"]" or a JSON Pointer "/a/b/0". Returns the steps, or an error.
Result<std::vector<nlohmann::json>> parse_json_path(const std::string& path) {
  std::vector<nlohmann::json> steps;  // string = key, number = index
  if (!path.empty() && path[0] == '/') {
    auto pointer = nlohmann::json::json_pointer();
    try {
      pointer = nlohmann::json::json_pointer(path);
    } catch (const nlohmann::json::exception& e) {
      return make_error(ErrorCode::kInvalidInput, fmt::format("\"{}\" is not a JSON Pointer", path));
    }
    std::vector<std::string> parts;
    for (auto p = pointer; !p.empty(); p = p.parent_pointer()) parts.insert(parts.begin(), p.back());
    for (const auto& part : parts) steps.emplace_back(part);
    return steps;
  }
  std::size_t i = (!path.empty() && path[0] == '$') ? 1 : 0;
  auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("\"{}\" at {}: {}", path, i, why));
  };
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      if (i >= path.size()) return bad("a key is missing after '.'");
    }
    if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string::npos) return bad("'[' is not closed");
      std::string inside = path.substr(i + 1, close - i - 1);
      if (inside.size() >= 2 && inside.front() == '"' && inside.back() == '"') {
        steps.emplace_back(inside.substr(1, inside.size() - 2));
      } else if (!inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos && inside.size() < 10) {
        steps.emplace_back(std::stoul(inside));
      } else {
        return bad("expected [index] or [\"key\"]");
      }
      i = close + 1;
    } else {
      std::size_t end = path.find_first_of(".[", i);
      if (end == i) return bad("empty key");
      steps.emplace_back(path.substr(i, end == std::string::npos ? std::string::npos : end - i));
      i = end == std::string::npos ? path.size() : end;
    }
  }
  return steps;
}

class JsonPathEq final : public Evaluator {
 public:
  const Signature& signature() const override {
    static const Signature s{
        .name = "json_path_eq",
        .description = "a value inside a JSON file equals `value`",
        .args = {path_arg(),
                 {"json_path", ArgType::kString, true, "where: a.b[0].c, $.a, or a JSON Pointer /a/b/0"},
                 {"value", ArgType::kJson, true, "the expected JSON value (1 and 1.0 are equal)"}},
        .reads_files = true};
    return s;
  }
  Outcome evaluate(const nlohmann::json& a, const Context& ctx) const override {
    std::string path = a.at("path").get<std::string>();
    std::string where = a.at("json_path").get<std::string>();
    const nlohmann::json& expected = a.at("value");
    Outcome out{false, "", normalize_relative_path(path)};
    auto steps = parse_json_path(where);
    if (!steps.ok()) return {false, "json_path " + steps.error().message, out.path, true};
    auto content = read_for_check(ctx, path, out);
    if (!content) return out;
    auto doc = parse_json_text(*content, path, kCheckedJsonLimits);
    if (!doc.ok()) {
      out.message = doc.error().message;
      return out;
    }
    const nlohmann::json* at = &*doc;
    std::string walked = "$";
    for (auto step : *steps) {
      // A JSON Pointer's "0" is an index where the value is an array.
      if (step.is_string() && at->is_array()) {
        const std::string s = step.get<std::string>();
        if (!s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos) step = std::stoul(s);
      }
      if (step.is_string()) {
        const std::string key = step.get<std::string>();
        if (!at->is_object() || !at->contains(key)) {
          out.message = fmt::format("{}: {} has no key \"{}\" ({})", path, walked, key, json_describe(*at));
          return out;
        }
        at = &(*at)[key];
        walked += "." + key;
      } else {
        std::size_t index = step.get<std::size_t>();
        if (!at->is_array() || index >= at->size()) {
          out.message = fmt::format("{}: {} has no element [{}] ({}{})", path, walked, index, json_type_name(*at),
                                    at->is_array() ? fmt::format(" of {}", at->size()) : "");
          return out;
        }
        at = &(*at)[index];
        walked += fmt::format("[{}]", index);
      }
    }
    out.passed = *at == expected;
    out.message =
        out.passed ? fmt::format("{}: {} is {}", path, walked, json_excerpt(*at))
                   : fmt::format("{}: {} is {}, expected {}", path, walked, json_excerpt(*at), json_excerpt(expected));
    return out;
  }
};

}  // namespace

std::unique_ptr<Evaluator> make_file_matches() { return std::make_unique<FileMatches>(); }
std::unique_ptr<Evaluator> make_json_valid() { return std::make_unique<JsonValid>(); }
std::unique_ptr<Evaluator> make_json_path_eq() { return std::make_unique<JsonPathEq>(); }

}  // namespace candor::assertions
