// Constructors of the built-in evaluators; the table that registers them is builtins.cc.
#pragma once

#include <memory>

#include "assertions/evaluator.h"

namespace candor::assertions {

std::unique_ptr<Evaluator> make_file_exists();
std::unique_ptr<Evaluator> make_file_contains();
std::unique_ptr<Evaluator> make_file_not_contains();
std::unique_ptr<Evaluator> make_file_size_gt();
std::unique_ptr<Evaluator> make_file_unchanged();
std::unique_ptr<Evaluator> make_content_changed();
std::unique_ptr<Evaluator> make_file_matches();
std::unique_ptr<Evaluator> make_json_valid();
std::unique_ptr<Evaluator> make_json_path_eq();
std::unique_ptr<Evaluator> make_git_clean();
std::unique_ptr<Evaluator> make_command_succeeds();
std::unique_ptr<Evaluator> make_not();
std::unique_ptr<Evaluator> make_output_contains();
std::unique_ptr<Evaluator> make_exit_code_eq();
std::unique_ptr<Evaluator> make_socket_open();
std::unique_ptr<Evaluator> make_http_200();

// Content checks read at most this much of a file.
inline constexpr std::size_t kMaxCheckedFile = 16 << 20;

// Reads a file for a content check from the context's file source; on failure `out` already says
// why. A missing file is an observation (a failed check); anything else that keeps the check from
// being made (over the read cap, a symlink refused or one the tree holds, not a regular file) is an
// error, which `not` never turns into a pass.
std::optional<std::string> read_for_check(const Context& ctx, const std::string& path, Outcome& out);

// The context's file source (the workspace when none is set): what every `reads_files`
// evaluator reads through. A credential file is read (the verdict may need it) and marked with
// saw_credential(), so that its message is withheld.
Result<sandbox::EntryInfo> stat_checked_path(const Context& ctx, const std::string& path);
// The directory entry at `path` itself, never what a symlink there points at (file_exists: a link
// left where a file was deleted is not a deletion).
Result<sandbox::EntryInfo> entry_checked_path(const Context& ctx, const std::string& path);
Result<std::string> read_checked_file(const Context& ctx, const std::string& path, std::size_t max_bytes);
// The workspace as it is now, whatever the file source: for comparisons with the snapshot.
Result<std::string> read_workspace_file(const Context& ctx, const std::string& path, std::size_t max_bytes);

// This evaluation met a credential file: Registry::evaluate withholds its message.
void saw_credential(const Context& ctx);

// Quotes text for a message, capped: "abc..." (44 chars).
std::string quote_excerpt(const std::string& text, std::size_t max_chars = 60);

}  // namespace candor::assertions
