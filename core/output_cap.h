// Tool output is capped, and the cap is always said: never a silent truncation.
#pragma once

#include <cstddef>
#include <string>

namespace candor {

constexpr std::size_t kDefaultOutputCap = 64 * 1024;

// Collects bytes up to `cap`, counting the rest.
class CappedOutput {
 public:
  explicit CappedOutput(std::size_t cap = kDefaultOutputCap) : cap_(cap) {}
  void append(const char* data, std::size_t n);
  void append(const std::string& s) { append(s.data(), s.size()); }

  bool truncated() const { return total_ > kept_.size(); }
  std::size_t total_bytes() const { return total_; }
  std::size_t cap() const { return cap_; }
  // The kept bytes, followed, when truncated, by a line saying how much was cut.
  std::string text() const;

 private:
  std::size_t cap_;
  std::size_t total_ = 0;
  std::string kept_;
};

}  // namespace candor
