#include "import/trajectory_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <streambuf>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/json_text.h"
#include "import/formats.h"

namespace candor::import {
namespace {

using Tools = std::vector<std::string>;

// The formats: one row each (name, importer, what a file of it is, its tools as its transcripts
// name them). Catalogues list the tools of the current versions, read from their sources and real
// files (tests/data/trajectories/*/SOURCE.txt), and older names still found in old files.
struct FormatRow {
  Format format;
  const char* name;
  Status (*import)(std::istream&, Builder&);
  const char* expected;
  Tools tools;
};

const std::vector<FormatRow>& formats() {
  static const std::vector<FormatRow> rows = {
      {Format::kClaudeCode,
       "claude-code",
       import_claude_code,
       "a Claude Code session (JSON Lines)",
       {"Agent",        "AskUserQuestion", "Bash",         "BashOutput",     "CronCreate",
        "CronDelete",   "CronList",        "Edit",         "EnterPlanMode",  "EnterWorktree",
        "ExitPlanMode", "ExitWorktree",    "Glob",         "Grep",           "KillShell",
        "LS",           "ListAgents",      "LSP",          "Monitor",        "MultiEdit",
        "NotebookEdit", "NotebookRead",    "Read",         "ReportFindings", "ScheduleWakeup",
        "SendMessage",  "Skill",           "SlashCommand", "Task",           "TaskCreate",
        "TaskGet",      "TaskList",        "TaskOutput",   "TaskStop",       "TaskUpdate",
        "TodoWrite",    "ToolSearch",      "WebFetch",     "WebSearch",      "Workflow",
        "Write"}},
      {Format::kSweAgent,
       "swe-agent",
       import_swe_agent,
       "a SWE-agent .traj",
       {"bash", "create", "edit", "find_file", "insert", "open", "submit", "goto", "scroll_up", "scroll_down",
        "search_dir", "search_file", "str_replace_editor", "filemap", "exit_forfeit", "review_on_submit",
        // EnIGMA, SWE-agent's CTF mode (config/commands/_interactive, _debug, _connect):
        "debug_start", "debug_add_breakpoint", "debug_continue", "debug_step", "debug_exec", "debug_stop",
        "connect_start", "connect_sendline", "connect_exec", "connect_stop", "decompile", "disassemble"}},
      {Format::kOpenHands,
       "openhands",
       import_openhands,
       "an OpenHands event stream",
       {// V1 (software-agent-sdk)
        "terminal", "file_editor", "planning_file_editor", "task_tracker", "browser_navigate", "browser_click",
        "browser_type", "browser_get_state", "browser_get_content", "browser_scroll", "browser_go_back",
        "browser_list_tabs", "browser_switch_tab", "browser_close_tab", "glob", "grep", "delegate", "task",
        // V0
        "execute_bash", "str_replace_editor", "execute_ipython_cell", "browser", "web_read", "edit_file", "think",
        "run", "read", "edit", "run_ipython", "browse", "browse_interactive"}},
      {Format::kCodex,
       "codex",
       import_codex,
       "a Codex rollout (JSON Lines)",
       {"shell", "shell_command", "local_shell", "exec_command", "write_stdin", "unified_exec", "apply_patch",
        "update_plan", "view_image", "web_search", "read_file", "list_dir", "grep_files", "list_mcp_resources",
        "list_mcp_resource_templates", "read_mcp_resource"}},
      {Format::kCodexExec,
       "codex-exec",
       import_codex_exec,
       "a `codex exec --json` stream (JSON Lines)",
       {"command_execution", "file_change", "web_search", "todo_list"}},
      {Format::kMiniSweAgent,
       "mini-swe-agent",
       import_mini_swe_agent,
       "a mini-swe-agent trajectory (.traj.json)",
       {"bash"}},
      {Format::kAider,
       "aider",
       import_aider,
       "an aider chat history (.aider.chat.history.md)",
       {"edit", "shell", "commit", "undo"}},
      {Format::kCline,
       "cline",
       import_cline,
       "a Cline or Roo Code task (api_conversation_history.json)",
       {"execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "codebase_search",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "new_task",
        "plan_mode_respond",
        "switch_mode",
        "fetch_instructions",
        "update_todo_list",
        "web_fetch",
        "load_mcp_documentation",
        "run_slash_command",
        "generate_image",
        "condense",
        "summarize_task"}},
      {Format::kGeminiCli,
       "gemini-cli",
       import_gemini_cli,
       "a Gemini CLI session (chats/session-*.json[l])",
       {"run_shell_command",
        "read_file",
        "read_many_files",
        "write_file",
        "replace",
        "list_directory",
        "glob",
        "grep_search",
        "search_file_content",
        "web_fetch",
        "google_web_search",
        "save_memory",
        "write_todos",
        "activate_skill",
        "ask_user",
        "enter_plan_mode",
        "exit_plan_mode",
        "complete_task",
        "invoke_agent",
        "get_internal_docs",
        "list_mcp_resources",
        "read_mcp_resource",
        "update_topic",
        "tracker_create_task",
        "tracker_update_task",
        "tracker_get_task",
        "tracker_list_tasks",
        "tracker_add_dependency",
        "tracker_visualize"}},
  };
  return rows;
}

const FormatRow& row(Format format) { return formats()[static_cast<std::size_t>(format)]; }

// A read-only, seekable stream over text the caller owns: no copy of a transcript already in memory.
class ViewBuf : public std::streambuf {
 public:
  explicit ViewBuf(const std::string& text) {
    char* begin = const_cast<char*>(text.data());  // read only: setg never writes
    setg(begin, begin, begin + text.size());
  }

