// Scope and sensitive paths (docs/design.md, Trust boundary: Scope). Pure.
//
// Patterns are globs in candor's one dialect, git's wildmatch (core/glob.h), with gitignore's
// anchoring (core/glob.h, PathGlob): a pattern without a '/' (other than a trailing one) matches a
// name at any depth (`*.css`); otherwise it is anchored at the root (`src/**`, `/README.md`); `*`
// and `?` stay within one path component, `**` spans any number; a trailing '/' matches everything
// beneath the folder; a pattern matching a folder matches what is in it. Patterns are validated
// where they are read (config, --scope: exit 65); here an invalid one matches nothing.
#pragma once

#include <string>
#include <vector>

#include "core/run_record.h"

namespace candor::verify {

// CI definitions and candor's own configuration: a change there can change what checks the change.
const std::vector<std::string>& default_sensitive_paths();

bool glob_matches(const std::string& pattern, const std::string& path);

// Whether `pattern` names `path` explicitly: its first path component is literal and it matches,
// read as anchored at the root (`.github/workflows/ci.yml`, `.github/**`, `.gitlab-ci.yml`), so `**`
// or `*.yml` never opens a sensitive path.
bool names_explicitly(const std::string& pattern, const std::string& path);

struct ScopeFinding {
  std::string path;
  std::string reason;      // a sentence naming the path
  bool sensitive = false;  // a sensitive path changed (else: a change outside the scope)
};

// Each mutation outside `facts.scope` (when there is one), and each changed sensitive path
// (built-in or `facts.sensitive`) that no scope pattern names explicitly, in mutation order.
std::vector<ScopeFinding> scope_findings(const RunFacts& facts);

}  // namespace candor::verify
