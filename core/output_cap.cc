#include "core/output_cap.h"

#include <algorithm>

#include <fmt/format.h>

namespace candor {

void CappedOutput::append(const char* data, std::size_t n) {
  total_ += n;
  std::size_t room = cap_ - std::min(cap_, kept_.size());
  kept_.append(data, std::min(n, room));
}

std::string CappedOutput::text() const {
  if (!truncated()) return kept_;
  std::string out = kept_;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += fmt::format("[output truncated: {} bytes in total, the first {} shown]", total_, kept_.size());
  return out;
}

}  // namespace candor
