#include <cstdlib>

#include "executor/tool.h"

namespace candor::executor {

void ToolRegistry::add(std::unique_ptr<Tool> tool) {
  if (find(tool->signature().name) != nullptr) std::abort();  // two tools with one name is a bug
  tools_.push_back(std::move(tool));
}

const Tool* ToolRegistry::find(const std::string& name) const {
  for (const auto& t : tools_) {
    if (t->signature().name == name) return t.get();
  }
  return nullptr;
}

std::vector<std::string> ToolRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& t : tools_) out.push_back(t->signature().name);
  return out;
}

std::vector<Signature> ToolRegistry::signatures() const {
  std::vector<Signature> out;
  for (const auto& t : tools_) out.push_back(t->signature());
  return out;
}

ToolRegistry builtin_tools() {
  ToolRegistry r;
  for (auto make :
       {make_file_read, make_file_list, make_file_search, make_file_write, make_file_patch, make_file_delete,
        make_shell, make_http_get, make_git_status, make_git_diff, make_git_log, make_git_commit}) {
    r.add(make());
  }
  return r;
}

planner::Catalog make_catalog(const ToolRegistry& tools, const assertions::Registry& evaluators) {
  planner::Catalog c;
  c.tools = tools.signatures();
  c.assertions = evaluators.signatures();
  for (const auto& t : tools.tools()) c.tool_flags.push_back({t->read_only(), t->effect(), t->effect_on_files()});
  return c;
}

}  // namespace candor::executor
