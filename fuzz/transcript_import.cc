// libFuzzer target: any bytes through every transcript importer (other agents' transcripts are
// untrusted input: docs/design.md, Trust boundary) and through the gate's turn finder.
//
// Input: byte 0 picks the format (modulo the number of formats); the rest is the transcript.
// A finding: a crash, a sanitizer report, a hang, an error without a message, an import that
// succeeds with a kept string over its cut or with events out of sequence, or a turn found past the
// end of the text.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "import/import_builder.h"
#include "import/trajectory_import.h"
#include "import/turn_slice.h"

using namespace candor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto& names = import::format_names();
  const std::string& name = names[data[0] % names.size()];
  import::Format format = *import::parse_format(name);
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto imported = import::import_trajectory(text, format, "fuzz");
  if (!imported.ok()) {
    if (imported.error().message.empty()) __builtin_trap();
  } else {
    std::int64_t seq = 0;
    for (const auto& e : imported->events) {
      if (e.seq != ++seq) __builtin_trap();
      // Every kept string is cut: its first and last halves and a marker between them.
      if (e.text.size() > 2 * import::kKeptHalf + 128) __builtin_trap();
    }
  }

  if (format == import::Format::kClaudeCode || format == import::Format::kCodex) {
    std::istringstream in(text);
    auto turn = import::find_turn(in, format, text.size() % 2 ? "p1" : "");
    if (turn.ok() && turn->found) {
      if (turn->offset < 0 || static_cast<std::size_t>(turn->offset) > text.size()) __builtin_trap();
      if (turn->first_line < 1) __builtin_trap();
    }
  }
  return 0;
}
