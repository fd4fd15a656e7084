#include "app/gate_install.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/file_write.h"
#include "core/arg_schema.h"
#include "core/json_text.h"
#include "store/run_store.h"

namespace candor::app {
namespace {

namespace fs = std::filesystem;
using Ordered = nlohmann::ordered_json;

std::function<std::string(const char*)> env_or_process(const std::function<std::string(const char*)>& env) {
  if (env) return env;
  return [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
}

// Words as a shell splits them (quotes, backslashes), enough to find the program and its arguments.
std::vector<std::string> shell_words(const std::string& s) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        word += s[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      word += s[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

Error malformed(const std::string& where, const std::string& path, const std::string& what) {
  return make_error(ErrorCode::kInvalidInput,
                    fmt::format("{}: {}: {}; candor changed nothing (fix the file, or install the hooks by hand)",
                                where, path, what));
}

std::string describe(const Ordered& v) { return json_describe(nlohmann::json::parse(v.dump())); }

// The handlers of candor's gate in one event's list, as [group, handler] positions, after checking
// the list's shape.
Result<std::vector<std::pair<std::size_t, std::size_t>>> candor_handlers(const Ordered& list, const std::string& where,
                                                                         const std::string& path) {
  if (!list.is_array()) return malformed(where, path, "expected an array of hook groups, found " + describe(list));
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t g = 0; g < list.size(); ++g) {
    std::string at = fmt::format("{}[{}]", path, g);
    const Ordered& group = list[g];
    if (!group.is_object()) return malformed(where, at, "expected a hook group (an object), found " + describe(group));
    if (!group.contains("hooks")) continue;
    const Ordered& handlers = group["hooks"];
    if (!handlers.is_array()) return malformed(where, at + ".hooks", "expected an array, found " + describe(handlers));
    for (std::size_t h = 0; h < handlers.size(); ++h) {
      const Ordered& handler = handlers[h];
      if (!handler.is_object()) {
        return malformed(where, fmt::format("{}.hooks[{}]", at, h),
                         "expected a hook (an object), found " + describe(handler));
      }
      if (handler.contains("command") && handler["command"].is_string() &&
          is_candor_hook_command(handler["command"].get<std::string>())) {
        out.emplace_back(g, h);
      }
    }
  }
  return out;
}

Ordered handler_of(const HookEntry& e) {
  return Ordered{{"type", "command"}, {"command", e.command}, {"timeout", e.timeout_s}};
}

// One event's list with candor's handler made `e` (install) or gone (uninstall).
void merge_event(Ordered& list, const std::vector<std::pair<std::size_t, std::size_t>>& found, const HookEntry& e,
                 bool uninstall, MergeResult& out) {
  if (!uninstall && !found.empty()) {
    auto [g, h] = found.front();
    Ordered& handler = list[g]["hooks"][h];
    bool same = handler.value("command", "") == e.command && handler.contains("timeout") &&
                handler["timeout"] == e.timeout_s && handler.value("type", "") == "command";
    if (!same) {
      handler["type"] = "command";
      handler["command"] = e.command;
      handler["timeout"] = e.timeout_s;
      out.what.push_back(fmt::format("updated candor's {} hook to run: {}", e.event, e.command));
    }
  } else if (!uninstall) {
    list.push_back(Ordered{{"hooks", Ordered::array({handler_of(e)})}});
    out.what.push_back(fmt::format("added a {} hook running: {}", e.event, e.command));
  }
  // Every other handler of candor's goes (on install, duplicates beyond the first), from the last.
  std::size_t keep = uninstall ? 0 : 1;
  for (std::size_t k = found.size(); k > keep; --k) {
    auto [g, h] = found[k - 1];
    Ordered& handlers = list[g]["hooks"];
    handlers.erase(handlers.begin() + static_cast<std::ptrdiff_t>(h));
    if (handlers.empty()) list.erase(list.begin() + static_cast<std::ptrdiff_t>(g));
    out.what.push_back(uninstall ? fmt::format("removed candor's {} hook", e.event)
                                 : fmt::format("removed a second copy of candor's {} hook", e.event));
  }
}

Result<std::string> read_existing(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::string();
  auto text = read_input_file(path, kMaxDocumentBytes);
  if (!text.ok()) return text.error();
  return text;
}

Result<FileChange> update_file(const std::string& path,
                               const std::function<Result<MergeResult>(const std::string&)>& merge,
                               const std::string& unchanged) {
  TRY(std::string text, read_existing(path));
  TRY(MergeResult merged, merge(text));
  FileChange change{path, merged.changed, merged.what, merged.changed ? "" : unchanged};
  if (merged.changed) TRY_STATUS(write_file_atomically(path, merged.text));
  return change;
}

std::string home_dir(const std::function<std::string(const char*)>& env, const char* override_var, const char* folder) {
  if (std::string dir = env(override_var); !dir.empty()) return dir;
  std::string home = env("HOME");
  return (home.empty() ? std::string(".") : home) + "/" + folder;
}

std::string absolute(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  return p.string();
}

}  // namespace

std::vector<HookEntry> gate_hooks(const std::string& command_prefix) {
  // The stop's checks may run the user's commands twice (before and after): room for them.
  return {{"UserPromptSubmit", command_prefix, 60}, {"Stop", command_prefix, 600}};
}

std::string shell_quote(const std::string& word) {
  bool plain = !word.empty() && word.find_first_not_of(
                                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                    "-_./:=+,@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string hook_option(const std::string& command, const std::string& option) {
  std::vector<std::string> words = shell_words(command);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == option && i + 1 < words.size()) return words[i + 1];
    if (words[i].rfind(option + "=", 0) == 0) return words[i].substr(option.size() + 1);
  }
  return "";
}

std::string hook_store_dir(const std::string& given, const std::function<std::string(const char*)>& env) {
  auto e = env_or_process(env);
  // The team store is pinned: an agent's environment need not carry the CANDOR_STORE_URL of a shell.
  if (store::StoreLocation where = store::store_location(given, e); !where.url.empty()) return where.url;
  std::string resolved = absolute(given.empty() ? store::default_store_dir(e) : given);
  if (!given.empty()) return resolved;  // asked for: kept, whatever the hook would find
  return resolved == absolute(store::state_store_dir(e)) ? "" : resolved;
}

Status check_hook_store(const std::string& given, const std::function<std::string(const char*)>& env) {
  std::string pinned = hook_store_dir(given, env);
  if (!store::is_store_url(pinned) || store::masked_store_url(pinned) == pinned) return ok_status();
  return make_error(ErrorCode::kUsage,
                    fmt::format("the store URL {} carries a password, which the hook's command would keep in the "
                                "agent's settings file: give the URL without it, and the password in libpq's password "
                                "file (PGPASSFILE, ~/.pgpass)",
                                store::masked_store_url(pinned)));
}

bool is_candor_hook_command(const std::string& command) {
  std::vector<std::string> words = shell_words(command);
  for (std::size_t i = 0; i + 2 < words.size(); ++i) {
    std::string name = fs::path(words[i]).filename().string();
    if (name == "candor" && words[i + 1] == "gate" && (words[i + 2] == "claude-code" || words[i + 2] == "codex"))
      return true;
  }
  return false;
}

Result<MergeResult> merge_hooks(const std::string& text, const std::string& where, const std::vector<HookEntry>& hooks,
                                bool uninstall) {
  MergeResult out;
  Ordered root = Ordered::object();
  bool empty = text.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!empty) {
    // The limits and a message with the line and column first; then the text again, in its order.
    auto checked = parse_json_text(text, where);
    if (!checked.ok()) {
      return make_error(ErrorCode::kInvalidInput, checked.error().message + "; candor changed nothing");
    }
    root = Ordered::parse(text, nullptr, false);
    if (root.is_discarded()) return malformed(where, "$", "not valid JSON");
  }
  if (!root.is_object()) return malformed(where, "$", "expected an object, found " + describe(root));
  if (root.contains("hooks") && !root["hooks"].is_object())
    return malformed(where, "hooks", "expected an object, found " + describe(root["hooks"]));
  // Every event's shape checked before anything changes.
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> found;
  for (const auto& e : hooks) {
    const Ordered* list = root.contains("hooks") && root["hooks"].contains(e.event) ? &root["hooks"][e.event] : nullptr;
    if (list == nullptr) {
      found.emplace_back();
      continue;
    }
    TRY(auto positions, candor_handlers(*list, where, "hooks." + e.event));
    found.push_back(std::move(positions));
  }
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    const HookEntry& e = hooks[i];
    if (uninstall && found[i].empty()) continue;
    Ordered& list = root["hooks"][e.event];
    if (list.is_null()) list = Ordered::array();
    merge_event(list, found[i], e, uninstall, out);
    if (uninstall && list.empty()) root["hooks"].erase(e.event);
  }
  if (uninstall && root.contains("hooks") && root["hooks"].empty() && !out.what.empty()) root.erase("hooks");
  out.changed = !out.what.empty();
  out.text = out.changed ? root.dump(2, ' ', false, Ordered::error_handler_t::replace) + "\n" : text;
  return out;
}

