// Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-*.jsonl; .json before), as
// chatRecordingService.ts writes and loads them. The .jsonl is not an append-only log: after a
// record of the session's metadata, each message record ({id, timestamp, type: user | gemini |
// info | error | warning, content, toolCalls?}) may be written again with the same id (the last
// one wins, in the place of the first: a gemini message gains its toolCalls that way);
// {"$set": {"messages": [...]}} replaces the whole list; {"$rewindTo": ID} deletes that message
// and everything after it (all of them when ID is not there); other `$set`s patch the metadata.
// The older .json is one object with a `messages` array of the same records. A gemini message's
// toolCalls carry each call with its result (functionResponse parts, matched by id) and status;
// newer versions write the same functionResponse again as a `user` message, read only for a call
// whose entry has no result. So the session is read whole before its events are made: memory is
// the list of current messages, each kept as its calls and its text cut (import_builder.h).
#include <set>
#include <unordered_map>

#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

const char* const kExpected = "a Gemini CLI session (chats/session-*.jsonl, or .json with a \"messages\" array)";

struct Response {
  std::string id, name;
  nlohmann::json result;
};

struct Call {
  std::string id, name;
  nlohmann::json args;
  std::optional<nlohmann::json> result;
};

// A message as far as the events need it: a gemini message's calls and text, a user message's
// functionResponses; any other message only holds its place (a rewind counts it).
struct Message {
  std::string id, type, text;
  std::vector<Call> calls;
  std::vector<Response> responses;
};

// The text of a functionResponse's response: its output, or its error.
std::string response_text(const nlohmann::json& response) {
  std::string out;
  if (member(response, "output").is_string()) out += response["output"].get<std::string>();
  if (member(response, "error").is_string()) out += response["error"].get<std::string>();
  return out;
}

// The text of a call's result: the functionResponse parts of that call (a batch of parallel calls
// may put all of its responses in each call's result), else all of them, or text parts.
std::string result_text(const nlohmann::json& result, const std::string& id) {
  if (result.is_string()) return result.get<std::string>();
  const auto& parts = result.is_array() ? result : nlohmann::json::array({result});
  bool by_id = false;
  for (const auto& p : parts) by_id = by_id || (!id.empty() && json_str(member(p, "functionResponse"), "id") == id);
  std::string out;
  for (const auto& p : parts) {
    const auto& fr = member(p, "functionResponse");
    if (by_id && json_str(fr, "id") != id) continue;
    out += response_text(member(fr, "response"));
    if (member(p, "text").is_string()) out += p["text"].get<std::string>();
  }
  return out;
}

// What a result says: ok from the status, the exit code run_shell_command writes as "Exit Code: N"
// (only when N is not 0: shell.ts). Its plain "Output: ..." with no code, error, signal, cancel or
// move to the background is a command that exited with 0.
nlohmann::json make_result(const std::string& tool, const std::string& status, const std::string& output,
                           const Builder& b) {
  // Kept masked and cut while the session is held (its messages wait for the end of the file): its
  // code is read from the whole output first.
  nlohmann::json result = {{"ok", status == "success"}, {"status", status}, {"output", b.kept(output)}};
  if (auto code = exit_code_on_last_line(output, "Exit Code: ")) {
    result["exit_code"] = *code;
    if (*code != 0) result["ok"] = false;
  } else if (tool == "run_shell_command" && status == "success" && output.rfind("Output: ", 0) == 0 &&
             output.find("\nError: ") == std::string::npos && output.find("\nSignal: ") == std::string::npos) {
    result["exit_code"] = 0;
  }
  return result;
}

// Gemini's content: a string, or parts with text (thoughts left out).
std::string content_text(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& p : content)
      if (member(p, "text").is_string() && !flag(p, "thought")) out += p["text"].get<std::string>();
  }
  return out;
}

