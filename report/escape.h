// Text that came from the workspace or an LLM (paths, goals, messages, reasons, answers, step
// output), made inert for the place it is printed. The agent chooses this text: a file named
// "# Forged heading" must not become a heading, a message holding "\x1b]0;title\x07" must not
// rewrite the reader's terminal. Every renderer passes every such string through one of these.
#pragma once

#include <string>
#include <string_view>

namespace candor::report {

// For a terminal. Control characters become visible stand-ins: C0 as its Unicode control picture
// (ESC shows as ␛, BEL as ␇, CR as ␍; '\n' too unless `keep_newlines`), tab as a space, DEL as ␡;
// C1 controls, Unicode bidirectional controls (which reorder what a reader sees) and bytes that are
// not valid UTF-8 (a lone 0x9B is CSI to an 8-bit terminal) as U+FFFD. Nothing else changes.
std::string terminal_safe(std::string_view text, bool keep_newlines = false);

// For Markdown prose: a heading, a list item, a table cell. Control characters as terminal_safe
// (a newline becomes a space: the text stays on its line), then a backslash before each character
// that could open markup there — `\ ` * _ [ ] < > | & ~ $ @` anywhere; `# - + =` and the `.`/`)` of
// "1." where the text starts; the `:` of "scheme://" and the `.` of "www." — so no heading, list,
// emphasis, link, image, autolink, raw HTML, entity, math or table pipe can form, and the rest
// ("Fix #387: crash") reads as written.
std::string markdown_text(std::string_view text);

// At most `width` bytes: longer text is cut between UTF-8 characters and ends in "...".
std::string shorten(std::string_view text, std::size_t width);

// The columns `text` takes on a terminal, counted high: an ASCII character takes one, any other
// two (East Asian wide characters do; a terminal gives none more). REQUIRES: `text` went through
// terminal_safe (no control characters, valid UTF-8).
std::size_t column_bound(std::string_view text);

// At most `columns` by column_bound: longer text is cut between UTF-8 characters and ends in "...".
// Where a wrapped line would break the display (a line redrawn in place), this is the cut to use.
std::string fit_columns(std::string_view text, std::size_t columns);

// Where a code span goes: a GitHub table cell splits on '|' even inside code spans, unless escaped.
enum class SpanIn { kProse, kTableCell };

// An inline code span showing `text` literally (nothing inside a code span is interpreted):
// the fence is one backtick longer than the longest run of backticks in `text`, so the text cannot
// close it; control characters as markdown_text. In a table cell each '|' is escaped for the
// table; a '|' that follows a backslash in `text` then shows one backslash too many (GFM's table
// scanner pairs backslashes, its unescaping does not), which is inert.
std::string markdown_code(std::string_view text, SpanIn where = SpanIn::kProse);

}  // namespace candor::report
