// Credentials by name and by value (docs/design.md, Trust boundary, Secrets): no byte of a credential
// file reaches a prompt, a report, a log, an event, an assertion message, judge evidence or a diff.
// Tools refuse to read them, assertions on them are evaluated with their message withheld, every
// diff of one is replaced by kContentWithheld, and shell steps see them empty. Credential variables
// never reach a step's environment unless passed by name (scrubbed_environment in
// sandbox/process_sandbox.h). These are the pure predicates and sentences, for whoever decides or
// renders (verify/, report/); a file that was a credential file at run start stays one under any
// name, which only the run's own registry knows (CredentialLookup below, implemented by
// sandbox::CredentialRegistry).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/secret_masker.h"

namespace candor {

// The one credential-file predicate. True when a workspace-relative path names a credential file
// by its name (`.env`, `.env.*`, `*.env`, `.envrc`, `*.pem`, `id_rsa`, `credentials.json`, ...)
// or lies beneath a credential directory (`.ssh/`, `.aws/`, `.kube/`, ...), at any depth. Names
// are compared case-insensitively. Templates (`.env.example`, `sample.env`, ...) and public keys
// (`*.pub`) are not secrets.
bool looks_secret(std::string_view rel_path);

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

// What the run knows of its credentials' contents, for those that only read it (the judge's
// evidence): whether bytes are a copy of a credential file of the run's start, and the masker of
// its secret values. sandbox::CredentialRegistry, built when the run starts, is the one
// implementation. Const after it is built.
class CredentialLookup {
 public:
  virtual ~CredentialLookup() = default;
  // Whether `bytes` are all of a credential file's content as the run found it (a copy of one).
  virtual bool has_content(std::string_view bytes) const = 0;
  // The run's secret values, masked wherever text leaves candor.
  virtual std::shared_ptr<const SecretMasker> masker() const = 0;

 protected:
  CredentialLookup() = default;
  CredentialLookup(const CredentialLookup&) = default;
  CredentialLookup& operator=(const CredentialLookup&) = default;
};

}  // namespace candor
