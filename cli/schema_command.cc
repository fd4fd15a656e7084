// `candor schema [NAME]`: prints the JSON Schema of one of candor's files (docs/schemas.md), or
// lists their names.
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/schemas.h"

namespace candor::cli {
namespace {

// What each schema describes, for the list.
const char* what_it_describes(std::string_view name) {
  if (name == "config") return "the workspace's .candor/config.json";
  if (name == "plan") return "a plan: what candor exec takes, what the planner replies";
  if (name == "report") return "a run's report: candor report --json, run/exec/verify --json";
  if (name == "script") return "one line of a --llm script:FILE";
  return "";
}

std::string names() {
  std::string out;
  for (const EmbeddedFile& f : embedded_schemas()) out += fmt::format("{}{}", out.empty() ? "" : ", ", f.name);
  return out;
}

int schema_command(const std::string& name) {
  if (name.empty()) {
    for (const EmbeddedFile& f : embedded_schemas()) fmt::print("{:<8} {}\n", f.name, what_it_describes(f.name));
    return exit_code(app::ExitCategory::kSuccess);
  }
  for (const EmbeddedFile& f : embedded_schemas()) {
    if (f.name == name) {
      std::fwrite(f.text.data(), 1, f.text.size(), stdout);
      return exit_code(app::ExitCategory::kSuccess);
    }
  }
  fmt::print(stderr, "candor: schema: unknown schema \"{}\"; the schemas are: {}\n", name, names());
  return exit_code(app::ExitCategory::kUsage);
}

}  // namespace

Subcommand add_schema_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("schema", "print the JSON Schema of a config, plan, script line or report");
  // The names in the type, as {a,b}: the bash completion offers them (scripts/help_docs.py).
  std::string choices;
  for (const EmbeddedFile& f : embedded_schemas()) choices += fmt::format("{}{}", choices.empty() ? "" : ",", f.name);
  cmd->add_option("name", *name, "the schema to print (none: list them)")->type_name("{" + choices + "}");
  cmd->footer(examples("candor schema", "candor schema config > .candor/config.schema.json"));
  return {cmd, [name] { return schema_command(*name); }, nullptr};
}

}  // namespace candor::cli
