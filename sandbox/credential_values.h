// The secret values a credential file holds, for the masker (core/secret_masker.h): what a
// committed copy printed by `git show`, or the same password hard-coded elsewhere, would show.
//
// The rule, for text files (a NUL in the first 8,000 bytes: binary, no values; only the first
// 4 MiB is looked at):
// - key and value pairs: `KEY=VALUE`, `export KEY=VALUE`, `KEY: VALUE`, `key = "value"`,
//   `$key = 'value';`, PHP's `define('KEY', 'VALUE')`, and JSON's `"key": "value"` anywhere (so
//   minified JSON too: Terraform state, a service account's key file). Quotes are stripped, and an
//   unquoted value ends at ` #`. A value is kept when its key names a secret (`*PASSWORD*`,
//   `*_KEY`, `*TOKEN*`, `auth`, ... as for variables, sandbox::names_a_secret), or it looks like
//   one whatever its key (a URL with a password, a JWT, a private key), or it looks like a
//   generated token: 16 bytes or more, no space, letters and digits both, not a path or a plain
//   URL. `NODE_ENV=production` and `DB_HOST=localhost` are configuration, and masking "production"
//   in every output would hide more than it protects.
// - values without a key: the body lines of a PEM private key (one by one, also where a JSON
//   string holds them joined by "\n"); the password of a URL with one, and the URL;
//   `.pgpass`'s last field, `.netrc`'s `password`/`account`, `.htpasswd`'s hash; a file of one
//   line (`.vault-token`), whole.
// Values shorter than SecretMasker::kMinLength (8 bytes) are left out there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace candor::sandbox {

inline constexpr std::size_t kMaxValueScan = 4 << 20;

// `name` is the file's name (its last component; case does not matter), which picks the
// line formats of `.pgpass`, `.netrc` and `.htpasswd`. May hold duplicates and short values.
std::vector<std::string> credential_file_values(std::string_view name, std::string_view content);

// The values to mask of a variable scrubbed for its name or its value: the value itself, and the
// password and credential parameters of a URL in it, the body lines of a private key in it.
std::vector<std::string> credential_variable_values(std::string_view value);

}  // namespace candor::sandbox
