#include "llm/json_reply.h"

namespace candor::llm {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  std::size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::optional<std::string> extract_json_object(const std::string& reply) {
  for (std::size_t open = reply.find("```"); open != std::string::npos;) {
    std::size_t body = reply.find('\n', open + 3);
    if (body == std::string::npos) break;
    std::size_t close = reply.find("```", body + 1);
    if (close == std::string::npos) break;
    std::string content = trim(reply.substr(body + 1, close - body - 1));
    if (!content.empty() && content.front() == '{') return content;
    open = reply.find("```", close + 3);
  }
  std::size_t first = reply.find('{');
  std::size_t last = reply.rfind('}');
  if (first == std::string::npos || last == std::string::npos || last < first) return std::nullopt;
  return reply.substr(first, last - first + 1);
}

}  // namespace candor::llm
