// Getting a JSON object out of an LLM reply: a Markdown code fence, or the outermost {...}.
#pragma once

#include <optional>
#include <string>

namespace candor::llm {

// The JSON object text in `reply`, or nullopt when there is none. Prefers the first fenced block
// (```json ... ``` or ``` ... ```) whose content starts with '{'; otherwise the span from the first
// '{' to the last '}'.
std::optional<std::string> extract_json_object(const std::string& reply);

}  // namespace candor::llm
