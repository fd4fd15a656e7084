#include "core/credentials.h"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

namespace candor {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// `.env.example`, `sample.env`: a dot-separated part of the name says it is a template.
bool template_name(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kTemplates = {"example", "sample", "template", "dist"};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    for (auto t : kTemplates)
      if (part == t) return true;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return false;
}

// A backup or editor copy of a file, by its last suffix: `.pgpass.bak`, `server.key.orig`,
// `.netrc~`. The copy holds what the file held.
std::string_view without_backup_suffix(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kBackups = {".bak", ".orig", ".old",  ".backup", ".save",
                                                               ".swp", ".tmp",  ".copy", "~"};
  for (auto b : kBackups) {
    if (name.size() > b.size() + 1 && ends_with(name, b)) return name.substr(0, name.size() - b.size());
  }
  return name;
}

// REQUIRES: `name` is lower case.
bool secret_name(std::string_view name);

bool secret_name_or_backup(std::string_view name) {
  if (secret_name(name)) return true;
  std::string_view stripped = without_backup_suffix(name);
  return stripped.size() != name.size() && secret_name_or_backup(stripped);
}

// REQUIRES: `name` is lower case.
bool secret_name(std::string_view name) {
  static constexpr std::array<std::string_view, 18> kExact = {
      ".env",       ".envrc",  ".netrc",    "_netrc",        ".git-credentials", ".npmrc",
      ".pypirc",    ".pgpass", ".htpasswd", ".my.cnf",       ".vault-token",     "credentials.json",
      ".dockercfg", ".s3cfg",  ".boto",     "wp-config.php", ".terraformrc",     "terraform.rc"};
  // Terraform state holds every secret its resources were given (database passwords, keys), in clear.
  static constexpr std::array<std::string_view, 11> kSuffixes = {
      ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".p8", ".ppk", ".kdbx", ".tfstate", ".tfstate.backup"};
  static constexpr std::array<std::string_view, 4> kKeyPrefixes = {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"};
  // Most names are none of these, told at once: every name above begins with '.', '_' or "id_", or
  // ends in one of these extensions.
  static constexpr std::array<std::string_view, 15> kExtensions = {"env",     "pem",      "key",  "p12", "pfx",
                                                                   "jks",     "keystore", "p8",   "ppk", "kdbx",
                                                                   "tfstate", "backup",   "json", "php", "rc"};
  if (name.empty()) return false;
  if (name[0] != '.' && name[0] != '_' && !starts_with(name, "id_")) {
    std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos) return false;
    std::string_view extension = name.substr(dot + 1);
    if (std::find(kExtensions.begin(), kExtensions.end(), extension) == kExtensions.end()) return false;
  }
  if (starts_with(name, ".env.") || ends_with(name, ".env")) return !template_name(name);
  for (auto e : kExact)
    if (name == e) return true;
  for (auto s : kSuffixes)
    if (ends_with(name, s)) return true;
  for (auto p : kKeyPrefixes)
    if (starts_with(name, p)) return !ends_with(name, ".pub");
  return false;
}

// REQUIRES: `dir` is lower case.
bool secret_dir(std::string_view dir) {
  static constexpr std::array<std::string_view, 6> kDirs = {".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure"};
  for (auto d : kDirs)
    if (dir == d) return true;
  return false;
}

}  // namespace

bool looks_secret(std::string_view rel_path) {
  // Called for every path of a workspace (a turn's start: 100,000 of them), so without allocating:
  // only a folder whose name begins with '.' can be a secret one, and only the last part is
  // lower-cased to be matched as a name.
  std::size_t start = 0;
  while (true) {
    std::size_t slash = rel_path.find('/', start);
    if (slash == std::string_view::npos) break;
    std::string_view part = rel_path.substr(start, slash - start);
    if (part.size() > 1 && part[0] == '.' && part.size() <= 8) {
      char lower[8];
      for (std::size_t i = 0; i < part.size(); ++i)
        lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(part[i])));
      if (secret_dir(std::string_view(lower, part.size()))) return true;
    }
    start = slash + 1;
  }
  std::string_view name = rel_path.substr(start);
  char buffer[128];
  std::string longer;
  char* lower = buffer;
  if (name.size() > sizeof buffer) {
    longer.resize(name.size());
    lower = longer.data();
  }
  for (std::size_t i = 0; i < name.size(); ++i)
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  return secret_name_or_backup(std::string_view(lower, name.size()));
}

