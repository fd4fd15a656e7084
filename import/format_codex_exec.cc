// `codex exec --json`: one event a line (thread.started, turn.started, item.started,
// item.updated, item.completed, turn.completed, turn.failed, error), the items being what the
// agent did (command_execution, file_change, mcp_tool_call, web_search, todo_list, agent_message,
// reasoning, error).
#include "core/arg_schema.h"
#include "import/formats.h"

namespace candor::import {
namespace {

// Older versions named the item's type `item_type` and the answer `assistant_message`.
std::string item_type(const nlohmann::json& item) {
  std::string t = json_str(item, "type");
  if (t.empty()) t = json_str(item, "item_type");
  return t == "assistant_message" ? "agent_message" : t;
}

// The tool an item is, and what it was asked: "" for items that are not calls.
std::string tool_of(const nlohmann::json& item, const std::string& type, nlohmann::json& input) {
  if (type == "command_execution") {
    input = {{"command", json_str(item, "command")}};
  } else if (type == "file_change") {
    input = {{"changes", member(item, "changes")}};
  } else if (type == "mcp_tool_call") {
    input = member(item, "arguments").is_object() ? item["arguments"] : nlohmann::json::object();
    return "mcp__" + json_str(item, "server") + "__" + json_str(item, "tool");
  } else if (type == "web_search") {
    input = {{"query", json_str(item, "query")}};
  } else if (type == "todo_list") {
    input = {{"items", member(item, "items")}};
  } else {
    return "";
  }
  return type;
}

nlohmann::json item_result(const nlohmann::json& item, const std::string& type) {
  std::string status = json_str(item, "status");
  nlohmann::json result = {{"ok", status != "failed" && status != "declined"}, {"status", status}};
  if (type == "command_execution") {
    result["output"] = json_str(item, "aggregated_output");
    if (member(item, "exit_code").is_number_integer()) {
      result["exit_code"] = item["exit_code"];
      result["ok"] = item["exit_code"] == 0;
    }
  } else if (type == "mcp_tool_call") {
    const auto& error = member(item, "error");
    if (!error.is_null()) {
      result["ok"] = false;
      result["error"] = error.is_object() ? json_str(error, "message") : error.dump();
    }
    result["output"] = text_of(member(member(item, "result"), "content"));
  } else {
    result["output"] = "";
  }
  return result;
}

}  // namespace

Status import_codex_exec(std::istream& in, Builder& b) {
  std::string last_text;
  TRY_STATUS(for_each_line(in, b, [&](const nlohmann::json& j) {
    std::string type = json_str(j, "type");
    const auto& item = member(j, "item");
    std::string it = item_type(item);
    std::string id = json_str(item, "id");
    nlohmann::json input;
    std::string tool = item.is_object() ? tool_of(item, it, input) : "";
    if ((type == "item.started" || type == "item.completed") && !tool.empty()) {
      if (!b.has_call(id)) b.call(id, tool, input);
      if (type == "item.completed") b.result(id, item_result(item, it));
    } else if (type == "item.completed" && it == "agent_message") {
      last_text = json_str(item, "text");
      b.seen();
    } else if (type.rfind("item.", 0) == 0 || type.rfind("thread.", 0) == 0 || type.rfind("turn.", 0) == 0 ||
               type == "error") {
      b.skip(it.empty() ? type : type + "." + it);
    } else {
      b.unknown(type);
    }
  }));
  if (!last_text.empty()) b.final_answer(last_text);
  return ok_status();
}

}  // namespace candor::import
