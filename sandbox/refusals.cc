#include "sandbox/refusals.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>

namespace candor::sandbox {
namespace {

bool within(std::string_view path, std::string_view dir) {
  if (dir == "/") return true;
  return path.substr(0, dir.size()) == dir && (path.size() == dir.size() || path[dir.size()] == '/');
}

std::string resolved_or_self(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

bool ends_path(char c) {
  return c == ':' || c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '`' || c == ',' || c == ')' || c == '(' ||
         c == ';' || c == '\r';
}

// The absolute paths a line names.
std::vector<std::string> absolute_paths(std::string_view line) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '/' || (i > 0 && !ends_path(line[i - 1]) && line[i - 1] != '=')) continue;
    std::size_t end = i;
    while (end < line.size() && !ends_path(line[end])) ++end;
    if (end - i > 1) out.emplace_back(line.substr(i, end - i));
    i = end;
  }
  return out;
}

// "sh: 1: pyenv: Permission denied" → "pyenv": the word just before the refusal, when it is a bare name.
std::string bare_name_before(std::string_view line, std::size_t refusal) {
  if (refusal < 2 || line.substr(refusal - 2, 2) != ": ") return "";
  std::size_t end = refusal - 2;
  std::size_t start = line.rfind(' ', end == 0 ? 0 : end - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::string_view word = line.substr(start, end - start);
  if (word.empty() || word.find('/') != std::string_view::npos || word.find(':') != std::string_view::npos) return "";
  return std::string(word);
}

std::string on_path(const std::string& name, std::string_view path_env) {
  std::size_t start = 0;
  while (start <= path_env.size()) {
    std::size_t colon = path_env.find(':', start);
    std::string_view dir =
        path_env.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    start = colon == std::string_view::npos ? path_env.size() + 1 : colon + 1;
    if (dir.empty() || dir[0] != '/') continue;
    std::string candidate = std::string(dir) + "/" + name;
    if (::access(candidate.c_str(), F_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

std::vector<std::string> refused_paths(std::string_view output, const SandboxPolicy& policy,
                                       const std::vector<std::string>& readable, std::string_view path_env) {
  std::vector<std::string> out;
  if (!policy.enabled || !policy.mechanisms.landlock) return out;
  std::string workspace = resolved_or_self(policy.workspace);
  auto refused = [&](const std::string& path) {
    std::string real = resolved_or_self(path);
    if (within(real, workspace) || within(path, policy.workspace)) return false;
    for (const auto& root : readable)
      if (within(real, root)) return false;
    for (const auto& hidden : policy.hidden_paths)
      if (within(real, resolved_or_self(hidden))) return false;  // refused on purpose, whatever read_paths say
    // Devices are granted one by one, never by read_paths (they would reach the raw disks).
    return !within(real, "/dev");
  };
  std::size_t pos = 0;
  while (pos < output.size() && out.size() < kMaxRefusedPaths) {
    std::size_t nl = output.find('\n', pos);
    std::string_view line = output.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? output.size() : nl + 1;
    std::size_t refusal = line.find("Permission denied");
    if (refusal == std::string_view::npos) refusal = line.find("Operation not permitted");
    if (refusal == std::string_view::npos) continue;
    std::vector<std::string> named = absolute_paths(line.substr(0, refusal));
    if (named.empty()) {
      if (std::string name = bare_name_before(line, refusal); !name.empty()) {
        if (std::string found = on_path(name, path_env); !found.empty()) named.push_back(found);
      }
    }
    for (const auto& p : named) {
      if (out.size() < kMaxRefusedPaths && refused(p) && std::find(out.begin(), out.end(), p) == out.end())
        out.push_back(p);
    }
  }
  return out;
}

std::vector<std::string> refused_paths(std::string_view output, const SandboxPolicy& policy) {
  if (!policy.enabled || !policy.mechanisms.landlock) return {};
  const char* path_env = std::getenv("PATH");
  return refused_paths(output, policy, readable_roots(policy), path_env ? path_env : "");
}

std::string refusal_sentence(const std::vector<std::string>& paths) {
  std::string list;
  for (const auto& p : paths) list += (list.empty() ? "" : ", ") + p;
  return fmt::format(
      "candor's sandbox refused it {} (outside the workspace and the folders a check may read), so the check could "
      "not run: this is not the work's failure; to let the check read {}, add {} to \"sandbox\": {{\"read_paths\": "
      "[...]}} in .candor/config.json",
      list, paths.size() == 1 ? "it" : "them", paths.size() == 1 ? "it" : "them");
}

}  // namespace candor::sandbox
