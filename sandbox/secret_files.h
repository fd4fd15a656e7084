// Credential files as the workspace and the tools meet them (docs/design.md, Trust boundary, Secrets):
// the config's allow-list over the one name predicate, and the error a refused read reports. The
// predicates by name and by value, and the "withheld" sentences, are core's (core/credentials.h),
// named here too for sandbox's users; a file that was a credential file at run start stays one
// under any name (sandbox/credential_registry.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/credentials.h"

namespace candor::sandbox {

using candor::content_withheld;
using candor::kContentWithheld;
using candor::looks_like_credential_value;
using candor::looks_like_credential_variable;
using candor::looks_secret;
using candor::names_a_secret;

class SecretFilter {
 public:
  SecretFilter() = default;
  // `allow`: globs in candor's one dialect with gitignore anchoring (core/glob.h, PathGlob): a
  // glob without '/' matches a name at any depth, one with '/' is anchored at the root.
  explicit SecretFilter(std::vector<std::string> allow) : allow_(std::move(allow)) {}

  // looks_secret, less what the config allows.
  bool refused(std::string_view rel_path) const;
  const std::vector<std::string>& allowed() const { return allow_; }

 private:
  std::vector<std::string> allow_;
};

// The step error a refused read reports: names the path, says nothing of the content.
std::string secret_refusal(std::string_view rel_path);

}  // namespace candor::sandbox
