#include "executor/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/arg_schema.h"
#include "core/glob.h"
#include "planner/plan.h"
#include "sandbox/unique_fd.h"

namespace candor::executor {
namespace {

using sandbox::UniqueFd;

Error invalid(const std::string& path, const std::string& message) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, message));
}

const std::vector<ArgSpec>& budget_spec() {
  static const std::vector<ArgSpec> spec = {
      {"max_replans", ArgType::kInteger, false, "", 0, 1000},
      {"max_steps", ArgType::kInteger, false, "", 1, 100000},
      {"max_tokens", ArgType::kInteger, false, "", 1},
      {"timeout_s", ArgType::kInteger, false, "", 1, 86400 * 7},
  };
  return spec;
}

Result<std::vector<std::string>> string_list(const nlohmann::json& j, const std::string& path) {
  if (!j.is_array()) return invalid(path, "expected an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string() || j[i].get<std::string>().empty())
      return invalid(json_path_index(path, i), "expected a non-empty string");
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

// Globs in candor's one dialect (core/glob.h): one git would not read is refused here (exit 65,
// naming the entry), never dropped later, where a `sensitive` entry would protect nothing.
Result<std::vector<std::string>> glob_list(const nlohmann::json& j, const std::string& path) {
  TRY(std::vector<std::string> globs, string_list(j, path));
  for (std::size_t i = 0; i < globs.size(); ++i) {
    if (auto g = PathGlob::compile(globs[i]); !g.ok()) {
      return invalid(json_path_index(path, i), fmt::format("invalid glob \"{}\": {}", globs[i], g.error().message));
    }
  }
  return globs;
}

// A gitignore line's pattern: what is left after a leading '!' and unescaped trailing spaces.
std::string_view ignore_pattern(std::string_view line) {
  if (!line.empty() && line.front() == '!') line.remove_prefix(1);
  while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\'))
    line.remove_suffix(1);
  return line;
}

const std::vector<ArgSpec>& limits_spec() {
  static const std::vector<ArgSpec> spec = {
      {"cpu_s", ArgType::kInteger, false, "", 1, 86400 * 7},
      {"memory_mb", ArgType::kInteger, false, "", 16, 1 << 24},
      {"file_size_mb", ArgType::kInteger, false, "", 1, 1 << 24},
      {"processes", ArgType::kInteger, false, "", 8, 1 << 22},
      {"open_files", ArgType::kInteger, false, "", 16, 1 << 20},
  };
  return spec;
}

Status parse_sandbox(const nlohmann::json& j, sandbox::SandboxPolicy& policy) {
  if (!j.is_object()) return invalid("sandbox", "expected an object");
  for (const auto& [key, value] : j.items()) {
    std::string path = "sandbox." + key;
    if (key == "allow_network") {
      if (!value.is_boolean()) return invalid(path, "expected true or false");
      policy.allow_network = value.get<bool>();
    } else if (key == "pass_env") {
      TRY(policy.pass_env, string_list(value, path));
    } else if (key == "read_paths") {
      TRY(policy.read_paths, string_list(value, path));
      for (std::size_t i = 0; i < policy.read_paths.size(); ++i) {
        if (policy.read_paths[i][0] != '/') return invalid(json_path_index(path, i), "expected an absolute path");
      }
    } else if (key == "limits") {
      TRY_STATUS(validate_args(value, limits_spec(), path));
      sandbox::ProcessLimits& l = policy.limits;
      if (value.contains("cpu_s")) l.cpu_seconds = value["cpu_s"].get<std::uint64_t>();
      if (value.contains("memory_mb")) l.memory_bytes = value["memory_mb"].get<std::uint64_t>() << 20;
      if (value.contains("file_size_mb")) l.file_size_bytes = value["file_size_mb"].get<std::uint64_t>() << 20;
      if (value.contains("processes")) l.processes = value["processes"].get<std::uint64_t>();
      if (value.contains("open_files")) l.open_files = value["open_files"].get<std::uint64_t>();
    } else {
      return invalid(
          path,
          fmt::format("unknown field \"{}\" (expected one of: allow_network, pass_env, read_paths, limits)", key));
    }
  }
  return ok_status();
}

Status parse_snapshot(const nlohmann::json& j, WorkspaceConfig& c) {
  if (!j.is_object()) return invalid("snapshot", "expected an object");
  std::vector<std::string>& ignore = c.snapshot_ignore;
  for (const auto& [key, value] : j.items()) {
    if (key == "change_events") {
      if (!value.is_boolean()) return invalid("snapshot.change_events", "expected true or false");
      c.change_events = value.get<bool>();
      continue;
    }
    if (key == "max_watches") {
      if (!value.is_number_unsigned() || value.get<std::uint64_t>() > 100'000'000)
        return invalid("snapshot.max_watches", "expected a whole number from 0 (the kernel's limit) to 100000000");
      c.max_watches = value.get<std::size_t>();
      continue;
    }
    if (key == "fsmonitor") {
      if (!value.is_string() || (value != "watchman" && value != ""))
        return invalid("snapshot.fsmonitor", "expected \"watchman\" or \"\" (none: walk)");
      c.fsmonitor = value.get<std::string>();
      continue;
    }
    if (key != "ignore") {
      return invalid(
          "snapshot." + key,
          fmt::format("unknown field \"{}\" (expected one of: ignore, change_events, max_watches, fsmonitor)", key));
    }
    TRY(ignore, string_list(value, "snapshot.ignore"));
    for (std::size_t i = 0; i < ignore.size(); ++i) {
      // One rule per entry: a line break would smuggle in a second one.
      if (ignore[i].find_first_of("\r\n") != std::string::npos) {
        return invalid(json_path_index("snapshot.ignore", i), "expected one gitignore pattern, without line breaks");
      }
      if (ignore[i].front() == '#') {
        return invalid(
            json_path_index("snapshot.ignore", i),
            fmt::format("\"{}\" is a comment in a gitignore, not a pattern (write \\# for a name that starts with '#')",
                        ignore[i]));
      }
      if (auto g = PathGlob::compile(ignore_pattern(ignore[i])); !g.ok()) {
        return invalid(json_path_index("snapshot.ignore", i),
                       fmt::format("invalid glob \"{}\": {}", ignore[i], g.error().message));
      }
    }
  }
  return ok_status();
}

Result<ArgType> parse_arg_type(const nlohmann::json& v, const std::string& path) {
  static const std::vector<std::pair<std::string, ArgType>> kTypes = {{"string", ArgType::kString},
                                                                      {"integer", ArgType::kInteger},
                                                                      {"boolean", ArgType::kBoolean},
                                                                      {"regex", ArgType::kRegex},
                                                                      {"json", ArgType::kJson}};
  std::string name = v.is_string() ? v.get<std::string>() : "";
  for (const auto& [n, t] : kTypes)
    if (n == name) return t;
  return invalid(path, fmt::format("expected one of string, integer, boolean, regex, json; got {}", json_describe(v)));
}

Result<std::vector<assertions::ExternalEvaluatorSpec>> parse_evaluators(const nlohmann::json& j) {
  if (!j.is_object())
    return invalid("evaluators", "expected an object mapping assertion types to {\"command\": [...]}");
  std::vector<assertions::ExternalEvaluatorSpec> out;
  for (const auto& [type, def] : j.items()) {
    std::string path = "evaluators." + type;
    if (type.empty() || !std::islower(static_cast<unsigned char>(type[0])) ||
        type.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
      return invalid(path, "a type name is lower_snake_case (a-z, 0-9, _), starting with a letter");
    }
    if (!def.is_object()) return invalid(path, "expected an object with \"command\"");
    assertions::ExternalEvaluatorSpec spec;
    spec.type = type;
    for (const auto& [key, value] : def.items()) {
      std::string at = path + "." + key;
      if (key == "command") {
        TRY(spec.command, string_list(value, at));
        if (spec.command.empty()) return invalid(at, "needs at least the program");
      } else if (key == "timeout_s") {
        if (!value.is_number_unsigned() || value.get<std::uint64_t>() < 1 || value.get<std::uint64_t>() > 3600) {
          return invalid(at, "expected an integer from 1 to 3600");
        }
        spec.timeout = std::chrono::seconds(value.get<std::uint64_t>());
      } else if (key == "description") {
        if (!value.is_string()) return invalid(at, "expected a string");
        spec.description = value.get<std::string>();
      } else if (key == "discriminating") {
        if (!value.is_boolean()) return invalid(at, "expected true or false");
        spec.discriminating = value.get<bool>();
      } else if (key == "args") {
        if (!value.is_object())
          return invalid(at, "expected an object: {\"NAME\": {\"type\": \"string\", \"required\": true}}");
        spec.open_args = false;
        for (const auto& [name, a] : value.items()) {
          std::string arg_at = at + "." + name;
          if (name == "type") return invalid(arg_at, "\"type\" names the assertion type and cannot be an argument");
          if (!a.is_object())
            return invalid(arg_at, "expected {\"type\": ..., \"required\"?: bool, \"description\"?: string}");
          ArgSpec arg{name, ArgType::kString, false, ""};
          for (const auto& [ak, av] : a.items()) {
            if (ak == "type") {
              TRY(arg.type, parse_arg_type(av, arg_at + ".type"));
            } else if (ak == "required") {
              if (!av.is_boolean()) return invalid(arg_at + ".required", "expected true or false");
              arg.required = av.get<bool>();
            } else if (ak == "description") {
              if (!av.is_string()) return invalid(arg_at + ".description", "expected a string");
              arg.description = av.get<std::string>();
            } else {
              return invalid(arg_at + "." + ak,
                             fmt::format("unknown field \"{}\" (expected one of: type, required, description)", ak));
            }
          }
          if (!a.contains("type")) return invalid(arg_at + ".type", "missing");
          spec.args.push_back(arg);
        }
      } else {
        return invalid(
            at,
            fmt::format("unknown field \"{}\" (expected one of: command, timeout_s, description, discriminating, args)",
                        key));
      }
    }
    if (spec.command.empty()) return invalid(path + ".command", "missing: the program to run, as an array");
    out.push_back(std::move(spec));
  }
  return out;
}

Result<GateConfig> parse_gate(const nlohmann::json& j) {
  if (!j.is_object()) return invalid("gate", "expected an object");
  GateConfig g;
  for (const auto& [key, value] : j.items()) {
    std::string path = "gate." + key;
    if (key == "max_blocks") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0 || value.get<std::int64_t>() > 100)
        return invalid(path, "expected an integer from 0 to 100 (0: never block, only report)");
      g.max_blocks = value.get<int>();
    } else if (key == "start_timeout_s") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 600)
        return invalid(path, "expected an integer from 1 to 600 (seconds; keep it below the agent's hook timeout)");
      g.start_timeout_s = value.get<int>();
    } else if (key == "block_on") {
      TRY(g.block_on, string_list(value, path));
      const auto& kinds = gate_finding_kinds();
      std::string known;
      for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
      for (std::size_t i = 0; i < g.block_on.size(); ++i) {
        if (std::find(kinds.begin(), kinds.end(), g.block_on[i]) == kinds.end()) {
          return invalid(json_path_index(path, i),
                         fmt::format("unknown kind of finding \"{}\" (expected one of: {})", g.block_on[i], known));
        }
      }
    } else if (key == "judge") {
      std::string v = value.is_string() ? value.get<std::string>() : "";
      if (v != "auto" && v != "always" && v != "never")
        return invalid(path, "expected \"auto\", \"always\" or \"never\"");
      g.judge = v;
    } else if (key == "acceptance") {
      if (!value.is_object())
        return invalid(path, "expected an acceptance spec, or {\"claude-code\": SPEC, \"codex\": SPEC}");
      if (!value.contains("checkpoints")) {
        for (const auto& [agent, spec] : value.items()) {
          if (agent != "claude-code" && agent != "codex") {
            return invalid(path + "." + agent,
                           "expected a spec with \"checkpoints\", or one spec per agent: \"claude-code\", \"codex\"");
          }
          if (!spec.is_object()) return invalid(path + "." + agent, "expected an acceptance spec (an object)");
        }
      }
      g.acceptance = value;
    } else {
      return invalid(
          path,
          fmt::format(
              "unknown field \"{}\" (expected one of: max_blocks, start_timeout_s, block_on, judge, acceptance)", key));
    }
  }
  return g;
}

}  // namespace

