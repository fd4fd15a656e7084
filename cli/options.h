// What the subcommands' registrations share: validators, the examples footer, the options of
// `run` and `exec`.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/session.h"

namespace candor::cli {

// llm::choose_provider's rule, for the --llm help texts.
std::string llm_default();

// A whole number from lo to hi; the error says what was expected, not just "not in range".
CLI::Validator whole_number(long long lo, long long hi, const std::string& unit);

// An option whose value is one of `names`, shown in --help as `a|b|c` (CLI11 alone says
// `TEXT:{a,b,c}`); the bash completion offers the names (scripts/help_docs.py).
CLI::Option* one_of(CLI::Option* option, const std::vector<std::string>& names);

// --judge: one of the judge policies (verify::kJudgePolicyNames).
CLI::Option* judge_policy(CLI::Option* option);

// The footer of a subcommand's --help: two example command lines.
std::string examples(const std::string& a, const std::string& b);

// The options `run` and `exec` share: where, what is stored, the goal-level checks, budgets;
// -q,--quiet sets `quiet`.
void add_workspace_options(CLI::App* cmd, app::WorkspaceOptions& options, bool& quiet);

}  // namespace candor::cli
