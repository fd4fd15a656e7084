#include "core/json_text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace candor {
namespace {

// One open container on the way to the current point of the scan.
struct Frame {
  bool object = false;
  bool expect_key = true;  // object: the next string is a key
  std::size_t index = 0;   // array: the element being read
  std::string_view key;    // object: the last key read, as written (escapes kept)
};

bool plain_key(std::string_view key) {
  if (key.empty() || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_')) return false;
  return std::all_of(key.begin(), key.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

// A path component as a person reads it: `.key`, `["odd key"]`, `[3]`. A key is cut at 32 bytes,
// and bytes that are not printable ASCII are shown as \xNN: it is the input's text, not candor's.
std::string component(const Frame& f) {
  if (!f.object) return fmt::format("[{}]", f.index);
  if (f.key.data() == nullptr) return ".?";  // `{{`: no key was read (invalid JSON; the parser says so)
  std::string_view key = f.key.substr(0, 32);
  std::string shown;
  for (char c : key) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f)
      shown += fmt::format("\\x{:02x}", u);
    else
      shown += c;
  }
  if (key.size() < f.key.size()) shown += "…";
  if (plain_key(f.key)) return "." + shown;
  return "[\"" + shown + "\"]";
}

// `$` and every frame; beyond 16 components the middle is said as a count.
std::string path_of(const std::vector<Frame>& frames) {
  constexpr std::size_t kHead = 10, kTail = 3;
  std::string out = "$";
  if (frames.size() <= kHead + kTail + 3) {
    for (const auto& f : frames) out += component(f);
    return out;
  }
  for (std::size_t i = 0; i < kHead; ++i) out += component(frames[i]);
  out += fmt::format("…({} more levels)…", frames.size() - kHead - kTail);
  for (std::size_t i = frames.size() - kTail; i < frames.size(); ++i) out += component(frames[i]);
  return out;
}

// "SOURCE:LINE:COL" of byte `at`: the position a person looks for.
std::string position(std::string_view text, std::size_t at, const std::string& source, int first_line) {
  at = std::min(at, text.size());
  int line = first_line;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("{}:{}:{}", source, line, at - line_start + 1);
}

Result<nlohmann::json> parse_checked(std::string_view text, const std::string& source, int first_line, bool comments) {
  // JSON never holds a raw NUL, and nlohmann's lexer takes one for the end of the input: what
  // follows it would be dropped unread (found by fuzz/json_limits).
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: not valid JSON: a NUL byte", position(text, nul, source, first_line)));
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, true, comments);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t byte = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::string what = e.what();
    auto pos = what.find("syntax error");
    if (pos != std::string::npos) what = what.substr(pos);
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: not valid JSON: {}", position(text, byte, source, first_line), what));
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1E999") is an out_of_range error, not a parse_error
    // (found by fuzz/plan_parser). It carries no position.
    std::string what = e.what();
    auto pos = what.find("] ");
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: not valid JSON: {}", source,
                                                            pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  constexpr std::size_t kKiB = 1024, kMiB = kKiB * 1024;
  auto in = [&](std::size_t unit, const char* name) {
    if (bytes % unit == 0) return fmt::format("{} {}", bytes / unit, name);
    return fmt::format("{:.1f} {}", static_cast<double>(bytes) / static_cast<double>(unit), name);
  };
  if (bytes >= kMiB) return in(kMiB, "MiB");
  if (bytes >= kKiB) return in(kKiB, "KiB");
  return fmt::format("{} bytes", bytes);
}

Result<std::string> read_input_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    return make_error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInvalidInput,
                      fmt::format("cannot read {}: {}", path, std::strerror(err)));
  }
  std::string text;
  std::vector<char> buffer(1 << 16);
  while (text.size() <= max_bytes && in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())).gcount() > 0) {
    text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad())
    return make_error(ErrorCode::kInvalidInput, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  if (text.size() > max_bytes) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: refused: over the limit of {} for this input", path, format_bytes(max_bytes)));
  }
  return text;
}

Status check_json_limits(std::string_view text, const std::string& source, const JsonLimits& limits, int first_line) {
  if (text.size() > limits.max_bytes) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: refused: {} of JSON, over the limit of {}", source,
                                                            format_bytes(text.size()), format_bytes(limits.max_bytes)));
  }
  std::vector<Frame> frames;
  frames.reserve(static_cast<std::size_t>(std::max(limits.max_depth, 0)) + 1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (limits.comments && c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
      // A comment: skipped whole, as the parser will (brackets and quotes in it are text).
      bool line = text[i + 1] == '/';
      std::size_t end = line ? text.find('\n', i + 2) : text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + (line ? 0 : 1);
      continue;
    }
    switch (c) {
      case '"': {
        // A string: skipped whole (brackets in it are text); a key is remembered for the path.
        std::size_t start = i + 1;
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
        }
        if (!frames.empty() && frames.back().object && frames.back().expect_key) {
          frames.back().key = text.substr(start, std::min(i, text.size()) - start);
        }
        break;
      }
      case '{':
      case '[':
        if (frames.size() >= static_cast<std::size_t>(std::max(limits.max_depth, 0))) {
          return make_error(ErrorCode::kInvalidInput,
                            fmt::format("{}: refused: JSON nested deeper than {} levels at {}",
                                        position(text, i, source, first_line), limits.max_depth, path_of(frames)));
        }
        frames.emplace_back();
        frames.back().object = c == '{';
        break;
      case '}':
      case ']':
        if (!frames.empty()) frames.pop_back();  // unbalanced closers are the parser's to refuse
        break;
      case ',':
        if (!frames.empty()) {
          if (frames.back().object)
            frames.back().expect_key = true;
          else
            ++frames.back().index;
        }
        break;
      case ':':
        if (!frames.empty() && frames.back().object) frames.back().expect_key = false;
        break;
      default:
        break;
    }
  }
  return ok_status();
}

nlohmann::json parse_within_limits_or_discarded(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
}

Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source, const JsonLimits& limits) {
  TRY_STATUS(check_json_limits(text, source, limits));
  return parse_checked(text, source, 1, limits.comments);
}

Status check_json_line(std::string_view line, const std::string& source, int line_no, const JsonLimits& limits) {
  if (line.size() > limits.max_bytes) {  // said here, so that the message names the line
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}:{}: refused: a line of {} of JSON, over the limit of {}", source, line_no,
                                  format_bytes(line.size()), format_bytes(limits.max_bytes)));
  }
  return check_json_limits(line, source, limits, line_no);
}

Result<nlohmann::json> parse_json_line(std::string_view line, const std::string& source, int line_no,
                                       const JsonLimits& limits) {
  TRY_STATUS(check_json_line(line, source, line_no, limits));
  return parse_checked(line, source, line_no, limits.comments);
}

}  // namespace candor
