// libFuzzer target: the extraction of a JSON object from an LLM reply (code fences, prose around
// it), and the judge's reply parser, on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "llm/json_reply.h"
#include "verify/judge.h"

using namespace candor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto object = llm::extract_json_object(text);
  if (object) {
    // What is extracted is a piece of the reply that starts an object.
    if (object->empty() || object->front() != '{' || text.find(*object) == std::string::npos) __builtin_trap();
  }
  for (std::size_t questions : {std::size_t{1}, std::size_t{3}}) {
    auto answers = verify::parse_judge_reply(text, questions);
    if (answers.ok() && answers->size() != questions) __builtin_trap();
  }
  return 0;
}