const std::vector<std::string>& gate_finding_kinds() {
  static const std::vector<std::string> kinds = {"expectation", "sandbox",   "checkpoint", "protected",
                                                 "sensitive",   "scope",     "scan",       "suspicious",
                                                 "judge",       "unchanged", "tampering"};
  return kinds;
}

Result<WorkspaceConfig> parse_config(const nlohmann::json& j) {
  if (!j.is_object()) return invalid("$", "the config is a JSON object");
  WorkspaceConfig c;
  for (const auto& [key, value] : j.items()) {
    if (key == "network") {
      if (!value.is_object()) return invalid("network", "expected an object");
      for (const auto& [nk, nv] : value.items()) {
        if (nk != "allow_hosts")
          return invalid("network." + nk, fmt::format("unknown field \"{}\" (expected: allow_hosts)", nk));
        if (!nv.is_array()) return invalid("network.allow_hosts", "expected an array of host names");
        for (std::size_t i = 0; i < nv.size(); ++i) {
          if (!nv[i].is_string() || nv[i].get<std::string>().empty()) {
            return invalid(json_path_index("network.allow_hosts", i), "expected a non-empty host name");
          }
          c.network.allowed_hosts.push_back(nv[i].get<std::string>());
        }
      }
    } else if (key == "budget") {
      TRY_STATUS(validate_args(value, budget_spec(), "budget"));
      if (value.contains("max_replans")) c.max_replans = value["max_replans"].get<int>();
      if (value.contains("max_steps")) c.max_steps = value["max_steps"].get<int>();
      if (value.contains("max_tokens")) c.max_tokens = value["max_tokens"].get<std::int64_t>();
      if (value.contains("timeout_s")) c.timeout_s = value["timeout_s"].get<int>();
    } else if (key == "output_cap_bytes") {
      if (!value.is_number_unsigned() || value.get<std::uint64_t>() < 1024 ||
          value.get<std::uint64_t>() > (64u << 20)) {
        return invalid("output_cap_bytes", "expected an integer from 1024 to 67108864");
      }
      c.output_cap_bytes = value.get<std::size_t>();
    } else if (key == "expect" || key == "guard") {
      if (!value.is_array()) return invalid(key, "expected an array of assertions");
      for (const auto& a : value) (key == "expect" ? c.expect : c.guard).push_back(a);
    } else if (key == "sandbox") {
      TRY_STATUS(parse_sandbox(value, c.sandbox));
    } else if (key == "evaluators") {
      TRY(c.evaluators, parse_evaluators(value));
    } else if (key == "secrets") {
      if (!value.is_object()) return invalid("secrets", "expected an object");
      for (const auto& [sk, sv] : value.items()) {
        if (sk != "allow") return invalid("secrets." + sk, fmt::format("unknown field \"{}\" (expected: allow)", sk));
        TRY(c.secrets_allow, glob_list(sv, "secrets.allow"));
      }
    } else if (key == "snapshot") {
      TRY_STATUS(parse_snapshot(value, c));
    } else if (key == "scope") {
      TRY(c.scope, glob_list(value, "scope"));
    } else if (key == "sensitive") {
      TRY(c.sensitive, glob_list(value, "sensitive"));
    } else if (key == "gate") {
      TRY(c.gate, parse_gate(value));
    } else if (key == "$schema") {
      // The JSON Schema an editor checks the file with (candor schema config); not a setting.
      if (!value.is_string()) return invalid(key, "expected a string (the JSON Schema an editor checks the file with)");
    } else {
      return invalid(
          key, fmt::format(
                   "unknown field \"{}\" (expected one of: network, budget, output_cap_bytes, expect, guard, sandbox, "
                   "secrets, evaluators, snapshot, scope, sensitive, gate)",
                   key));
    }
  }
  return c;
}

