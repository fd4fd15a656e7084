// The JSON Schemas of candor's files (share/candor/schemas/), embedded at build time
// (scripts/embed_files.py) so that `candor schema NAME` prints them byte for byte as shipped,
// wherever the binary is installed.
#pragma once

#include <string_view>
#include <vector>

namespace candor::cli {

struct EmbeddedFile {
  std::string_view name;  // "config", "plan", "report", "script"
  std::string_view text;  // the file's bytes
};

// In the order share/meson.build lists them. The views point into static storage.
const std::vector<EmbeddedFile>& embedded_schemas();

}  // namespace candor::cli
