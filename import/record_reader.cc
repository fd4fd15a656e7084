#include "import/record_reader.h"

#include <fmt/format.h>

#include "core/json_text.h"

namespace candor::import {
namespace {

constexpr int kEof = std::char_traits<char>::eof();

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

Error too_long(const std::string& where, const char* what) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}: refused: {} over the limit of {}", where, what,
                                                          format_bytes(kMaxTranscriptLineBytes)));
}

}  // namespace

LineReader::LineReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

Result<bool> LineReader::next(std::string& line) {
  std::streambuf* buf = in_.rdbuf();
  for (;;) {
    line.clear();
    int c = buf->sbumpc();
    if (c == kEof) return false;
    ++number_;
    std::size_t length = 0;
    while (c != kEof && c != '\n') {
      if (length++ < kMaxTranscriptLineBytes) line.push_back(static_cast<char>(c));
      c = buf->sbumpc();
    }
    unterminated_ = c == kEof;
    if (length > kMaxTranscriptLineBytes) {
      oversized_.push_back(fmt::format("{}:{} ({} bytes, over the limit of {})", source_, number_, length,
                                       format_bytes(kMaxTranscriptLineBytes)));
      line.clear();
      std::string().swap(line);  // not held
      if (unterminated_) return false;
      continue;
    }
    if (!blank(line)) return true;
    if (unterminated_) return false;
  }
}

JsonScanner::JsonScanner(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

int JsonScanner::get() {
  int c = in_.rdbuf()->sbumpc();
  if (c == '\n') {
    ++line_;
    column_ = 1;
  } else if (c != kEof) {
    ++column_;
  }
  return c;
}

int JsonScanner::peek() {
  for (;;) {
    int c = in_.rdbuf()->sgetc();
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
    get();
  }
}

std::string JsonScanner::where() const { return fmt::format("{}:{}:{}", source_, line_, column_); }

Status JsonScanner::expect(char c, const char* what) {
  if (peek() != c) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: expected {}", where(), what));
  }
  get();
  return ok_status();
}

Result<std::string> JsonScanner::value_text() {
  std::string out;
  int depth = 0;
  bool in_string = false, escaped = false;
  std::string start = where();
  int c = peek();
  for (;;) {
    if (!in_string && depth == 0 && !out.empty()) {
      // A scalar ends before a delimiter; a string or a container has ended already.
      char first = out.front();
      bool closed = first == '"' || first == '{' || first == '[';
      if (closed || c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == kEof)
        return out;
    }
    if (c == kEof) return make_error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: cut short", where()));
    if (out.size() == kMaxTranscriptLineBytes) return too_long(start, "a JSON value");
    out.push_back(static_cast<char>(get()));
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    c = in_.rdbuf()->sgetc();
  }
}

Status JsonScanner::each_element(const std::function<Status(std::string, int line)>& visit) {
  TRY_STATUS(expect('[', "an array"));
  if (peek() == ']') {
    get();
    return ok_status();
  }
  for (;;) {
    peek();
    int line = line_;
    TRY(std::string element, value_text());
    TRY_STATUS(visit(std::move(element), line));
    if (peek() == ']') {
      get();
      return ok_status();
    }
    TRY_STATUS(expect(',', "',' or ']'"));
  }
}

Status JsonScanner::each_member(const std::function<Status(const std::string& key)>& visit) {
  TRY_STATUS(expect('{', "an object"));
  if (peek() == '}') {
    get();
    return ok_status();
  }
  for (;;) {
    if (peek() != '"') return expect('"', "a key");
    std::string at = where();
    TRY(std::string key_text, value_text());
    nlohmann::json key = parse_within_limits_or_discarded(key_text);
    if (!key.is_string()) return make_error(ErrorCode::kInvalidInput, at + ": not valid JSON: a bad key");
    TRY_STATUS(expect(':', "':'"));
    TRY_STATUS(visit(key.get<std::string>()));
    if (peek() == '}') {
      get();
      return ok_status();
    }
    TRY_STATUS(expect(',', "',' or '}'"));
  }
}

Status JsonScanner::expect_end() {
  if (peek() != kEof) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: text after the document", where()));
  }
  return ok_status();
}

}  // namespace candor::import
