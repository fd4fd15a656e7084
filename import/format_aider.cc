// aider's chat history (.aider.chat.history.md, in the repository aider ran in), as aider's io.py
// writes it: "# aider chat started at ..." begins a session; the person's input is "#### " lines;
// aider's own messages are blockquotes ("> Applied edit to PATH", "> Commit HASH MSG", "> Running
// CMD"), written as one "> " followed by the text, whose last line ends with the Markdown line
// break (two spaces); everything else is the model's reply. Calls: `edit` (an edit applied),
// `commit`, `undo` (/undo: the last aider commit taken back), `shell` (a command aider ran: one it proposed, or /run,
// /test, !). The file has no exit codes, and a command's output only when aider showed it (a failing /test; newer
// versions say only "Added N lines of output to the chat."): results say what the file says and no more.
#include <fmt/format.h>

#include "core/json_text.h"
#include "import/formats.h"

namespace candor::import {
namespace {

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// A line of aider's writing ends with a Markdown line break; a reply's lines need not.
bool line_break(const std::string& s) { return s.size() >= 2 && s.compare(s.size() - 2, 2, "  ") == 0; }

std::string trim_break(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

struct Reader {
  explicit Reader(Builder& builder) : b(builder) {}
  Builder& b;
  std::string reply;       // the model's reply being read
  std::string last_reply;  // the last complete one: the final answer
  std::string open_shell;  // the id of a shell call whose output may follow
  std::string open_undo;   // the id of an /undo whose "Removed: ..." may follow
  std::string block;       // a blockquote being read (multi-line)
  bool in_block = false;
  int n = 0;
  int marks = 0;  // session starts and the person's lines: what makes a file aider's

  std::string next_id() { return fmt::format("aider-{}", ++n); }

  void end_reply() {
    std::string r = trim_break(reply);
    while (!r.empty() && (r.front() == '\n')) r.erase(0, 1);
    if (!r.empty()) last_reply = r;
    reply.clear();
  }

  void shell(const std::string& command) {
    open_shell = next_id();
    b.call(open_shell, "shell", {{"command", command}});
  }

  void user(const std::string& text) {
    end_reply();
    open_shell.clear();
    open_undo.clear();
    if (starts(text, "/run ") || starts(text, "/test ")) {
      shell(text.substr(text.find(' ') + 1));
    } else if (starts(text, "!") && text.size() > 1) {
      shell(text.substr(1));
    } else if (text == "/undo") {
      open_undo = next_id();
      b.call(open_undo, "undo", nlohmann::json::object());
    } else {
      b.skip("user");
    }
  }

  void quote(const std::string& text) {
    if (starts(text, "Applied edit to ")) {
      std::string id = next_id();
      b.call(id, "edit", {{"path", text.substr(16)}});
      b.result(id, {{"ok", true}, {"output", text}});
    } else if (starts(text, "Commit ") && text.size() > 15) {
      std::string rest = text.substr(7);
      std::string id = next_id();
      std::size_t sp = rest.find(' ');
      b.call(id, "commit",
             {{"hash", rest.substr(0, sp)}, {"message", sp == std::string::npos ? "" : rest.substr(sp + 1)}});
      b.result(id, {{"ok", true}, {"output", text}});
    } else if (starts(text, "Removed: ") && !open_undo.empty()) {
      b.result(open_undo, {{"ok", true}, {"output", text}});  // the commit it took back
      open_undo.clear();
    } else if (starts(text, "Running ")) {
      shell(text.substr(8));
    } else if (!open_shell.empty() && starts(text, "Added ") &&
               text.find(" of output to the chat.") != std::string::npos) {
      // /run's output went to the chat, not to the file (aider 0.86): the command ran, its output is unknown.
      b.result(open_shell, {{"output", ""}, {"aider", text}});
      open_shell.clear();
    } else if (!open_shell.empty() && text.find('\n') != std::string::npos) {
      b.result(open_shell, {{"output", text}});  // what the command printed (no code in the file)
      open_shell.clear();
    } else {
      b.skip("aider");
    }
  }

  void line(std::string s) {
    if (in_block) {
      block += "\n" + trim_break(s);
      if (line_break(s) && !trim_break(s).empty()) {  // a blank line of a command's output is no end
        in_block = false;
        quote(block);
      }
      return;
    }
    if (starts(s, "# aider chat started at ")) {
      end_reply();
      open_shell.clear();
      ++marks;
      b.skip("session");
    } else if (starts(s, "#### ")) {
      ++marks;
      user(trim_break(s.substr(5)));
    } else if (starts(s, "> ") || s == ">" || trim_break(s) == ">") {
      end_reply();
      block = trim_break(s.size() > 2 ? s.substr(2) : "");
      if (line_break(s) || trim_break(s) == ">") {
        quote(block);
      } else {
        in_block = true;
      }
    } else {
      reply += s + "\n";
    }
  }
};

}  // namespace

Status import_aider(std::istream& in, Builder& b) {
  Reader r(b);
  std::streambuf* buf = in.rdbuf();
  std::string s;
  int number = 0;
  for (int c = buf->sbumpc();; c = buf->sbumpc()) {
    if (c == std::char_traits<char>::eof() || c == '\n') {
      if (c == std::char_traits<char>::eof() && s.empty()) break;
      ++number;
      b.count_record();
      b.at(fmt::format("{}:{}", b.source(), number));
      r.line(std::move(s));
      s.clear();
      if (c == std::char_traits<char>::eof()) break;
      continue;
    }
    if (s.size() == kMaxTranscriptLineBytes) {
      return make_error(ErrorCode::kInvalidInput, fmt::format("{}:{}: refused: a line over the limit of {}", b.source(),
                                                              number + 1, format_bytes(kMaxTranscriptLineBytes)));
    }
    s.push_back(static_cast<char>(c));
  }
  if (r.marks == 0) {
    return make_error(ErrorCode::kInvalidInput,
                      b.source() + ": not an aider chat history: no \"# aider chat started at\" or \"#### \" line");
  }
  if (r.in_block) r.quote(r.block);
  r.end_reply();
  if (!r.last_reply.empty()) b.final_answer(r.last_reply);
  return ok_status();
}

}  // namespace candor::import
