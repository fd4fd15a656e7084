// `candor gate install --agent claude-code|codex [--user] [--uninstall]`: candor's two hooks
// (UserPromptSubmit and Stop, each running `candor gate AGENT`) merged into the agent's own settings
// file, every other key and hook of it kept, written only when something changes; and for Codex
// its hooks feature turned on in config.toml. The merges are pure functions of the file's text
// (tested without a file system); install_gate reads, merges and writes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/hook_protocol.h"
#include "core/result.h"

namespace candor::app {

struct HookEntry {
  std::string event;    // UserPromptSubmit | Stop
  std::string command;  // what the agent runs: "/abs/candor gate claude-code ..."
  int timeout_s = 60;
};

// candor's hooks for `agent`, running `command_prefix` ("/abs/candor gate claude-code [options]").
std::vector<HookEntry> gate_hooks(const std::string& command_prefix);

// `word` quoted for a POSIX shell when it needs to be (both agents run a hook's command with sh).
std::string shell_quote(const std::string& word);

// The value of `option` ("--store", "--llm") in a hook command of candor's, "" when it has none.
std::string hook_option(const std::string& command, const std::string& option);

// The store folder to pin in the hook's command (`--store DIR`, absolute), or "" when the hook
// finds it by itself: `given` (--store) when not empty, else the store this process resolves
// ($CANDOR_HOME, ...), pinned whenever it differs from the one the hook resolves in an agent's
// environment, which lacks a CANDOR_HOME set for one shell (store::state_store_dir). A team store's
// URL (--store or $CANDOR_STORE_URL) is always pinned. `env` empty: the process's own.
std::string hook_store_dir(const std::string& given, const std::function<std::string(const char*)>& env);

// kUsage when the store hook_store_dir pins is a URL with a password: the hook's command is written
// to a settings file, often committed, and a password must not be in it (libpq's PGPASSFILE is where
// it goes).
Status check_hook_store(const std::string& given, const std::function<std::string(const char*)>& env);

// Whether a hook's command is candor's gate: a word naming a program `candor`, then `gate`, then
// `claude-code` or `codex` (whatever path the binary had when it was installed).
bool is_candor_hook_command(const std::string& command);

struct MergeResult {
  std::string text;  // the file's new text (the old one when nothing changed)
  bool changed = false;
  std::vector<std::string> what;  // what changed, a sentence each
};

// A settings file's text ("" for a file that does not exist) with `hooks` merged into its
// `hooks` object: a handler of candor's already there with the same command and timeout is left
// as it is; one with another command (an older path) is updated in place; otherwise a group of its
// own is appended to the event's list (so existing groups keep their positions: Codex's trust of
// a hook is keyed by them). `uninstall` removes candor's handlers (and the groups and events it
// empties) and nothing else. kInvalidInput naming `where` and the JSON path for a file that is not
// what the agent reads (not JSON, `hooks` not an object, ...): then nothing is to be written.
Result<MergeResult> merge_hooks(const std::string& text, const std::string& where, const std::vector<HookEntry>& hooks,
                                bool uninstall);

// Codex's config.toml text ("" when missing) with its hooks feature on (`[features] hooks = true`):
// unchanged when on already, the value set when off, the key (or the table) added otherwise. An
// inline `features = {...}` table is refused (kInvalidInput): edit it by hand.
Result<MergeResult> enable_codex_hooks(const std::string& toml, const std::string& where);

struct InstallRequest {
  GateAgent agent = GateAgent::kClaudeCode;
  bool user = false;       // the user's settings (every project), else the project's
  bool uninstall = false;  // remove candor's hooks
  // Claude Code's project-local settings (.claude/settings.local.json, the person's own, not
  // committed) instead of .claude/settings.json. Claude Code only; not with `user`.
  bool local = false;
  std::string project_dir = ".";
  std::string command;  // the hook command's prefix: "/abs/candor gate AGENT [--store DIR] [--llm SPEC] ..."
  std::function<std::string(const char*)> env;  // empty: the process's own (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME)
};

struct FileChange {
  std::string path;
  bool changed = false;
  std::vector<std::string> what;
  std::string unchanged;  // why nothing changed, when nothing did
};

struct InstallResult {
  std::vector<FileChange> files;
  std::vector<std::string> notes;  // what the person must know or do next
};

// Reads, merges and writes (atomically, through a temporary file renamed over it; the folder made
// when missing). A file that cannot be read as the agent's settings is left untouched: the error
// names it and the JSON path.
Result<InstallResult> install_gate(const InstallRequest& request);

// The agent's settings files: the project's (`project_dir` given; for Claude Code `local`: its
// settings.local.json) or the user's. For Codex, also config.toml (the user's, where its features are).
std::string claude_settings_path(bool user, const std::string& project_dir,
                                 const std::function<std::string(const char*)>& env, bool local = false);
std::string codex_hooks_path(bool user, const std::string& project_dir,
                             const std::function<std::string(const char*)>& env);
std::string codex_config_path(const std::function<std::string(const char*)>& env);

// Every settings file that decides whether the agents run candor's hooks, each layer in the agent's
// precedence: Claude Code's managed, user and user-local, project and project-local settings;
// Codex's project and user hooks.json and the user's config.toml (the feature flag and the hooks'
// trust). `in_workspace`: the paths that lie in `project_dir` (workspace-relative), the rest absolute.
struct HookSettingsFile {
  std::string agent;  // claude-code | codex
  std::string path;   // absolute
  std::string rel;    // workspace-relative when inside the workspace, else ""
};
std::vector<HookSettingsFile> hook_settings_files(const std::string& project_dir,
                                                  const std::function<std::string(const char*)>& env);

// Whether candor's hooks will actually run for `agent` in `project_dir` (docs/design.md: gate status says
// whether they are effective, not only written): "" when they will, else why not (no layer installs
// them, `disableAllHooks` in a layer, Codex's feature off or its hooks untrusted).
std::string hooks_not_effective(GateAgent agent, const std::string& project_dir,
                                const std::function<std::string(const char*)>& env);

}  // namespace candor::app
