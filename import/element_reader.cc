// for_each_element (formats.h): the one reader of whole-document formats, streamed.
#include <algorithm>

#include <fmt/format.h>

#include "core/json_text.h"
#include "import/formats.h"
#include "import/record_reader.h"

namespace candor::import {
namespace {

// The first line of the stream, up to the limit of a record, then back to the start. nullopt when
// the line is longer (a document written on one line).
std::optional<std::string> first_line(std::istream& in) {
  std::string line;
  std::streambuf* buf = in.rdbuf();
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof() && c != '\n'; c = buf->sbumpc()) {
    if (line.size() == kMaxTranscriptLineBytes) break;
    line.push_back(static_cast<char>(c));
  }
  bool whole = line.size() < kMaxTranscriptLineBytes;
  in.clear();
  in.seekg(0);
  if (!whole) return std::nullopt;
  return line;
}

}  // namespace

Status for_each_element(std::istream& in, Builder& b, const std::vector<std::string>& keys, const std::string& expected,
                        const std::function<void(const nlohmann::json&)>& visit,
                        const std::function<void(const std::string&, const nlohmann::json&)>& other, bool object_only) {
  auto is_key = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  auto each = [&](JsonScanner& s, const std::string& path) {
    int index = 0;
    int depth = path == "$" ? 1 : 2;  // the containers around each element
    return s.each_element([&](std::string text, int line) -> Status {
      std::string at = fmt::format("{}[{}]", path, index++);
      std::string where = fmt::format("{}:{}: {}", b.source(), line, at);
      TRY(nlohmann::json j, parse_piece(text, b.source(), line, at, depth));
      b.count_record();
      b.at(where);
      visit(j);
      if (b.refused()) return *b.refused();
      return ok_status();
    });
  };
  JsonScanner s(in, b.source());
  int c = s.peek();
  if (c == '[' && object_only) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: not {}: a JSON array, not an object", b.source(), expected));
  }
  if (c == '[') {
    TRY_STATUS(each(s, "$"));
    return s.expect_end();
  }
  if (c != '{') {
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("{}: not {}: {}", b.source(), expected,
                    c == std::char_traits<char>::eof() ? "the file is empty" : "not a JSON array or object"));
  }
  // One record a line (JSON Lines), or one object holding the array.
  if (auto line = first_line(in)) {
    nlohmann::json j = check_json_limits(*line, b.source(), kTranscriptLineLimits).ok()
                           ? parse_within_limits_or_discarded(*line)
                           : nlohmann::json(nlohmann::json::value_t::discarded);
    bool holds_array = false;
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) holds_array = holds_array || (is_key(k) && v.is_array());
    }
    if (j.is_object() && !holds_array && !object_only) return for_each_line(in, b, visit);
  }
  bool found = false;
  TRY_STATUS(s.each_member([&](const std::string& key) -> Status {
    if (is_key(key) && s.peek() == '[') {
      found = true;
      return each(s, "$." + key);
    }
    int line = s.line();
    TRY(std::string text, s.value_text());
    TRY(nlohmann::json j, parse_piece(text, b.source(), line, "$." + key, 1));
    if (other) other(key, j);
    return ok_status();
  }));
  TRY_STATUS(s.expect_end());
  if (!found) {
    std::string names;
    for (const auto& k : keys) names += (names.empty() ? "\"" : " or \"") + k + "\"";
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: not {}: the object has no {} array", b.source(), expected, names));
  }
  return ok_status();
}

}  // namespace candor::import
