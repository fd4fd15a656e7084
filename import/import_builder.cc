#include "import/import_builder.h"

#include <cctype>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/json_text.h"
#include "import/record_reader.h"

namespace candor::import {
namespace {

using Kind = TrajectoryEvent::Kind;

}  // namespace

std::string kept_text(std::string s, std::size_t half) {
  if (s.size() <= 2 * half + 64) return s;
  // Cut between UTF-8 sequences, never inside one (a report's JSON must stay valid UTF-8).
  auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
  std::size_t head = half, tail = s.size() - half;
  while (head > 0 && continuation(head)) --head;
  while (tail < s.size() && continuation(tail)) ++tail;
  return s.substr(0, head) + fmt::format("\n[... {} cut ...]\n", format_bytes(tail - head)) + s.substr(tail);
}

namespace {

// Every string in the value cut (it came through the JSON limits: at most kMaxJsonDepth + 1 deep).
void cut_strings(nlohmann::json& j, std::size_t half = kKeptHalf) {
  if (j.is_string()) {
    if (j.get_ref<const std::string&>().size() > 2 * half + 64) j = kept_text(j.get<std::string>(), half);
  } else if (j.is_structured()) {
    for (auto& v : j) cut_strings(v, half);
  }
}

}  // namespace

Builder::Builder(Format format, std::string source, const SecretMasker* masker)
    : source_(std::move(source)), masker_(masker), where_(source_) {
  out_.format = format;
}

std::string Builder::kept(std::string_view text) const {
  return kept_text(masker_ != nullptr ? masker_->mask(text) : std::string(text));
}

void Builder::mask_and_cut(nlohmann::json& j) const {
  if (masker_ != nullptr) masker_->mask_json(j);
  cut_strings(j);
}

void Builder::call(const std::string& id, const std::string& tool, nlohmann::json input) {
  ++recognised_;
  if (refused_) return;  // nothing more is kept: the import ends with the refusal
  if (!input.is_object()) input = nlohmann::json{{"value", input}};
  mask_and_cut(input);
  calls_[id] = out_.events.size();
  push({0, Kind::kToolCalled, tool, std::move(input), nullptr, ""});
}

void Builder::result(const std::string& id, nlohmann::json result, const std::string& unpaired_tool) {
  ++recognised_;
  if (refused_) return;
  auto it = calls_.find(id);
  std::string tool = unpaired_tool;
  nlohmann::json input = nlohmann::json::object();
  if (it != calls_.end()) {
    tool = out_.events[it->second].tool;
    input = out_.events[it->second].input;
    if (result.is_object() && result.contains("ok") && result["ok"] == false) failed_calls_.insert(it->second);
  }
  mask_and_cut(result);
  // What a format adds beside the output (Claude Code's toolUseResult) mostly repeats it: its
  // strings are kept shorter, so that a result costs about one output's memory (masked above).
  if (result.is_object() && result.contains("detail")) cut_strings(result["detail"], kKeptHalf / 16);
  push({0, Kind::kToolResult, tool, std::move(input), std::move(result), ""});
}

void Builder::final_answer(const std::string& text) {
  ++recognised_;
  if (refused_) return;
  push({0, Kind::kFinalAnswer, "", nlohmann::json::object(), nullptr, kept(text)});
}

void Builder::skip(const std::string& type) {
  ++recognised_;
  ++out_.skipped[type.empty() ? "(untyped)" : type];
}

void Builder::unknown(const std::string& type) { ++out_.skipped[type.empty() ? "(untyped)" : type]; }

void Builder::push(TrajectoryEvent e) {
  if (out_.events.size() >= kMaxTranscriptEvents) {
    refuse(make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: refused: more than {} tool calls, results and answers (at {})", source_,
                                  kMaxTranscriptEvents, where_)));
    return;
  }
  e.seq = static_cast<std::int64_t>(out_.events.size()) + 1;
  out_.events.push_back(std::move(e));
}

Result<ImportedTrajectory> Builder::finish(const std::string& expected) {
  if (refused_) return *refused_;
  if (out_.records == 0) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: no records: not {}", source_, expected));
  }
  if (recognised_ == 0) {
    std::string seen;
    for (const auto& [type, n] : out_.skipped) seen += fmt::format("{}{} x{}", seen.empty() ? "" : ", ", type, n);
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: not {}: none of its {} records is one ({})", source_,
                                                            expected, out_.records, seen));
  }
  for (std::size_t i = 0; i < out_.events.size(); ++i) {
    const auto& e = out_.events[i];
    if (e.kind == Kind::kToolCalled && is_effect_call(out_.format, e) && !failed_calls_.count(i)) {
      out_.goal_actions_executed = true;
    }
  }
  return std::move(out_);
}

nlohmann::json arguments_of(const nlohmann::json& j, Builder& b) {
  if (j.is_object()) return j;
  if (!j.is_string()) return nlohmann::json::object();
  const std::string& text = j.get_ref<const std::string&>();
  if (Status within =
          check_json_limits(text, b.where() + ": a tool call's arguments (JSON in a string)", kTranscriptLineLimits);
      !within.ok()) {
    b.refuse(within.error());
    return nlohmann::json{{"raw", ""}};
  }
  auto parsed = parse_within_limits_or_discarded(text);
  return parsed.is_object() ? parsed : nlohmann::json{{"raw", text}};
}

