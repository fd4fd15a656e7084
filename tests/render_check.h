// Checks for text the agent chose, once rendered: no control character a terminal would act on,
// no Markdown that acts, no line that passes for one of candor's own (the tests and fuzz/).
#pragma once

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace candor::testing {

// Cells in a GFM table row the way cmark-gfm's scanner splits it: "\" and the next punctuation
// character are one unit; every other '|' separates.
inline std::size_t gfm_cells(const std::string& row) {
  std::size_t pipes = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && std::ispunct(static_cast<unsigned char>(row[i + 1]))) {
      ++i;
    } else if (row[i] == '|') {
      ++pipes;
    }
  }
  return pipes - 1;  // rows start and end with a pipe
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// A control character a terminal would act on: C0 but '\n', DEL, C1 (U+0080..U+009F), or a byte
// that is not part of valid UTF-8 (a lone 0x9B is CSI to an 8-bit terminal).
inline bool has_raw_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n') || c == 0x7F) return true;
      ++i;
      continue;
    }
    std::size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return true;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return true;
    if (c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return true;  // C1
    i += len;
  }
  return false;
}

// The Markdown that acts in a line: outside backslash escapes and code spans, the characters that
// open markup anywhere (`* _ [ ] < > | & ~ $ @`), the `:` of "scheme://" and the `.` of "www."
// (autolinks), and the line's first character when it opens a block (`# - + = >`). A
// report's skeletons are the same whatever text the agent wrote, when that text is inert.
inline std::string skeleton(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size() && std::ispunct(static_cast<unsigned char>(line[i + 1]))) {
      ++i;
    } else if (c == '`') {
      std::size_t n = 0;
      while (i + n < line.size() && line[i + n] == '`') ++n;
      std::string fence(n, '`');
      std::size_t close = line.find(fence, i + n);
      while (close != std::string::npos && close + n < line.size() && line[close + n] == '`') {
        close = line.find(fence, line.find_first_not_of('`', close));
      }
      if (close == std::string::npos) {
        out += fence;  // an unclosed run stays literal, but count it
        i += n - 1;
      } else {
        out += "<code>";
        i = close + n - 1;
      }
    } else if (std::strchr("*_[]<>|&~$@", c) != nullptr) {
      out += c;
    } else if (c == ':' && line.compare(i + 1, 2, "//") == 0) {
      out += "://";
    } else if (c == '.' && i >= 3 && line.compare(i - 3, 3, "www") == 0) {
      out += "www.";
    } else if (i == 0 && std::strchr("#-+=>", c) != nullptr) {
      out += c;
    }
  }
  return out;
}

inline std::vector<std::string> skeletons(const std::string& md) {
  std::vector<std::string> out;
  for (const auto& line : lines_of(md)) out.push_back(skeleton(line));
  return out;
}

// Whether every line of a Markdown report starts the way candor's own lines do.
inline bool lines_are_ours(const std::string& md, std::string* first_stranger = nullptr) {
  for (const auto& line : lines_of(md)) {
    bool ours = line.empty() || line.rfind("### ", 0) == 0 || line.rfind("Run `", 0) == 0 || line.rfind("**", 0) == 0 ||
                line.rfind("- ", 0) == 0 || line.rfind("| ", 0) == 0 || line.rfind("|---", 0) == 0 ||
                line.rfind("<details><summary>", 0) == 0 || line == "</details>" || line.rfind("> ", 0) == 0 ||
                line == ">" || line.rfind("  - ", 0) == 0 || line.rfind("*Left out to fit", 0) == 0 ||
                line == "Nothing in the workspace changed.";
    if (!ours) {
      if (first_stranger != nullptr) *first_stranger = line;
      return false;
    }
  }
  return true;
}

// Whether every line of a terminal report at column 0 is one of candor's own headings (the first
// line, the verdict, is not checked: it starts with whatever the report's verdict says).
inline bool terminal_lines_are_ours(const std::string& text, std::string* first_stranger = nullptr) {
  auto lines = lines_of(text);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == ' ') continue;
    bool ours = line.rfind("run ", 0) == 0 || line == "why" || line == "signals" || line == "changes" ||
                line.rfind("acceptance: ", 0) == 0 || line == "acceptance passed" ||
                line.rfind("acceptance NOT PASSED", 0) == 0 || line.rfind("undone at ", 0) == 0 ||
                line == "suspicious" || line == "assertions" || line == "judge (tier 2)" ||
                line == "independent reviews" || line == "failed steps" ||
                line == "final answer (the model's words, not evidence)";
    if (!ours) {
      if (first_stranger != nullptr) *first_stranger = line;
      return false;
    }
  }
  return true;
}

}  // namespace candor::testing