std::string content_withheld(std::string_view rel_path) {
  return fmt::format("{} is a credential file: content withheld", rel_path);
}

namespace {

std::string upper_case(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool names_a_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kSuffixes = {
      "_KEY",          "_TOKEN",      "_SECRET",      "_PASSWORD",      "_PASSWD", "_PASSPHRASE",
      "_CREDENTIALS",  "_CREDENTIAL", "_PAT",         "_PASS",          "_PWD",    "_DSN",
      "_DATABASE_URL", "_REDIS_URL",  "_MONGODB_URI", "_AUTHORIZATION", "_COOKIE"};
  // Connection strings by their usual names: they carry a user and password more often than not
  // (`redis://:pw@host`, `mongodb+srv://user:pw@...`), and a value without one is no loss to a step.
  static constexpr std::array<std::string_view, 20> kExact = {
      "PGPASSWORD", "TOKEN",     "SECRET",       "PASSWORD",      "API_KEY",
      "DSN",        "PASS",      "DATABASE_URL", "REDIS_URL",     "REDIS_URI",
      "MONGO_URL",  "MONGO_URI", "MONGODB_URI",  "MONGODB_URL",   "AMQP_URL",
      "COOKIE",     "BEARER",    "AUTH",         "AUTHORIZATION", "KUBECONFIG_DATA"};
  static constexpr std::array<std::string_view, 11> kAnywhere = {"SECRET", "TOKEN",       "API_KEY",    "APIKEY",
                                                                 "JWT",    "PRIVATE_KEY", "_WEBHOOK",   "ACCESS_KEY",
                                                                 "BEARER", "AUTH_HEADER", "KUBE_CONFIG"};
  std::string upper = upper_case(name);
  std::string_view u(upper);
  for (auto e : kExact)
    if (u == e) return true;
  for (auto s : kSuffixes)
    if (u.size() > s.size() && ends_with(u, s)) return true;
  for (auto a : kAnywhere)
    if (u.find(a) != std::string_view::npos) return true;
  return starts_with(u, "WEBHOOK");  // `*_WEBHOOK*` and `WEBHOOK_URL`: a Slack or Discord webhook is its own key
}

bool looks_like_credential_variable(const std::string& name) {
  // Scrubbed, but their values are not secrets (a region, a repository's name, a path): a provider's
  // or a cloud's own namespace, and variables that point at credentials rather than hold them.
  static constexpr std::array<std::string_view, 13> kPrefixes = {
      "ANTHROPIC_", "OPENAI_", "AWS_",    "AZURE_", "GOOGLE_", "GCP_",     "HF_",
      "GITHUB_",    "GH_",     "GITLAB_", "NPM_",   "DOCKER_", "CLOUDSDK_"};
  static constexpr std::array<std::string_view, 4> kPointers = {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "NETRC",
                                                                "KUBECONFIG"};
  if (names_a_secret(name)) return true;
  std::string upper = upper_case(name);
  std::string_view u(upper);
  for (auto p : kPointers)
    if (u == p) return true;
  for (auto p : kPrefixes)
    if (starts_with(u, p)) return true;
  return false;
}

namespace {

bool base64url(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; }

// `scheme://user:password@host` with a non-empty password, at `at` (the "://"). The authority
// ends at the first '/', '?' or '#'; but people write passwords with those unencoded
// (`redis://:p/ss@host`), so when it holds no '@' the last '@' before whitespace is tried too,
// unless what would be the password is a port and a path (`host:8080/@scope`).
bool url_with_password(std::string_view v, std::size_t at) {
  if (at == 0 || std::isalpha(static_cast<unsigned char>(v[at - 1])) == 0) return false;  // no scheme
  std::size_t start = at + 3;
  auto has_password = [](std::string_view userinfo) {
    std::size_t colon = userinfo.find(':');
    return colon != std::string_view::npos && colon + 1 < userinfo.size();
  };
  std::size_t end = v.find_first_of("/?# \t\n", start);
  std::string_view authority = v.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  if (std::size_t userinfo_end = authority.rfind('@'); userinfo_end != std::string_view::npos) {
    return has_password(authority.substr(0, userinfo_end));
  }
  std::size_t word_end = v.find_first_of(" \t\n\"'", start);
  std::string_view word =
      v.substr(start, word_end == std::string_view::npos ? std::string_view::npos : word_end - start);
  std::size_t userinfo_end = word.rfind('@');
  if (userinfo_end == std::string_view::npos) return false;
  std::string_view userinfo = word.substr(0, userinfo_end);
  std::size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos || userinfo.substr(0, colon).find('/') != std::string_view::npos) return false;
  std::size_t digits = colon + 1;
  while (digits < userinfo.size() && std::isdigit(static_cast<unsigned char>(userinfo[digits])) != 0) ++digits;
  if (digits > colon + 1 && digits < userinfo.size() && userinfo[digits] == '/') return false;  // a port, then a path
  return has_password(userinfo);
}

// A query parameter that carries a credential (`?password=...`, `&token=...`, an Azure SAS `sig=`),
// non-empty, in the URL at `at`.
bool url_with_secret_parameter(std::string_view v, std::size_t at) {
  std::size_t end = v.find_first_of(" \t\n\"'", at);
  std::string_view url = v.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
  for (std::size_t p = url.find_first_of("?&"); p != std::string_view::npos; p = url.find_first_of("?&", p + 1)) {
    std::size_t eq = url.find('=', p + 1);
    if (eq == std::string_view::npos) return false;
    std::string_view name = url.substr(p + 1, eq - p - 1);
    std::size_t value_end = url.find_first_of("&#", eq + 1);
    bool has_value = eq + 1 < url.size() && value_end != eq + 1;
    if (!has_value || name.find_first_of("?&") != std::string_view::npos) continue;
    std::string upper = upper_case(name);
    if (names_a_secret(upper) || upper == "KEY" || upper == "SIG" || upper == "PWD" || upper == "AUTH") return true;
  }
  return false;
}

// A JWT at `at` ("eyJ", the base64url of `{"`): three base64url segments joined by dots, the
// last possibly empty (an unsigned token).
bool jwt_at(std::string_view v, std::size_t at) {
  if (at > 0 && base64url(v[at - 1])) return false;
  std::size_t i = at;
  std::size_t lengths[2] = {0, 0};
  for (std::size_t& length : lengths) {
    for (; i < v.size() && base64url(v[i]); ++i) ++length;
    if (i >= v.size() || v[i] != '.') return false;
    ++i;
  }
  return lengths[0] >= 8 && lengths[1] >= 2;
}

}  // namespace

bool looks_like_credential_value(std::string_view value) {
  for (std::size_t at = value.find("://"); at != std::string_view::npos; at = value.find("://", at + 3)) {
    if (url_with_password(value, at) || url_with_secret_parameter(value, at)) return true;
  }
  for (std::size_t at = value.find("eyJ"); at != std::string_view::npos; at = value.find("eyJ", at + 1)) {
    if (jwt_at(value, at)) return true;
  }
  return value.find("-----BEGIN ") != std::string_view::npos &&
         value.find("PRIVATE KEY-----") != std::string_view::npos;
}

}  // namespace candor