std::string text_of(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const auto& b : content) {
    std::string type = json_str(b, "type");
    if (type == "text" || type == "output_text" || type == "input_text") out += json_str(b, "text");
  }
  return out;
}

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it == j.end() ? null : *it;
}

bool flag(const nlohmann::json& j, const char* key) {
  const auto& v = member(j, key);
  return v.is_boolean() && v.get<bool>();
}

namespace {

// The integer the text begins with (an optional '-', at most 9 digits) and how many bytes it took.
std::optional<int> leading_int(std::string_view s, std::size_t& used) {
  std::size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  used = sign;
  while (used < s.size() && used < sign + 9 && std::isdigit(static_cast<unsigned char>(s[used]))) ++used;
  if (used == sign) return std::nullopt;
  return std::stoi(std::string(s.substr(0, used)));
}

}  // namespace

namespace {

// The lines of `text` an agent writes about a command before its output: those before the first
// line that begins "Output:" (Codex: "Chunk ID", "Wall time", "Process exited with code 1",
// "Output:"), or the first line alone when no such line follows (Claude Code: "Exit code 1", then
// the output). What the command printed is never among them.
std::vector<std::string_view> header_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (line.substr(0, 7) == "Output:") return lines;
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  if (lines.size() > 1) lines.resize(1);
  return lines;
}

// The code a line states after `prefix`, the line holding nothing else.
std::optional<int> code_line(std::string_view line, std::string_view prefix) {
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::size_t used = 0;
  auto code = leading_int(line.substr(prefix.size()), used);
  std::string_view after = line.substr(prefix.size() + used);
  bool whole = after.empty() || after == "\r" || (prefix == "<returncode>" && after.substr(0, 13) == "</returncode>");
  return whole ? code : std::nullopt;
}

}  // namespace

std::optional<int> exit_code_in_text(std::string_view text) {
  static const std::string_view kPrefixes[] = {"Exit code: ", "Exit code ", "Process exited with code ",
                                               "<returncode>"};
  auto lines = header_lines(text);
  for (std::string_view line : lines) {
    // Codex: a command still running when its call returned has no code yet, whatever follows.
    if (line.substr(0, 30) == "Process running with session I") return std::nullopt;
  }
  for (std::string_view line : lines) {
    for (std::string_view prefix : kPrefixes) {
      if (auto code = code_line(line, prefix)) return code;
    }
  }
  return std::nullopt;
}

std::optional<int> exit_code_on_last_line(std::string_view text, std::string_view label) {
  std::optional<int> found;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (auto code = code_line(line, label)) found = code;
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return found;
}

std::optional<int> exit_code_after(std::string_view line, std::string_view label) {
  if (line.substr(0, label.size()) != label) return std::nullopt;
  std::size_t used = 0;
  return leading_int(line.substr(label.size()), used);
}

Status for_each_line(std::istream& in, Builder& b, const std::function<void(const nlohmann::json&)>& visit) {
  LineReader lines(in, b.source());
  std::string line;
  int parsed = 0;
  for (;;) {
    TRY(bool more, lines.next(line));
    b.note_oversized(lines.oversized());
    if (!more) return ok_status();
    int number = lines.line_number();
    TRY_STATUS(check_json_line(line, b.source(), number));
    auto j = parse_within_limits_or_discarded(line);
    if (j.is_discarded() && lines.at_end_without_newline() && parsed > 0) {
      b.mark_truncated();
      return ok_status();
    }
    if (!j.is_object()) {
      std::string what = j.is_discarded() ? "not JSON" : fmt::format("JSON, but not an object (a {})", j.type_name());
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("{}:{}: not a JSON Lines record: the line is {}", b.source(), number, what));
    }
    ++parsed;
    b.count_record();
    b.at(fmt::format("{}:{}", b.source(), number));
    visit(j);
    if (b.refused()) return *b.refused();
  }
}

Result<nlohmann::json> parse_piece(const std::string& text, const std::string& source, int line,
                                   const std::string& path, int depth) {
  JsonLimits limits{kMaxTranscriptLineBytes, kMaxJsonDepth - depth};
  if (Status within = check_json_limits(text, source, limits, line); !within.ok()) {
    // The piece's path inside the document: "at $.x" of the piece is "at $[3].x" of the file.
    std::string message = within.error().message;
    if (std::size_t at = message.find(" at $"); at != std::string::npos) message.replace(at + 4, 1, path);
    if (std::size_t deeper = message.find("deeper than "); deeper != std::string::npos) {
      message.replace(deeper + 12, std::to_string(limits.max_depth).size(), std::to_string(kMaxJsonDepth));
    }
    return make_error(within.error().code, message);
  }
  nlohmann::json j = parse_within_limits_or_discarded(text);
  if (j.is_discarded()) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}:{}: not valid JSON at {}", source, line, path));
  }
  return j;
}

}  // namespace candor::import
