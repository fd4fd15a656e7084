// The secret values a run knows of (docs/design.md, Trust boundary, Secrets): the values in the
// credential files and the scrubbed credential variables at run start, each replaced by "***"
// wherever text leaves candor — tool outputs, assertion messages, prompts, events, reports, log
// lines — as CI systems mask registered secrets. Masking finds the exact bytes only: a value a
// step transforms (base64, reversed, cut in two) is not recognised; what keeps a credential file's
// content from the agent is that the file is one by name or identity (sandbox/credential_registry.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace candor {

// Thread-compatible: const methods may be called from any thread while nothing is added; values a
// run learns late (a credential file a step wrote) are added on the thread that masks.
class SecretMasker {
 public:
  // Shorter values are not secrets worth the damage: "8080" or "true" would be masked in every
  // output. Every value is at least this long, so an 8-byte window finds each candidate.
  static constexpr std::size_t kMinLength = 8;
  static constexpr std::string_view kMask = "***";

  // A value with line breaks (a PEM block) is added line by line, since output may join its lines
  // differently (a JSON string, a wrapped log). Values, or lines, shorter than kMinLength are
  // ignored. Duplicates count once.
  void add(std::string_view value);
  bool empty() const { return values_.empty(); }
  std::size_t size() const { return values_.size(); }

  // `text` with every occurrence of every value replaced by kMask; occurrences that overlap or
  // touch become one kMask, so no piece of either survives between them. Linear in the text's
  // length (an 8-byte window looked up in a bitmap, a compare only where a value may start).
  std::string mask(std::string_view text) const;
  // mask() in place; whether anything was replaced.
  bool mask_in_place(std::string& text) const;
  // Whether `text` holds a value.
  bool holds_secret(std::string_view text) const;
  // Every string of `j`, values and object keys, at any depth (an explicit stack: no recursion).
  void mask_json(nlohmann::json& j) const;

 private:
  struct Candidate {
    std::uint64_t prefix;  // the value's first 8 bytes
    std::uint32_t index;   // into values_
    bool operator<(const Candidate& o) const { return prefix < o.prefix || (prefix == o.prefix && index < o.index); }
  };
  // Whether a value may start at `p` (its first 8 bytes' bucket holds a value's prefix): the one
  // test made at every byte, so it stays small enough to be inlined.
  bool may_start(const char* p) const {
    std::size_t b = bucket(window(p));
    return (filter_[b / 64] >> (b % 64) & 1) != 0;
  }
  // The end of the longest value that starts at `at`, or 0.
  std::size_t match_end(std::string_view text, std::size_t at) const;
  static std::uint64_t window(const char* p) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, sizeof(w));
    return w;
  }
  static std::size_t bucket(std::uint64_t w) { return static_cast<std::size_t>((w * 0x9E3779B97F4A7C15ULL) >> 48); }

  std::vector<std::string> values_;
  std::vector<Candidate> candidates_;                                     // sorted by prefix
  std::vector<std::uint64_t> filter_ = std::vector<std::uint64_t>(1024);  // 65,536 bits: which buckets hold a prefix
};

}  // namespace candor