Message read_message(const nlohmann::json& m, const std::string& id, const Builder& b) {
  Message out{id, json_str(m, "type"), "", {}, {}};
  if (out.type == "gemini") {
    out.text = b.kept(content_text(member(m, "content")));
    const auto& calls = member(m, "toolCalls");
    if (!calls.is_array()) return out;
    for (const auto& c : calls) {
      Call call{json_str(c, "id"), json_str(c, "name"),
                member(c, "args").is_object() ? c["args"] : nlohmann::json::object(), std::nullopt};
      std::string status = json_str(c, "status");
      // A call still scheduled or running has no result yet; an error or a cancel may have none.
      if (!status.empty() && (c.contains("result") || status == "error" || status == "cancelled"))
        call.result = make_result(call.name, status, result_text(member(c, "result"), call.id), b);
      out.calls.push_back(std::move(call));
    }
  } else if (out.type == "user" && member(m, "content").is_array()) {
    for (const auto& p : m["content"]) {
      const auto& fr = member(p, "functionResponse");
      if (!fr.is_object()) continue;
      const auto& response = member(fr, "response");
      std::string name = json_str(fr, "name");
      out.responses.push_back(
          {json_str(fr, "id"), name,
           make_result(name, response.contains("error") ? "error" : "success", response_text(response), b)});
    }
  }
  return out;
}

// The session's current messages, in order, and where each id is.
class Session {
 public:
  void put(const nlohmann::json& m, const Builder& b) {
    std::string id = json_str(m, "id");
    if (id.empty()) id = "#" + std::to_string(++unnamed_);
    Message message = read_message(m, id, b);
    if (auto it = at_.find(id); it != at_.end()) {
      list_[it->second] = std::move(message);
    } else {
      at_[id] = list_.size();
      list_.push_back(std::move(message));
    }
  }
  void rewind_to(const std::string& id) {
    auto it = at_.find(id);
    std::size_t keep = it == at_.end() ? 0 : it->second;
    for (std::size_t i = keep; i < list_.size(); ++i) at_.erase(list_[i].id);
    list_.resize(keep);
  }
  void clear() {
    list_.clear();
    at_.clear();
  }
  const std::vector<Message>& messages() const { return list_; }

 private:
  std::vector<Message> list_;
  std::unordered_map<std::string, std::size_t> at_;
  int unnamed_ = 0;
};

void read_record(const nlohmann::json& r, Session& s, Builder& b) {
  if (r.contains("$rewindTo")) {
    s.rewind_to(json_str(r, "$rewindTo"));
    b.skip("$rewindTo");
  } else if (r.contains("$set")) {
    const auto& messages = member(r["$set"], "messages");
    if (messages.is_array()) {
      s.clear();
      for (const auto& m : messages) s.put(m, b);
    }
    b.skip("$set");
  } else if (std::string type = json_str(r, "type");
             (type == "gemini" || type == "user" || type == "info" || type == "error" || type == "warning") &&
             json_str(r, "id") != "") {
    s.put(r, b);
    b.seen();
  } else if (r.contains("sessionId") && r.contains("projectHash")) {
    b.skip("metadata");
  } else {
    b.unknown(type);
  }
}

// The events of the current messages: each gemini call with its result, a user functionResponse
// for a call that has none, and the last gemini text as the answer.
void emit(const Session& s, Builder& b) {
  std::set<std::string> unanswered;
  std::string answer;
  for (const auto& m : s.messages()) {
    for (const auto& c : m.calls) {
      b.call(c.id, c.name, c.args);
      if (c.result) {
        b.result(c.id, *c.result);
      } else {
        unanswered.insert(c.id);
      }
    }
    for (const auto& r : m.responses) {
      if (unanswered.erase(r.id) > 0) b.result(r.id, r.result, r.name);
    }
    if (m.type == "gemini" && !m.text.empty()) answer = m.text;
  }
  if (!answer.empty()) b.final_answer(answer);
}

}  // namespace

Status import_gemini_cli(std::istream& in, Builder& b) {
  Session s;
  TRY_STATUS(for_each_element(in, b, {"messages"}, kExpected, [&](const nlohmann::json& r) { read_record(r, s, b); }));
  emit(s, b);
  return ok_status();
}

}  // namespace candor::import
