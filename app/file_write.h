// Writing a file a person keeps (an agent's settings, candor's config) so that no reader ever sees
// half of it: written beside it, synced, and renamed over it.
#pragma once

#include <string>

#include "core/result.h"

namespace candor::app {

// `text` as the whole of `path`, through a temporary file in the same folder renamed over it, with
// the old file's permissions (0644 for a new one); the folder is made when missing. kIo naming the
// path and the OS reason.
Status write_file_atomically(const std::string& path, const std::string& text);

}  // namespace candor::app
