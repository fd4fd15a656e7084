// A run's report: the JSON of docs/design.md (built once, stored, and the source of every rendering)
// and the terminal rendering a person scans in five seconds: verdict first, then why, then signals.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/arg_schema.h"
#include "core/run_record.h"
#include "verify/tier1.h"
#include "verify/verdict.h"

namespace candor::report {

// `judge` is null when tier 2 was not asked.
nlohmann::json build_report(const RunFacts& facts, const verify::Tier1Result& tier1, const verify::Decision& decision,
                            const std::string& created_at, const verify::JudgeOutcome* judge = nullptr);

struct TerminalOptions {
  bool color = false;
  std::size_t width = 80;
};

// REQUIRES: `report` came from build_report (possibly through the store).
std::string render_terminal(const nlohmann::json& report, const TerminalOptions& options);

// --color: auto (the default), always or never. Set once by the CLI before anything is printed.
enum class ColorMode { kAuto, kAlways, kNever };
void set_color_mode(ColorMode mode);

// Colour as --color says; for auto, only on a terminal and without NO_COLOR (or TERM=dumb).
bool want_color(int fd);
// The acceptance section: passed or not, then one line per checkpoint (seq, or why it was missed).
std::string render_acceptance(const nlohmann::json& acceptance);
// The same decision, given whether the output is a terminal.
bool want_color_for(bool is_tty);

}  // namespace candor::report