 protected:
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    char* base = dir == std::ios_base::beg ? eback() : dir == std::ios_base::cur ? gptr() : egptr();
    if (base + off < eback() || base + off > egptr()) return pos_type(off_type(-1));
    setg(eback(), base + off, egptr());
    return pos_type(gptr() - eback());
  }
  pos_type seekpos(pos_type pos, std::ios_base::openmode mode) override {
    return seekoff(off_type(pos), std::ios_base::beg, mode);
  }
};

bool is_editor_change(const TrajectoryEvent& call) {
  std::string command = json_str(call.input, "command");
  return !command.empty() && command != "view";
}

}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : formats()) out.emplace_back(r.name);
    return out;
  }();
  return names;
}

std::string format_list() {
  std::string out;
  for (const auto& n : format_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::optional<Format> parse_format(const std::string& name) {
  if (name == "roo") return Format::kCline;  // Roo Code writes Cline's task files
  for (const auto& r : formats())
    if (name == r.name) return r.format;
  return std::nullopt;
}

std::string format_name(Format format) { return row(format).name; }

const std::vector<std::string>& tool_catalogue(Format format) { return row(format).tools; }

bool in_catalogue(Format format, const std::string& tool) {
  const auto& tools = tool_catalogue(format);
  return std::find(tools.begin(), tools.end(), tool) != tools.end();
}

std::vector<std::string> spec_tools(Format format, const std::vector<std::string>& called) {
  std::vector<std::string> out = tool_catalogue(format);
  out.emplace_back("mcp__*");
  for (const auto& t : called)
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

bool is_effect_call(Format format, const TrajectoryEvent& call) {
  const std::string& t = call.tool;
  switch (format) {
    case Format::kClaudeCode:
      return t == "Write" || t == "Edit" || t == "MultiEdit" || t == "NotebookEdit";
    case Format::kSweAgent:
      return t == "edit" || t == "create" || t == "insert" || (t == "str_replace_editor" && is_editor_change(call));
    case Format::kOpenHands:
      return t == "edit" || t == "edit_file" ||
             ((t == "str_replace_editor" || t == "file_editor" || t == "planning_file_editor") &&
              is_editor_change(call));
    case Format::kCodex:
      return t == "apply_patch";
    case Format::kCodexExec:
      return t == "file_change";
    case Format::kMiniSweAgent:
      return false;  // bash only
    case Format::kAider:
      return t == "edit";
    case Format::kCline:
      return t == "write_to_file" || t == "replace_in_file" || t == "apply_diff" || t == "insert_content" ||
             t == "search_and_replace";
    case Format::kGeminiCli:
      return t == "write_file" || t == "replace";
  }
  return false;
}

std::vector<std::string> ImportedTrajectory::tools_called() const {
  std::set<std::string> tools;
  for (const auto& e : events)
    if (e.kind == TrajectoryEvent::Kind::kToolCalled && !e.tool.empty()) tools.insert(e.tool);
  return {tools.begin(), tools.end()};
}

Result<ImportedTrajectory> import_trajectory(std::istream& in, Format format, const std::string& source,
                                             const SecretMasker* masker) {
  Builder b(format, source, masker);
  const FormatRow& r = row(format);
  TRY_STATUS(r.import(in, b));
  // The events' values came through the JSON limits: at most kMaxJsonDepth (+1 for {"value": ...})
  // deep, so the recursive walks over them (cutting strings, dump(), acceptance) are safe.
  return b.finish(r.expected);
}

Result<ImportedTrajectory> import_trajectory(const std::string& text, Format format, const std::string& source,
                                             const SecretMasker* masker) {
  if (text.size() > kMaxTranscriptBytes) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: refused: {} of transcript, over the limit of {}", source,
                                  format_bytes(text.size()), format_bytes(kMaxTranscriptBytes)));
  }
  ViewBuf buf(text);
  std::istream in(&buf);
  return import_trajectory(in, format, source, masker);
}

Status open_transcript(const std::string& path, std::ifstream& in) {
  // Opened without waiting (a FIFO's open waits for a writer, for ever), then looked at through the
  // descriptor: what was opened is what is checked, so a FIFO swapped in after a look by name
  // cannot hang the read.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return make_error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInvalidInput,
                      fmt::format("cannot read {}: {}", path, std::strerror(err)));
  }
  struct stat st {};
  bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidInput, fmt::format("cannot read {}: not a regular file", path));
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxTranscriptBytes) {
    ::close(fd);
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: refused: {} of transcript, over the limit of {}", path,
                                                            format_bytes(static_cast<std::size_t>(st.st_size)),
                                                            format_bytes(kMaxTranscriptBytes)));
  }
  // The stream reads the very file the descriptor holds (its /proc link), not the name again.
  in.open("/proc/self/fd/" + std::to_string(fd), std::ios::binary);
  ::close(fd);
  if (!in) return make_error(ErrorCode::kInvalidInput, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  return ok_status();
}

namespace {

// OpenHands V1's conversation folder; any other format has files only.
Result<ImportedTrajectory> import_trajectory_folder(const std::string& path, Format format,
                                                    const SecretMasker* masker) {
  if (format != Format::kOpenHands) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{}: a folder, not {}: only --format openhands reads a folder (an OpenHands V1 "
                                  "conversation's events/); give the transcript file",
                                  path, row(format).expected));
  }
  Builder b(format, path, masker);
  TRY_STATUS(import_openhands_folder(path, b));
  return b.finish(row(format).expected);
}

}  // namespace

Result<ImportedTrajectory> import_trajectory_file(const std::string& path, Format format, const SecretMasker* masker) {
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return import_trajectory_folder(path, format, masker);
  }
  std::ifstream in;
  TRY_STATUS(open_transcript(path, in));
  return import_trajectory(in, format, path, masker);
}

}  // namespace candor::import
