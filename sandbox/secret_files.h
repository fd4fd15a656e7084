// Files that hold credentials: tools refuse to read them, and shell steps see them empty, so
// their content can never reach an LLM prompt. A workspace's config may allow some by glob.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace candor::sandbox {

// True when a workspace-relative path names a credential file by its name (`.env`, `*.pem`,
// `id_rsa`, ...) or lies beneath a credential directory (`.ssh/`, `.aws/`, `.gnupg/`).
// Templates (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`) and public keys
// (`*.pub`) are not secrets.
bool looks_secret(std::string_view rel_path);

class SecretFilter {
 public:
  SecretFilter() = default;
  // `allow`: fnmatch globs over the relative path, or over the file name when the glob has no '/'.
  explicit SecretFilter(std::vector<std::string> allow) : allow_(std::move(allow)) {}

  bool refused(std::string_view rel_path) const;
  const std::vector<std::string>& allowed() const { return allow_; }

 private:
  std::vector<std::string> allow_;
};

// The step error a refused read reports.
std::string secret_refusal(std::string_view rel_path);

}  // namespace candor::sandbox
