#include "report/escape.h"

#include <algorithm>
#include <cstring>

namespace candor::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at s[i] (shortest form, no surrogates, at most
// U+10FFFF) with its code point, or 0 when the bytes there are not one.
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t& cp) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = b0 & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void append_utf8(std::string& out, char32_t cp) {  // cp < 0x10000 here
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Calls `emit(piece)` for each character of `text` with controls replaced; '\n' is passed to
// `newline()` instead, which decides.
template <typename Emit, typename Newline>
void for_each_safe(std::string_view text, Emit emit, Newline newline) {
  std::string buf;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    std::size_t len = utf8_at(text, i, cp);
    if (len == 0) {
      emit(kReplacement);
      ++i;
      continue;
    }
    if (cp == '\n') {
      newline();
    } else if (cp == '\t') {
      emit(" ");
    } else if (cp < 0x20 || cp == 0x7F) {
      buf.clear();
      append_utf8(buf, cp == 0x7F ? 0x2421 : 0x2400 + cp);
      emit(buf);
    } else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
      emit(kReplacement);
    } else {
      emit(text.substr(i, len));
    }
    i += len;
  }
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for_each_safe(
      text, [&](std::string_view piece) { out += piece; },
      [&] {
        if (keep_newlines) {
          out += '\n';
        } else {
          append_utf8(out, 0x240A);  // ␊
        }
      });
  return out;
}

std::string shorten(std::string_view text, std::size_t width) {
  if (text.size() <= width) return std::string(text);
  std::size_t cut = width > 3 ? width - 3 : width;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::size_t column_bound(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      ++n;
    } else if ((b & 0xC0) != 0x80) {
      n += 2;  // the first byte of a multi-byte character
    }
  }
  return n;
}

std::string fit_columns(std::string_view text, std::size_t columns) {
  if (column_bound(text) <= columns) return std::string(text);
  std::size_t room = columns > 3 ? columns - 3 : 0;
  std::size_t used = 0, cut = 0;
  while (cut < text.size()) {
    std::size_t len = 1, cols = 1;
    if (static_cast<unsigned char>(text[cut]) >= 0x80) {
      while (cut + len < text.size() && (static_cast<unsigned char>(text[cut + len]) & 0xC0) == 0x80) ++len;
      cols = 2;
    }
    if (used + cols > room) break;
    used += cols;
    cut += len;
  }
  return std::string(text.substr(0, cut)) + std::string("...").substr(0, columns - room);
}

std::string markdown_text(std::string_view text) {
  std::string safe;
  safe.reserve(text.size());
  for_each_safe(
      text, [&](std::string_view piece) { safe += piece; }, [&] { safe += ' '; });
  auto lower_is = [&](std::size_t at, std::string_view word) {
    if (at + word.size() > safe.size()) return false;
    for (std::size_t k = 0; k < word.size(); ++k)
      if (std::tolower(static_cast<unsigned char>(safe[at + k])) != word[k]) return false;
    return true;
  };
  const std::size_t start = std::min(safe.find_first_not_of(' '), safe.size());
  std::string out;
  out.reserve(safe.size() + safe.size() / 8);
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const char c = safe[i];
    // What opens markup anywhere on a line: code, emphasis, links and images, raw HTML, entities,
    // table pipes, strikethrough, math, e-mail autolinks.
    bool escape = std::strchr("\\`*_[]<>|&~$@", c) != nullptr;
    // What opens a block where the text starts a line: a heading, a list, a quote, a setext rule.
    if (i == start && std::strchr("#-+=", c) != nullptr) escape = true;
    if ((c == '.' || c == ')') && i > start &&
        std::all_of(safe.begin() + static_cast<std::ptrdiff_t>(start), safe.begin() + static_cast<std::ptrdiff_t>(i),
                    [](char d) { return std::isdigit(static_cast<unsigned char>(d)) != 0; })) {
      escape = true;  // "1." or "1)": an ordered list
    }
    // Autolinks: "scheme://" and "www." (GitHub's extended ones).
    if (c == ':' && safe.compare(i + 1, 2, "//") == 0) escape = true;
    if (c == '.' && i >= 3 && lower_is(i - 3, "www") &&
        (i == 3 || std::isalnum(static_cast<unsigned char>(safe[i - 4])) == 0)) {
      escape = true;
    }
    if (escape) out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_code(std::string_view text, SpanIn where) {
  std::string body;
  body.reserve(text.size());
  for_each_safe(
      text, [&](std::string_view piece) { body += piece; }, [&] { body += ' '; });
  std::size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (where == SpanIn::kTableCell) {
    // The table scanner reads "\\" as one escaped character: a pipe after an odd run of
    // backslashes needs two more of them to stay escaped.
    std::string escaped;
    std::size_t backslashes = 0;
    for (char c : body) {
      if (c == '|') escaped += backslashes % 2 == 1 ? "\\\\" : "\\";
      backslashes = c == '\\' ? backslashes + 1 : 0;
      escaped += c;
    }
    body = std::move(escaped);
  }
  if (body.empty()) {
    body = " ";  // "``" would open a span, not be one
  } else if (body.find_first_not_of(' ') != std::string::npos &&
             (body.front() == '`' || body.back() == '`' || body.front() == ' ' || body.back() == ' ')) {
    body = " " + body + " ";  // CommonMark strips one space from each side of a span not all spaces
  }
  std::string fence(longest + 1, '`');
  return fence + body + fence;
}

}  // namespace candor::report
