#include "app/init.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/file_write.h"
#include "core/json_text.h"
#include "executor/config.h"

namespace candor::app {
namespace {

namespace fs = std::filesystem;

// Folders that hold what a build or a package manager made, never the project's own source.
bool generated_folder(const std::string& name) {
  static const std::vector<std::string> kGenerated = {"node_modules", "build",  "dist", "target", "out",
                                                      "coverage",     "vendor", "venv", "env",    "__pycache__",
                                                      "builddir",     "bin",    "obj",  "tmp"};
  return std::find(kGenerated.begin(), kGenerated.end(), name) != kGenerated.end();
}

// A name safe to write inside a // comment and a glob as it is: no line break, no quote, no glob.
bool plain_name(const std::string& name) {
  return !name.empty() && name[0] != '.' &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string::npos;
}

bool has(const RepositoryFiles& r, const std::string& name) { return r.files.count(name) > 0; }

// Whether a Makefile text has a rule for `target` ("test:" at a line's start).
bool make_target(const std::string& text, const std::string& target) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(target, 0) != 0) continue;
    std::string rest = line.substr(target.size());
    std::size_t a = rest.find_first_not_of(" \t");
    if (a != std::string::npos && rest[a] == ':' && (a + 1 >= rest.size() || rest[a + 1] != '=')) return true;
  }
  return false;
}

void from_package_json(const RepositoryFiles& r, InitConfig& c) {
  auto found = r.files.find("package.json");
  if (found == r.files.end()) return;
  auto j = parse_json_text(found->second, "package.json");
  if (!j.ok()) {
    c.unread.push_back(j.error().message);
    return;
  }
  if (!j->is_object() || !j->contains("scripts") || !(*j)["scripts"].is_object()) return;
  const auto& scripts = (*j)["scripts"];
  std::string runner = has(r, "pnpm-lock.yaml") ? "pnpm" : has(r, "yarn.lock") ? "yarn" : "npm";
  // npm's placeholder ("echo \"Error: no test specified\" && exit 1") is no test.
  if (scripts.contains("test") && scripts["test"].is_string() &&
      scripts["test"].get<std::string>().find("no test specified") == std::string::npos) {
    c.tests.push_back({runner + " test", "package.json's scripts.test"});
  }
  if (scripts.contains("lint") && scripts["lint"].is_string())
    c.guards.push_back({runner + " run lint", "package.json's scripts.lint"});
}

void from_python(const RepositoryFiles& r, InitConfig& c) {
  std::string from;
  if (auto p = r.files.find("pyproject.toml"); p != r.files.end() && p->second.find("pytest") != std::string::npos)
    from = "pytest in pyproject.toml";
  else if (has(r, "pytest.ini"))
    from = "pytest.ini";
  else if (auto s = r.files.find("setup.cfg");
           s != r.files.end() && s->second.find("[tool:pytest]") != std::string::npos)
    from = "[tool:pytest] in setup.cfg";
  else if (auto t = r.files.find("tox.ini"); t != r.files.end() && t->second.find("[pytest]") != std::string::npos)
    from = "[pytest] in tox.ini";
  if (!from.empty()) c.tests.push_back({"python3 -m pytest -q", from});
}

void from_makefile(const RepositoryFiles& r, InitConfig& c) {
  for (const char* name : {"GNUmakefile", "makefile", "Makefile"}) {
    auto m = r.files.find(name);
    if (m == r.files.end()) continue;
    for (const char* target : {"test", "check"}) {
      if (make_target(m->second, target)) {
        c.tests.push_back({fmt::format("make {}", target), fmt::format("the {} target of {}", target, name)});
        break;
      }
    }
    if (make_target(m->second, "lint")) c.guards.push_back({"make lint", fmt::format("the lint target of {}", name)});
    return;  // make reads the first of these it finds, in this order
  }
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + quoted(i);
  return "[" + out + "]";
}

std::string command_line(const FoundCommand& f, const std::vector<std::string>& covers) {
  std::string out = R"({"type": "command_succeeds", "command": )" + quoted(f.command);
  if (!covers.empty()) out += R"(, "covers": )" + quoted_list(covers);
  return out + "}";
}

