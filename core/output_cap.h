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
  // The last `n` bytes of everything appended (at most kTailBytes), whatever the cap kept: where a
  // test runner prints its summary ("OK (skipped=1)"). Starts at a line when it can.
  std::string tail(std::size_t n) const;

  static constexpr std::size_t kTailBytes = 4096;

 private:
  std::size_t cap_;
  std::size_t total_ = 0;
  std::string kept_;
  std::string tail_;  // the last kTailBytes appended (up to 2x kTailBytes between trims)
};

// The last `n` bytes of `text`, starting at a line when one begins in them, with "..." in front when
// something was cut and without trailing blanks: what a report shows of a program's output.
std::string tail_of(const std::string& text, std::size_t n);

}  // namespace candor