Result<MergeResult> enable_codex_hooks(const std::string& toml, const std::string& where) {
  MergeResult out;
  std::vector<std::string> lines;
  {
    std::istringstream in(toml);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  auto trimmed = [](const std::string& s) {
    std::size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  auto without_comment = [&](const std::string& s) {
    std::string t = trimmed(s);
    if (std::size_t hash = t.find(" #"); hash != std::string::npos) t = trimmed(t.substr(0, hash));
    return t;
  };
  // key = value, with the key's spaces taken out: "hooks", "features.hooks".
  auto key_value = [&](const std::string& s, std::string& key, std::string& value) {
    std::string t = without_comment(s);
    std::size_t eq = t.find('=');
    if (eq == std::string::npos || t.empty() || t[0] == '#' || t[0] == '[') return false;
    key.clear();
    for (char c : t.substr(0, eq))
      if (c != ' ' && c != '\t') key += c;
    value = trimmed(t.substr(eq + 1));
    return true;
  };
  std::string table;  // the current table ("" before any header)
  std::ptrdiff_t features_header = -1, hooks_line = -1;
  std::string hooks_value;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string t = without_comment(lines[i]);
    if (!t.empty() && t[0] == '[') {
      table = t.rfind("[[", 0) == 0 ? "" : trimmed(t.substr(1, t.find(']') == std::string::npos ? 0 : t.find(']') - 1));
      if (table == "features") features_header = static_cast<std::ptrdiff_t>(i);
      continue;
    }
    std::string key, value;
    if (!key_value(lines[i], key, value)) continue;
    if ((table == "features" && key == "hooks") || (table.empty() && key == "features.hooks")) {
      hooks_line = static_cast<std::ptrdiff_t>(i);
      hooks_value = value;
    }
    if (table.empty() && key == "features") {
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("{}: features is an inline table: add `hooks = true` to it by hand; candor changed "
                                    "nothing",
                                    where));
    }
  }
  if (hooks_line >= 0 && hooks_value == "true") {
    out.text = toml;
    return out;
  }
  if (hooks_line >= 0) {
    std::string& line = lines[static_cast<std::size_t>(hooks_line)];
    std::size_t eq = line.find('=');
    line = line.substr(0, eq + 1) + " true";
    out.what.push_back(fmt::format("turned Codex's hooks feature on (it was `{}`)", hooks_value));
  } else if (features_header >= 0) {
    lines.insert(lines.begin() + features_header + 1, "hooks = true");
    out.what.push_back("turned Codex's hooks feature on ([features] hooks = true)");
  } else {
    if (!lines.empty() && !trimmed(lines.back()).empty()) lines.push_back("");
    lines.push_back("[features]");
    lines.push_back("hooks = true");
    out.what.push_back("turned Codex's hooks feature on ([features] hooks = true)");
  }
  for (const auto& l : lines) out.text += l + "\n";
  out.changed = true;
  return out;
}

