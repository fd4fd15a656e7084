#include "app/eval_tasks.h"

#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/json_text.h"

namespace candor::app {
namespace {

const std::set<std::string> kKeys = {"id", "repo", "commit", "goal", "expect", "guard", "acceptance", "timeout_s"};

bool is_url(const std::string& repo) {
  return repo.find("://") != std::string::npos ||
         (repo.find('@') != std::string::npos && repo.find(':') != std::string::npos);
}

Error at(const std::string& file, int line, const std::string& path, const std::string& what) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}:{}: {}: {}", file, line, path, what));
}

Result<std::string> string_field(const nlohmann::json& task, const std::string& key, const std::string& file,
                                 int line) {
  auto it = task.find(key);
  if (it == task.end()) return at(file, line, "$", fmt::format("\"{}\" is missing", key));
  if (!it->is_string() || it->get<std::string>().empty())
    return at(file, line, "$." + key, "must be a non-empty string");
  return it->get<std::string>();
}

// An --expect text: an assertion object as its JSON, or a command as written.
Result<std::vector<std::string>> checks_field(const nlohmann::json& task, const std::string& key,
                                              const std::string& file, int line, bool required) {
  std::vector<std::string> out;
  auto it = task.find(key);
  if (it == task.end()) {
    if (required) return at(file, line, "$", fmt::format("\"{}\" is missing: what proves the task done", key));
    return out;
  }
  if (!it->is_array()) return at(file, line, "$." + key, "must be an array of assertions or commands");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& v = (*it)[i];
    if (v.is_string() && !v.get<std::string>().empty()) {
      out.push_back(v.get<std::string>());
    } else if (v.is_object()) {
      out.push_back(v.dump());
    } else {
      return at(file, line, fmt::format("$.{}[{}]", key, i), "must be an assertion object or a command string");
    }
  }
  if (required && out.empty()) return at(file, line, "$." + key, "is empty: an attempt needs something to prove it");
  return out;
}

}  // namespace

Result<std::vector<EvalTask>> parse_eval_tasks(const std::string& text, const std::string& file,
                                               const std::string& base_dir) {
  std::vector<EvalTask> tasks;
  std::set<std::string> ids;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (raw.find_first_not_of(" \t\r") == std::string::npos) continue;
    TRY(nlohmann::json task, parse_json_line(raw, file, line, kDocumentLimits));
    if (!task.is_object()) return at(file, line, "$", "must be a JSON object (one task a line)");
    for (const auto& [key, value] : task.items()) {
      if (kKeys.count(key) == 0)
        return at(file, line, "$." + key,
                  "unknown key (a task has id, repo, commit, goal, expect, guard, acceptance, "
                  "timeout_s)");
    }
    EvalTask t;
    t.line = line;
    TRY(t.id, string_field(task, "id", file, line));
    if (!valid_eval_name(t.id)) return at(file, line, "$.id", "must be letters, digits, '.', '_' or '-' (at most 128)");
    if (!ids.insert(t.id).second) return at(file, line, "$.id", fmt::format("\"{}\" is used by an earlier task", t.id));
    TRY(t.repo, string_field(task, "repo", file, line));
    if (!is_url(t.repo) && !std::filesystem::path(t.repo).is_absolute())
      t.repo = (std::filesystem::path(base_dir) / t.repo).lexically_normal().string();
    TRY(t.commit, string_field(task, "commit", file, line));
    if (t.commit.front() == '-') return at(file, line, "$.commit", "must name a commit, not an option");
    TRY(t.goal, string_field(task, "goal", file, line));
    TRY(t.expect, checks_field(task, "expect", file, line, true));
    TRY(t.guard, checks_field(task, "guard", file, line, false));
    if (auto a = task.find("acceptance"); a != task.end()) {
      if (!a->is_object()) return at(file, line, "$.acceptance", "must be an acceptance spec (an object)");
      t.acceptance = *a;
    }
    if (auto s = task.find("timeout_s"); s != task.end()) {
      if (!s->is_number_integer() || s->get<std::int64_t>() < 1 || s->get<std::int64_t>() > 86400)
        return at(file, line, "$.timeout_s", "must be a whole number of seconds from 1 to 86400");
      t.timeout_s = s->get<int>();
    }
    tasks.push_back(std::move(t));
  }
  if (tasks.empty()) return make_error(ErrorCode::kInvalidInput, file + ": no task (one JSON object a line)");
  return tasks;
}

bool valid_eval_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  }
  return name != "." && name != "..";
}

std::string eval_tasks_digest(const std::vector<EvalTask>& tasks) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& t : tasks) {
    all.push_back({{"id", t.id},
                   {"repo", t.repo},
                   {"commit", t.commit},
                   {"goal", t.goal},
                   {"expect", t.expect},
                   {"guard", t.guard},
                   {"acceptance", t.acceptance},
                   {"timeout_s", t.timeout_s.value_or(0)}});
  }
  return fmt::format("fnv1a64:{:016x}", eval_task_hash(all.dump()));
}

std::uint64_t eval_task_hash(const std::string& id) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : id) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

int eval_shard_of(const std::string& id, int shards) {
  return static_cast<int>(eval_task_hash(id) % static_cast<std::uint64_t>(shards));
}

Result<Shard> parse_shard(const std::string& text) {
  auto slash = text.find('/');
  auto number = [](const std::string& s) -> std::optional<int> {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoi(s);
  };
  if (slash == std::string::npos || !number(text.substr(0, slash)) || !number(text.substr(slash + 1)))
    return make_error(ErrorCode::kUsage, fmt::format("--shard {}: expected I/N, e.g. 0/3 (the first of three)", text));
  Shard s{*number(text.substr(0, slash)), *number(text.substr(slash + 1))};
  if (s.count < 1 || s.index >= s.count)
    return make_error(ErrorCode::kUsage,
                      fmt::format("--shard {}: I counts from 0 and must be below N (0/{} to {}/{})", text,
                                  std::max(s.count, 1), std::max(s.count, 1) - 1, std::max(s.count, 1)));
  return s;
}

}  // namespace candor::app
