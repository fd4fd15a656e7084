#include "sandbox/secret_files.h"

#include <fnmatch.h>

#include <array>

#include <fmt/format.h>

namespace candor::sandbox {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool secret_name(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kExact = {".env",   ".netrc",   "_netrc",  ".git-credentials",
                                                             ".npmrc", ".pypirc", ".pgpass", ".htpasswd"};
  static constexpr std::array<std::string_view, 6> kSuffixes = {".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"};
  static constexpr std::array<std::string_view, 4> kKeyPrefixes = {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"};
  static constexpr std::array<std::string_view, 4> kTemplates = {".example", ".sample", ".template", ".dist"};
  for (auto e : kExact)
    if (name == e) return true;
  if (starts_with(name, ".env.")) {
    for (auto t : kTemplates)
      if (ends_with(name, t)) return false;
    return true;
  }
  for (auto s : kSuffixes)
    if (ends_with(name, s)) return true;
  for (auto p : kKeyPrefixes)
    if (starts_with(name, p)) return !ends_with(name, ".pub");
  return false;
}

bool secret_dir(std::string_view dir) { return dir == ".ssh" || dir == ".aws" || dir == ".gnupg" || dir == ".docker"; }

}  // namespace

bool looks_secret(std::string_view rel_path) {
  std::size_t start = 0;
  while (true) {
    std::size_t slash = rel_path.find('/', start);
    std::string_view part = rel_path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos) return secret_name(part);
    if (secret_dir(part)) return true;
    start = slash + 1;
  }
}

bool SecretFilter::refused(std::string_view rel_path) const {
  if (!looks_secret(rel_path)) return false;
  std::string path(rel_path);
  std::size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const auto& glob : allow_) {
    const std::string& subject = glob.find('/') == std::string::npos ? name : path;
    if (::fnmatch(glob.c_str(), subject.c_str(), 0) == 0) return false;
  }
  return true;
}

std::string secret_refusal(std::string_view rel_path) {
  return fmt::format(
      "refused: {} looks like a credential file, and its content must not reach an LLM prompt (allow it with "
      "\"secrets\": {{\"allow\": [\"{}\"]}} in .candor/config.json)",
      rel_path, rel_path);
}

}  // namespace candor::sandbox