Result<WorkspaceConfig> parse_config_text(const std::string& text, const std::string& where) {
  // A person's file, annotated: `//` and `/* */` comments are white space; everything else is strict.
  TRY(nlohmann::json j, planner::parse_json_text(text, where, kCommentedDocumentLimits));
  auto c = parse_config(j);
  if (!c.ok()) return c.error().wrap(where);
  return c;
}

Result<WorkspaceConfig> load_config(const std::string& workspace_root) {
  std::string path = workspace_root + "/.candor/config.json";
  // Never through a symlink (docs/design.md, Protected paths): `.candor -> tools/lint` would make a
  // file anyone can edit the config that decides how the run is checked.
  UniqueFd root(::open(workspace_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid())
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: {}", workspace_root, std::strerror(errno)));
  UniqueFd folder(::openat(root.get(), ".candor", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!folder.valid()) {
    if (errno == ENOENT) return WorkspaceConfig{};
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("{}/.candor: {} (candor reads its config only from a real folder, never through a symbolic link)",
                    workspace_root, errno == ELOOP || errno == ENOTDIR ? "is not a folder" : std::strerror(errno)));
  }
  UniqueFd file(::openat(folder.get(), "config.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!file.valid()) {
    if (errno == ENOENT) return WorkspaceConfig{};
    return make_error(
        ErrorCode::kInvalidInput,
        fmt::format("{}: {} (candor reads its config only from a regular file, never through a symbolic link)", path,
                    errno == ELOOP ? "is a symbolic link" : std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{}: is not a regular file", path));
  }
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(file.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(ErrorCode::kIo, fmt::format("{}: {}", path, std::strerror(errno)));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    // Read no further than one byte past the limit parse_config_text holds documents to.
    if (text.size() > kMaxDocumentBytes) break;
  }
  TRY(WorkspaceConfig config, parse_config_text(text, path));
  config.file_text = std::move(text);
  return config;
}

void apply_config_budget(const WorkspaceConfig& config, BudgetLimits& limits) {
  if (config.max_replans) limits.max_replans = *config.max_replans;
  if (config.max_steps) limits.max_steps = *config.max_steps;
  if (config.max_tokens) limits.max_tokens = *config.max_tokens;
  if (config.timeout_s) limits.timeout_s = *config.timeout_s;
}

}  // namespace candor::executor