std::string render(const InitConfig& c) {
  std::string t;
  t += "// candor's checks for this repository, written by `candor init` (docs/exec.md, docs/gate.md).\n";
  t += "// JSON with // and /* */ comments; an unknown key is refused, naming its path. Read once when a run\n";
  t += "// or a gated turn begins, so an agent's edit to this file never loosens its own check.\n";
  t += "{\n";
  t += "  // What done means: checked when a run ends and at every stop of a gated turn, and again on the\n";
  t += "  // state before the change (a test that fails before and passes after proves the change).\n";
  t += "  // \"covers\": the paths the command's tests check; a pass proves no changed path outside them.\n";
  if (c.tests.empty()) {
    t += "  // candor found no test command (package.json's scripts.test, pytest in pyproject.toml, pytest.ini,\n";
    t += "  // setup.cfg or tox.ini, Cargo.toml, go.mod, a Makefile's test or check target). Add yours, e.g.:\n";
    t += "  // {\"type\": \"command_succeeds\", \"command\": \"./run_tests.sh\", \"covers\": [\"src/**\"]}\n";
    t += "  \"expect\": [],\n";
  } else {
    t += "  \"expect\": [\n";
    t += "    // found: " + c.tests.front().from + "\n";
    if (c.covers.empty())
      t += "    // no source folder found (src/, lib/, ...): add \"covers\" to say what the tests check\n";
    for (std::size_t i = 1; i < c.tests.size(); ++i)
      t += "    // also found: " + c.tests[i].command + " (" + c.tests[i].from + ")\n";
    t += "    " + command_line(c.tests.front(), c.covers) + "\n";
    t += "  ],\n";
  }
  t += "\n  // What must still hold, never evidence of the goal (a linter, a type check).\n";
  if (c.guards.empty()) {
    t += "  \"guard\": [],\n";
  } else {
    t += "  \"guard\": [\n";
    for (std::size_t i = 0; i < c.guards.size(); ++i) {
      t += "    // found: " + c.guards[i].from + "\n";
      t += "    " + command_line(c.guards[i], {}) + (i + 1 < c.guards.size() ? ",\n" : "\n");
    }
    t += "  ],\n";
  }
  t += "\n  // The paths a change may touch; a change anywhere else blocks. Uncomment and edit to narrow it:\n";
  t += "  // \"scope\": " + quoted_list(c.scope.empty() ? std::vector<std::string>{"src/**"} : c.scope) + ",\n";
  t += "\n  // The live gate (`candor gate install`): how many times a turn's stop may be sent back.\n";
  t += "  \"gate\": {\"max_blocks\": 3}\n";
  t += "}\n";
  return t;
}

}  // namespace

const std::vector<std::string>& init_reads() {
  static const std::vector<std::string> kReads = {"package.json", "pnpm-lock.yaml", "yarn.lock", "pyproject.toml",
                                                  "pytest.ini",   "setup.cfg",      "tox.ini",   "Cargo.toml",
                                                  "go.mod",       "GNUmakefile",    "makefile",  "Makefile"};
  return kReads;
}

InitConfig plan_init(const RepositoryFiles& r) {
  InitConfig c;
  from_package_json(r, c);
  from_python(r, c);
  if (has(r, "Cargo.toml")) c.tests.push_back({"cargo test", "Cargo.toml"});
  if (has(r, "go.mod")) c.tests.push_back({"go test ./...", "go.mod"});
  from_makefile(r, c);
  std::vector<std::string> folders = r.folders;
  std::sort(folders.begin(), folders.end());
  for (const auto& f : folders) {
    if (!plain_name(f) || generated_folder(f)) continue;
    if (c.scope.size() < 12) c.scope.push_back(f + "/**");
    static const std::vector<std::string> kSource = {"src", "lib", "app", "pkg", "cmd", "internal"};
    if (std::find(kSource.begin(), kSource.end(), f) != kSource.end()) c.covers.push_back(f + "/**");
  }
  c.text = render(c);
  return c;
}

Result<InitResult> init_workspace(const InitRequest& request) {
  std::error_code ec;
  fs::path ws = fs::canonical(request.workspace, ec);
  if (ec || !fs::is_directory(ws)) {
    return make_error(ErrorCode::kUsage,
                      fmt::format("{} is not a folder: give the workspace with -C DIR", request.workspace));
  }
  fs::path folder = ws / ".candor";
  fs::file_status fst = fs::symlink_status(folder, ec);
  if (fs::exists(fst) && !fs::is_directory(fst)) {
    return make_error(ErrorCode::kInvalidInput,
                      fmt::format("{} is not a folder (candor reads its config only from a real folder, never "
                                  "through a symbolic link): candor init changed nothing",
                                  folder.string()));
  }
  InitResult out;
  out.path = (folder / "config.json").string();
  out.replaced = fs::exists(fs::symlink_status(out.path, ec));
  if (out.replaced && !request.force) {
    return make_error(ErrorCode::kExists,
                      fmt::format("{} exists already: candor init changed nothing (--force replaces it; `candor gate "
                                  "status` shows what it checks)",
                                  out.path));
  }
  RepositoryFiles repo;
  for (const auto& name : init_reads()) {
    auto text = read_input_file((ws / name).string(), kMaxDocumentBytes);
    if (text.ok()) {
      repo.files[name] = std::move(text.value());
    } else if (text.error().code != ErrorCode::kNotFound) {
      out.config.unread.push_back(text.error().message);
    }
  }
  fs::directory_iterator it(ws, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) repo.folders.push_back(it->path().filename().string());
  }
  if (ec) return make_error(ErrorCode::kIo, fmt::format("cannot list {}: {}", ws.string(), ec.message()));
  std::vector<std::string> unread = std::move(out.config.unread);
  out.config = plan_init(repo);
  out.config.unread.insert(out.config.unread.begin(), unread.begin(), unread.end());
  // What init writes must be what candor reads: a config it would refuse is a bug here.
  if (auto parsed = executor::parse_config_text(out.config.text, out.path); !parsed.ok()) {
    return make_error(ErrorCode::kInternal, "candor init wrote a config candor refuses: " + parsed.error().message);
  }
  TRY_STATUS(write_file_atomically(out.path, out.config.text));
  return out;
}

}  // namespace candor::app
