// Files and environment variables that hold credentials (DESIGN.md, Trust boundary, Secrets): no
// byte of a credential file reaches a prompt, a report, a log, an event, an assertion message,
// judge evidence or a diff. Tools refuse to read them, assertions on them are evaluated with their
// message withheld, every diff of one is replaced by kContentWithheld, and shell steps see them
// empty. A workspace's config may allow some by glob. Credential variables never reach a step's
// environment unless passed by name (scrubbed_environment in process_sandbox.h). These are the
// predicates by name and by value; a file that was a credential file at run start stays one under
// any name (sandbox/credential_registry.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace candor::sandbox {

// The one credential-file predicate. True when a workspace-relative path names a credential file
// by its name (`.env`, `.env.*`, `*.env`, `.envrc`, `*.pem`, `id_rsa`, `credentials.json`, ...)
// or lies beneath a credential directory (`.ssh/`, `.aws/`, `.kube/`, ...), at any depth. Names
// are compared case-insensitively. Templates (`.env.example`, `sample.env`, ...) and public keys
// (`*.pub`) are not secrets.
bool looks_secret(std::string_view rel_path);

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

// What every rendering of a credential file's change says instead of its diff or content.
inline constexpr std::string_view kContentWithheld = "credential file changed (content withheld)";

// What stands in for anything read from a credential file (an assertion's message, a file
// excerpt): "PATH is a credential file: content withheld".
std::string content_withheld(std::string_view rel_path);

// A variable whose name says it holds a credential (names_a_secret), or that lives in a provider's
// or a cloud's namespace (`OPENAI_`, `AWS_`, `GITHUB_`, ...), or that points at one (agent sockets,
// `KUBECONFIG`, `NETRC`). Case-insensitive. What a step's environment is scrubbed of.
bool looks_like_credential_variable(const std::string& name);

// A name that says its value is a secret: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, `*_PASS`,
// `*_PWD`, `*_DSN`, anything with `SECRET`, `TOKEN`, `API_KEY`, `ACCESS_KEY`, `JWT`, `PRIVATE_KEY`
// or `_WEBHOOK` in it, `WEBHOOK*`. Case-insensitive. Such values are masked wherever text leaves
// candor; a variable scrubbed only for its namespace (`AWS_REGION`, `GITHUB_REPOSITORY`) is not:
// its value is a region or a repository's name, which masking would erase from every output.
bool names_a_secret(std::string_view name);

// A value that is a credential whatever its name: a URL with a password (`scheme://user:pw@host`,
// anywhere in the value, the password possibly holding '/' or '?') or with a credential parameter
// (`?password=`, `&token=`, `&sig=`), a JWT (`eyJ...`.`...`.`...`), a PEM private key.
bool looks_like_credential_value(std::string_view value);

}  // namespace candor::sandbox
