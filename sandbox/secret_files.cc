#include "sandbox/secret_files.h"

#include <fmt/format.h>

#include "core/glob.h"

namespace candor::sandbox {

bool SecretFilter::refused(std::string_view rel_path) const {
  if (!looks_secret(rel_path)) return false;
  // candor's one glob dialect (core/glob.h). The config checked every glob when it was read; one
  // that is invalid all the same allows nothing.
  for (const auto& glob : allow_) {
    if (path_glob_matches(glob, rel_path)) return false;
  }
  return true;
}

std::string secret_refusal(std::string_view rel_path) {
  return fmt::format(
      "refused: {} looks like a credential file, and its content must not reach an LLM prompt (allow it with "
      "\"secrets\": {{\"allow\": [\"{}\"]}} in .candor/config.json)",
      rel_path, rel_path);
}

}  // namespace candor::sandbox