std::string claude_settings_path(bool user, const std::string& project_dir,
                                 const std::function<std::string(const char*)>& env, bool local) {
  if (user) return home_dir(env_or_process(env), "CLAUDE_CONFIG_DIR", ".claude") + "/settings.json";
  return absolute(project_dir) + (local ? "/.claude/settings.local.json" : "/.claude/settings.json");
}

std::string codex_hooks_path(bool user, const std::string& project_dir,
                             const std::function<std::string(const char*)>& env) {
  if (user) return home_dir(env_or_process(env), "CODEX_HOME", ".codex") + "/hooks.json";
  return absolute(project_dir) + "/.codex/hooks.json";
}

std::string codex_config_path(const std::function<std::string(const char*)>& env) {
  return home_dir(env_or_process(env), "CODEX_HOME", ".codex") + "/config.toml";
}

Result<InstallResult> install_gate(const InstallRequest& r) {
  InstallResult out;
  std::vector<HookEntry> hooks = gate_hooks(r.command);
  std::string project = absolute(r.project_dir);
  if (!r.user && !fs::is_directory(project)) {
    return make_error(ErrorCode::kUsage, fmt::format("{} is not a folder: give the project with -C DIR", project));
  }
  if (r.local && (r.user || r.agent != GateAgent::kClaudeCode)) {
    return make_error(ErrorCode::kUsage, r.user
                                             ? "--local is the project's .claude/settings.local.json: not with --user"
                                             : "--local is Claude Code's .claude/settings.local.json: Codex has "
                                               "no local hooks file");
  }
  std::string path = r.agent == GateAgent::kClaudeCode ? claude_settings_path(r.user, project, r.env, r.local)
                                                       : codex_hooks_path(r.user, project, r.env);
  TRY(FileChange hooks_file,
      update_file(
          path, [&](const std::string& text) { return merge_hooks(text, path, hooks, r.uninstall); },
          r.uninstall ? "candor's hooks are not in it" : "candor's hooks are in it already"));
  out.files.push_back(hooks_file);
  if (r.agent == GateAgent::kCodex && !r.uninstall) {
    std::string config = codex_config_path(r.env);
    TRY(FileChange feature, update_file(
                                config, [&](const std::string& text) { return enable_codex_hooks(text, config); },
                                "Codex's hooks feature is on already"));
    out.files.push_back(feature);
  }
  if (r.uninstall) {
    if (r.agent == GateAgent::kCodex) {
      out.notes.push_back("Codex's hooks feature was left on in " + codex_config_path(r.env) +
                          " (other hooks may use it)");
    }
    return out;
  }
  if (r.agent == GateAgent::kClaudeCode) {
    out.notes.push_back(r.user ? "these hooks run in every Claude Code session of this user"
                               : fmt::format("Claude Code reads {} only when it is started in {} itself (not in a "
                                             "folder below it)",
                                             path, project));
    if (!r.user && !r.local) {
      out.notes.push_back(
          ".claude/settings.json is the project's shared file, usually committed, and the hooks' command names this "
          "machine's candor; `--local` writes .claude/settings.local.json, yours alone, instead");
    } else if (r.local) {
      out.notes.push_back(
          ".claude/settings.local.json is yours alone: keep it out of git (Claude Code lists it in .gitignore when it "
          "creates one itself)");
    }
  } else {
    out.notes.push_back(fmt::format(
        "Codex runs no hook until you trust it, and skips an untrusted one silently: {}start `codex` in {} and trust "
        "candor's two hooks with /hooks (for a single `codex exec`, `--trust --dangerously-bypass-hook-trust` does "
        "it). Editing {} later makes them untrusted again. `candor gate status` says what Codex has trusted.",
        r.user ? "" : "trust the project, then ", r.user ? std::string("any project") : project, path));
  }
  // Written is not running: a settings layer may turn every hook off.
  if (std::string why = hooks_not_effective(r.agent, project, r.env);
      !why.empty() && why.find("disableAllHooks") != std::string::npos)
    out.notes.push_back("the hooks are written but will NOT run: " + why);
  return out;
}

}  // namespace candor::app

