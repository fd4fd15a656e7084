// OpenAI chat completions on the wire (https://platform.openai.com/docs/api-reference/chat), and the
// variations of the servers that speak it: Mistral's content parts, DeepSeek's and vLLM's
// reasoning_content, OpenRouter's reasoning, <think> blocks in content (Ollama, llama.cpp, Groq's
// raw format), usage null (NVIDIA Dynamo), and what a model accepts learned from its errors.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "llm/wire.h"

namespace candor::llm {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What servers say when they refuse a parameter or a value: OpenAI "Unsupported parameter" /
// "does not support", pydantic's "Extra inputs are not permitted", "unrecognized", "unknown".
bool says_unsupported(const std::string& text) {
  for (const char* words : {"unsupported", "not supported", "does not support", "unrecognized", "unknown",
                            "not permitted", "extra_forbidden", "not allowed"}) {
    if (text.find(words) != std::string::npos) return true;
  }
  return false;
}

// `name` as a whole word of `text` (so "max_tokens" is not found in "max_completion_tokens").
bool names(const std::string& text, const std::string& name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool before = at == 0 || !word(text[at - 1]);
    bool after = at + name.size() >= text.size() || !word(text[at + name.size()]);
    if (before && after) return true;
  }
  return false;
}

// A leading <think>...</think> block (reasoning models served without a reasoning parser): moved
// out of the text. An unclosed one makes the whole text thinking.
bool strip_think_block(std::string& text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text.compare(first, 7, "<think>") != 0) return false;
  std::size_t close = text.find("</think>", first);
  text = close == std::string::npos ? "" : text.substr(close + 8);
  return true;
}

}  // namespace

nlohmann::json openai_body(const Request& request, const std::string& model, const OpenAiDialect& dialect) {
  nlohmann::json messages = nlohmann::json::array();
  bool system_pending = dialect.system_role == OpenAiDialect::SystemRole::kFirstUserMessage && !request.system.empty();
  if (!system_pending) {
    const char* role = dialect.system_role == OpenAiDialect::SystemRole::kDeveloper ? "developer" : "system";
    messages.push_back({{"role", role}, {"content", request.system}});
  }
  for (const auto& m : request.messages) {
    if (system_pending && m.role == "user") {
      messages.push_back({{"role", m.role}, {"content", request.system + "\n\n" + m.content}});
      system_pending = false;
      continue;
    }
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  return {{"model", model}, {"messages", messages}, {dialect.limit_field(), request.max_output_tokens}};
}

bool adapt_dialect(OpenAiDialect& dialect, const WireError& error) {
  std::string text = lower(error.message + " " + error.code);
  std::string param = lower(error.param);
  if (!says_unsupported(text)) return false;
  // The limit field: named as the parameter in error, or in the message.
  std::string sent = dialect.limit_field();
  if (param == sent || names(text, sent)) {
    (dialect.limit == OpenAiDialect::Limit::kMaxTokens ? dialect.tried_max_tokens
                                                       : dialect.tried_max_completion_tokens) = true;
    if (dialect.limit == OpenAiDialect::Limit::kMaxTokens && !dialect.tried_max_completion_tokens) {
      dialect.limit = OpenAiDialect::Limit::kMaxCompletionTokens;
      return true;
    }
    if (dialect.limit == OpenAiDialect::Limit::kMaxCompletionTokens && !dialect.tried_max_tokens) {
      dialect.limit = OpenAiDialect::Limit::kMaxTokens;
      return true;
    }
    return false;
  }
  // The system prompt's role: o1-mini says "Unsupported value: 'messages[0].role' does not support
  // 'system' with this model." (and the same of 'developer').
  bool about_role = param.find("role") != std::string::npos || names(text, "role");
  if (!about_role) return false;
  if (dialect.system_role == OpenAiDialect::SystemRole::kSystem && names(text, "system")) {
    dialect.system_role = OpenAiDialect::SystemRole::kDeveloper;
    return true;
  }
  if (dialect.system_role == OpenAiDialect::SystemRole::kDeveloper && names(text, "developer")) {
    dialect.system_role = OpenAiDialect::SystemRole::kFirstUserMessage;
    return true;
  }
  return false;
}

Result<Reply> read_openai_reply(const nlohmann::json& j, const Request& request) {
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array()) {
    if (j.contains("error")) {
      return make_error(ErrorCode::kUnavailable,
                        "the server answered with an error: " + read_error_body(j.dump()).message);
    }
    return make_error(ErrorCode::kUnavailable,
                      "the reply has no `choices`: it is not a chat completion (is OPENAI_BASE_URL the server's /v1 "
                      "address?)");
  }
  if (choices->empty()) return make_error(ErrorCode::kUnavailable, "the reply's `choices` is empty");
  const nlohmann::json& choice = (*choices)[0];
  auto message = choice.is_object() ? choice.find("message") : choice.end();
  if (!choice.is_object() || message == choice.end() || !message->is_object()) {
    return make_error(ErrorCode::kUnavailable, "the reply's first choice has no `message`");
  }
  Reply r;
  bool thinking = false;
  auto content = message->find("content");
  if (content != message->end() && content->is_string()) {
    r.text = content->get<std::string>();
  } else if (content != message->end() && content->is_array()) {
    // Content parts (Mistral's magistral: [{type: thinking, thinking: [...]}, {type: text, text}]).
    for (const auto& part : *content) {
      std::string type = json_str(part, "type");
      if (type == "text" || type == "output_text") r.text += json_str(part, "text");
      if (type == "thinking" || type == "reasoning") thinking = true;
    }
  }
  if (strip_think_block(r.text)) thinking = true;
  for (const char* key : {"reasoning_content", "reasoning"}) {
    if (!json_str(*message, key).empty()) thinking = true;
  }
  std::string refusal = json_str(*message, "refusal");
  if (!refusal.empty()) return refusal_error("`refusal`", refusal);

  std::string finish = json_str(choice, "finish_reason");
  if (finish == "content_filter") {
    return make_error(ErrorCode::kUnavailable,
                      "the server's content filter withheld the reply (finish_reason \"content_filter\")");
  }
  if (finish == "length" || finish == "max_tokens") {
    r.cut = true;
    r.incomplete = fmt::format("the reply was cut at the output limit ({} tokens){}", request.max_output_tokens,
                               r.text.empty() && thinking ? " while the model was still thinking" : "");
  } else if (finish == "tool_calls" || finish == "function_call") {
    r.incomplete =
        fmt::format("the model asked to call a tool (finish_reason \"{}\"), and candor offers it none", finish);
  } else if (!finish.empty() && finish != "stop" && finish != "eos" && finish != "end_turn") {
    r.incomplete = fmt::format("the reply stopped for a reason candor does not know (finish_reason \"{}\")", finish);
  } else if (r.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    r.incomplete = thinking ? "the reply holds only the model's thinking, no answer text" : "the reply is empty";
  }
  read_usage(j, "prompt_tokens", "completion_tokens", request, r);
  return r;
}

}  // namespace candor::llm
