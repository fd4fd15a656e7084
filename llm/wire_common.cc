// What both wire formats share: error bodies in the server's own words (every shape the providers
// and the compatible servers send, read into one message, never a raw JSON dump or a library's
// internals), and usage, estimated when a server sends none.
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/json_text.h"
#include "llm/wire.h"

namespace candor::llm {
namespace {

constexpr std::size_t kMaxMessage = 600;

// `text` on one line (runs of white space as one space), cut at `max` characters.
std::string one_line(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max) out = out.substr(0, max) + "…";
  return out;
}

// FastAPI/pydantic validation details (Mistral's 422, some proxies): "body.max_completion_tokens:
// Extra inputs are not permitted (extra_forbidden)".
std::string validation_details(const nlohmann::json& detail) {
  std::string out;
  for (const auto& d : detail) {
    if (!d.is_object()) continue;
    std::string loc;
    if (d.contains("loc") && d["loc"].is_array()) {
      for (const auto& part : d["loc"]) {
        if (!loc.empty()) loc += '.';
        loc += part.is_string() ? part.get<std::string>() : part.dump();
      }
    }
    std::string type = json_str(d, "type");
    out += fmt::format("{}{}{}{}", out.empty() ? "" : "; ", loc.empty() ? "" : loc + ": ", json_str(d, "msg"),
                       type.empty() ? "" : " (" + type + ")");
  }
  return out;
}

// A message field that may be a string, a validation detail list, or an object holding either.
std::string message_of(const nlohmann::json& m) {
  if (m.is_string()) return m.get<std::string>();
  if (m.is_array()) return validation_details(m);
  if (m.is_object()) {
    if (auto it = m.find("message"); it != m.end()) return message_of(*it);
    if (auto it = m.find("detail"); it != m.end()) return message_of(*it);
  }
  return "";
}

std::string html_title(std::string_view body) {
  std::string lower(body.substr(0, 64 * 1024));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t open = lower.find("<title");
  if (open == std::string::npos) open = lower.find("<h1");
  if (open == std::string::npos) return "";
  std::size_t start = lower.find('>', open);
  std::size_t end = lower.find("</", start == std::string::npos ? open : start);
  if (start == std::string::npos || end == std::string::npos) return "";
  return one_line(body.substr(start + 1, end - start - 1), 120);
}

bool looks_like_html(std::string_view body) {
  std::size_t first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && body[first] == '<';
}

}  // namespace

std::string describe_non_json(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return "empty";
  if (looks_like_html(body)) {
    std::string title = html_title(body);
    return title.empty() ? "an HTML page" : fmt::format("an HTML page (\"{}\")", title);
  }
  return fmt::format("\"{}\"", one_line(body, 200));
}

WireError read_error_body(const std::string& body) {
  WireError e;
  if (!check_json_limits(body, "the error body", kWireLimits).ok()) {
    e.message = "an error body past the JSON limits (not read)";
    return e;
  }
  auto j = parse_within_limits_or_discarded(body);
  if (j.is_discarded() || !j.is_object()) {
    e.message = describe_non_json(body);
    return e;
  }
  const nlohmann::json* error = j.contains("error") ? &j["error"] : nullptr;
  if (error != nullptr && error->is_object()) {
    e.message = message_of(*error);
    e.type = json_str(*error, "type");
    e.param = json_str(*error, "param");
    e.code = json_str(*error, "code");
  } else if (error != nullptr && error->is_string()) {
    e.message = error->get<std::string>();  // Ollama: {"error": "model \"x\" not found, try pulling it first"}
  }
  if (e.message.empty() && j.contains("message")) {
    // Mistral, vLLM: {"object": "error", "message": ..., "type": ...}
    e.message = message_of(j["message"]);
    e.type = json_str(j, "type");
    e.param = json_str(j, "param");
    e.code = json_str(j, "code");
  }
  if (e.message.empty() && j.contains("detail")) e.message = message_of(j["detail"]);  // FastAPI
  if (e.message.empty()) e.message = fmt::format("no message; the body: {}", one_line(j.dump(), 200));
  e.message = one_line(e.message, kMaxMessage);
  return e;
}

void read_usage(const nlohmann::json& reply, const char* in_key, const char* out_key, const Request& request,
                Reply& r) {
  auto count = [&](const char* key) -> std::optional<std::int64_t> {
    auto usage = reply.find("usage");
    if (usage == reply.end() || !usage->is_object()) return std::nullopt;
    auto it = usage->find(key);
    if (it == usage->end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) return std::nullopt;
    return it->get<std::int64_t>();
  };
  auto in = count(in_key);
  auto out = count(out_key);
  r.input_tokens = in.value_or(estimate_tokens(request));
  r.output_tokens = out.value_or(estimate_tokens(r.text));
  r.usage_estimated = !in || !out;
}

Error refusal_error(const std::string& how, const std::string& explanation) {
  std::string words = one_line(explanation, 1000);
  return make_error(ErrorCode::kUnavailable, fmt::format("the model refused to answer ({}): {}", how,
                                                         words.empty() ? "it gave no explanation" : words));
}

std::string WireError::describe(long status) const {
  std::string kind = !type.empty() ? type : code;
  return fmt::format("HTTP {}{}: {}", status, kind.empty() ? "" : " (" + kind + ")", message);
}

}  // namespace candor::llm