namespace candor::app {
namespace {

// Claude Code's managed settings: what an administrator fixes for every user of the machine.
constexpr const char* kClaudeManagedSettings = "/etc/claude-code/managed-settings.json";

// The settings file as JSON; null when it is not there or cannot be read as an object.
nlohmann::json settings_json(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  auto text = read_input_file(path, kMaxDocumentBytes);
  if (!text.ok()) return nullptr;
  auto j = parse_json_text(*text, path);
  return j.ok() && j->is_object() ? *j : nlohmann::json(nullptr);
}

bool installs_candor(const nlohmann::json& settings) {
  if (!settings.is_object() || !settings.contains("hooks") || !settings["hooks"].is_object()) return false;
  for (const auto& [event, groups] : settings["hooks"].items()) {
    if (!groups.is_array()) continue;
    for (const auto& g : groups) {
      if (!g.is_object() || !g.contains("hooks") || !g["hooks"].is_array()) continue;
      for (const auto& h : g["hooks"]) {
        if (h.is_object() && h.contains("command") && h["command"].is_string() &&
            is_candor_hook_command(h["command"].get<std::string>()))
          return true;
      }
    }
  }
  return false;
}

}  // namespace

std::vector<HookSettingsFile> hook_settings_files(const std::string& project_dir,
                                                  const std::function<std::string(const char*)>& env) {
  std::string project = absolute(project_dir);
  auto e = env_or_process(env);
  std::string claude_home = home_dir(e, "CLAUDE_CONFIG_DIR", ".claude");
  std::string codex_home = home_dir(e, "CODEX_HOME", ".codex");
  return {{"claude-code", kClaudeManagedSettings, ""},
          {"claude-code", claude_home + "/settings.json", ""},
          {"claude-code", claude_home + "/settings.local.json", ""},
          {"claude-code", project + "/.claude/settings.json", ".claude/settings.json"},
          {"claude-code", project + "/.claude/settings.local.json", ".claude/settings.local.json"},
          {"codex", project + "/.codex/hooks.json", ".codex/hooks.json"},
          {"codex", project + "/.codex/config.toml", ".codex/config.toml"},
          {"codex", codex_home + "/hooks.json", ""},
          {"codex", codex_home + "/config.toml", ""}};
}

std::string hooks_not_effective(GateAgent agent, const std::string& project_dir,
                                const std::function<std::string(const char*)>& env) {
  bool installed = false;
  for (const auto& f : hook_settings_files(project_dir, env)) {
    if (f.agent != to_string(agent) || f.path.size() < 5 || f.path.substr(f.path.size() - 5) != ".json") continue;
    nlohmann::json s = settings_json(f.path);
    if (!s.is_object()) continue;
    if (agent == GateAgent::kClaudeCode && s.value("disableAllHooks", false) == true)
      return fmt::format("\"disableAllHooks\": true in {} turns every hook off", f.path);
    if (agent == GateAgent::kClaudeCode && f.path == kClaudeManagedSettings &&
        s.value("allowManagedHooksOnly", false) == true && !installs_candor(s))
      return fmt::format("\"allowManagedHooksOnly\": true in {}, which does not install candor's hooks", f.path);
    installed = installed || installs_candor(s);
  }
  if (!installed) return "no settings layer installs candor's hooks";
  if (agent == GateAgent::kCodex) {
    auto toml = read_input_file(codex_config_path(env), kMaxDocumentBytes);
    auto on = toml.ok() ? enable_codex_hooks(*toml, "config.toml") : Result<MergeResult>(toml.error());
    if (!on.ok() || on->changed)
      return fmt::format("Codex's hooks feature is off in {} ([features] hooks = true turns it on)",
                         codex_config_path(env));
  }
  return "";
}

}  // namespace candor::app
