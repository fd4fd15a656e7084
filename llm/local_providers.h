// Providers that need no network: script (replies from a file) and command (an external program).
#pragma once

#include <memory>
#include <string>

#include "llm/provider.h"

namespace candor::llm {

// Validates every line up front: a malformed script is kInvalidInput naming FILE:LINE.
Result<std::unique_ptr<Provider>> make_script_provider(const std::string& path);

// Runs `command` with /bin/sh for every call, {"system", "messages"} on stdin; its stdout is the
// reply. A non-zero exit, a signal or a timeout is kUnavailable with what it printed on stderr.
std::unique_ptr<Provider> make_command_provider(const std::string& command, const ProviderOptions& options);

}  // namespace candor::llm
