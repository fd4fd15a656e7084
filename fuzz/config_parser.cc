// libFuzzer target: .candor/config.json parsing on arbitrary JSON text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "executor/config.h"
#include "planner/plan.h"

using namespace candor;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto json = planner::parse_json_text(text, "config.json");
  if (!json.ok()) return 0;
  auto config = executor::parse_config(*json);
  if (!config.ok() && config.error().message.empty()) __builtin_trap();
  return 0;
}
