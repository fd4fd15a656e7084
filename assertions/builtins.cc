#include "assertions/builtins.h"

#include <fmt/format.h>

namespace candor::assertions {

std::string quote_excerpt(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (char c : text.substr(0, max_chars)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';
    } else {
      out += c;
    }
  }
  if (text.size() > max_chars) return fmt::format("\"{}...\" ({} chars)", out, text.size());
  return "\"" + out + "\"";
}

Registry builtin_evaluators() {
  Registry r;
  for (auto make : {make_file_exists, make_file_contains, make_file_not_contains, make_file_size_gt,
                    make_file_unchanged, make_output_contains, make_exit_code_eq, make_socket_open,
                    make_http_200}) {
    Status s = r.add(make());
    if (!s.ok()) std::abort();  // two built-ins with one name is a bug
  }
  return r;
}

}  // namespace candor::assertions
