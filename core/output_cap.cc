#include "core/output_cap.h"

#include <algorithm>

#include <fmt/format.h>

namespace candor {

void CappedOutput::append(const char* data, std::size_t n) {
  total_ += n;
  std::size_t room = cap_ - std::min(cap_, kept_.size());
  kept_.append(data, std::min(n, room));
  if (n >= kTailBytes) {
    tail_.assign(data + n - kTailBytes, kTailBytes);
  } else {
    tail_.append(data, n);
    if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
  }
}

std::string CappedOutput::tail(std::size_t n) const {
  std::string all = tail_.size() > kTailBytes ? tail_.substr(tail_.size() - kTailBytes) : tail_;
  std::string out = tail_of(all, n);
  if (total_ > all.size() && out.rfind("...", 0) != 0) out = "..." + out;
  return out;
}

std::string tail_of(const std::string& text, std::size_t n) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  std::string_view t(text.data(), end + 1);
  if (t.size() <= n) return std::string(t);
  t = t.substr(t.size() - n);
  // Start at a line when one begins in the last `n` bytes (a cut mid-line reads as noise).
  if (std::size_t nl = t.find('\n'); nl != std::string_view::npos && nl + 1 < t.size()) t = t.substr(nl + 1);
  return "..." + std::string(t);
}

std::string CappedOutput::text() const {
  if (!truncated()) return kept_;
  std::string out = kept_;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += fmt::format("[output truncated: {} bytes in total, the first {} shown]", total_, kept_.size());
  return out;
}

}  // namespace candor
