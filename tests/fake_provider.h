// An LLM provider for tests: queues replies and records every request it was sent.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "llm/provider.h"

namespace candor::testing {

class FakeProvider final : public llm::Provider {
 public:
  std::deque<std::string> replies;
  // Errors, then whole replies (with their stop state and usage), given before `replies`.
  std::deque<Error> errors;
  std::deque<llm::Reply> shaped;
  std::vector<llm::Request> seen;
  Result<llm::Reply> complete(const llm::Request& request) override {
    seen.push_back(request);
    if (!errors.empty()) {
      Error e = errors.front();
      errors.pop_front();
      return e;
    }
    if (!shaped.empty()) {
      llm::Reply r = shaped.front();
      shaped.pop_front();
      return r;
    }
    if (replies.empty()) return make_error(ErrorCode::kUnavailable, "fake: no reply left");
    llm::Reply r;
    r.text = replies.front();
    replies.pop_front();
    r.input_tokens = 100;
    r.output_tokens = 10;
    return r;
  }
  std::string describe() const override { return "fake"; }
};

}  // namespace candor::testing
