// The shipped JSON Schemas (share/candor/schemas/) agree with the catalog the parsers check plans
// and assertions against: each built-in tool's `args` and each built-in assertion type's arguments
// are derived here from their Signature (names, types, ranges, required, unknown ones refused) and
// must equal the schema's definitions, in the plan schema and, for assertions, in the config schema.
// A tool or evaluator added without its schema fails here, printing the definitions to paste.
#include <doctest/doctest.h>

#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "assertions/evaluator.h"
#include "executor/tool.h"
#include "tests/test_support.h"

namespace candor::testing {
namespace {

using nlohmann::json;

json arg_schema(const ArgSpec& spec) {
  json s;
  switch (spec.type) {
    case ArgType::kString:
    case ArgType::kRegex:  // RE2, not ECMA-262: no "format": "regex"
      s = {{"type", "string"}};
      break;
    case ArgType::kInteger:
      s = {{"type", "integer"}};
      if (spec.min != std::numeric_limits<std::int64_t>::min()) s["minimum"] = spec.min;
      if (spec.max != std::numeric_limits<std::int64_t>::max()) s["maximum"] = spec.max;
      break;
    case ArgType::kBoolean:
      s = {{"type", "boolean"}};
      break;
    case ArgType::kEdits:
      s = {{"$ref", "#/$defs/edits"}};
      break;
    case ArgType::kJson:
      s = json::object();
      break;
    case ArgType::kAssertion:
      s = {{"$ref", "#/$defs/assertion"}};
      break;
    case ArgType::kGlobs:
      s = {{"$ref", "#/$defs/globs"}};
      break;
  }
  if (!spec.description.empty()) s["description"] = spec.description;
  return s;
}

// An object of arguments: `extra` properties first (an assertion's "type").
json args_schema(const Signature& sig, json properties) {
  json required = json::array();
  for (const ArgSpec& a : sig.args) {
    properties[a.name] = arg_schema(a);
    if (a.required) required.push_back(a.name);
  }
  json s = {{"description", sig.description}, {"type", "object"}, {"properties", properties}};
  if (!required.empty()) s["required"] = required;
  if (!sig.open_args) s["additionalProperties"] = false;
  return s;
}

// The definitions both the plan and the config schema hold for assertions: `assertion` (any type;
// a built-in one's arguments checked by its own definition) and one `assert_TYPE` per built-in.
json assertion_defs(const std::vector<Signature>& types) {
  json defs = json::object(), names = json::array(), dispatch = json::array();
  for (const Signature& sig : types) {
    names.push_back(sig.name);
    defs["assert_" + sig.name] = args_schema(sig, {{"type", {{"const", sig.name}}}});
    dispatch.push_back({{"if", {{"properties", {{"type", {{"const", sig.name}}}}}, {"required", {"type"}}}},
                        {"then", {{"$ref", "#/$defs/assert_" + sig.name}}}});
  }
  defs["assertion"] = {
      {"description",
       "an assertion: {\"type\": T, ...arguments}; a type that is not built in is an external evaluator the "
       "workspace's config declares (candor evaluators lists them)"},
      {"type", "object"},
      {"required", {"type"}},
      {"properties",
       {{"type", {{"type", "string"}, {"anyOf", {{{"enum", names}}, {{"pattern", "^[a-z][a-z0-9_]*$"}}}}}}}},
      {"allOf", dispatch}};
  return defs;
}

// The plan schema's step: the tool names, and each tool's `args` by its definition `tool_NAME`.
json tool_defs(const std::vector<Signature>& tools) {
  json defs = json::object(), names = json::array(), dispatch = json::array();
  for (const Signature& sig : tools) {
    names.push_back(sig.name);
    defs["tool_" + sig.name] = args_schema(sig, json::object());
    bool needs_args = std::any_of(sig.args.begin(), sig.args.end(), [](const ArgSpec& a) { return a.required; });
    json then = {{"properties", {{"args", {{"$ref", "#/$defs/tool_" + sig.name}}}}}};
    if (needs_args) then["required"] = {"args"};
    dispatch.push_back(
        {{"if", {{"properties", {{"tool", {{"const", sig.name}}}}}, {"required", {"tool"}}}}, {"then", then}});
  }
  defs["step_tool"] = {{"enum", names}};
  defs["step_args"] = dispatch;
  return defs;
}

json read_schema(const std::string& name) {
  std::ifstream in(source_root() + "/share/candor/schemas/" + name + ".schema.json");
  REQUIRE_MESSAGE(in.good(), "cannot read share/candor/schemas/" << name << ".schema.json");
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

// Every definition of `want` is in `schema`'s $defs, equal; prints the one to paste when not.
void check_defs(const json& schema, const json& want, const std::string& file) {
  for (const auto& [name, def] : want.items()) {
    CAPTURE(file);
    CAPTURE(name);
    const json& defs = schema.at("$defs");
    if (!defs.contains(name) || defs.at(name) != def) {
      FAIL_CHECK("$defs." << name << " differs from the catalog; it should be:\n\"" << name << "\": " << def.dump(2));
    }
  }
}

TEST_SUITE("executor") {
  TEST_CASE("the plan schema's tools and assertion types are the catalog's, argument by argument") {
    json plan = read_schema("plan");
    json tools = tool_defs(executor::builtin_tools().signatures());
    json step = plan.at("$defs").at("step");
    CHECK(step.at("properties").at("tool") == tools.at("step_tool"));
    CHECK(step.at("allOf") == tools.at("step_args"));
    tools.erase("step_tool");
    tools.erase("step_args");
    check_defs(plan, tools, "plan");
    check_defs(plan, assertion_defs(assertions::builtin_evaluators().signatures()), "plan");
    // Every definition the schema has is one the catalog derives, or one of its hand-written parts.
    for (const auto& [name, def] : plan.at("$defs").items()) {
      CAPTURE(name);
      bool derived = tools.contains(name) || name.rfind("assert_", 0) == 0 || name == "assertion";
      CHECK((derived || name == "step" || name == "edits" || name == "globs"));
      if (name.rfind("assert_", 0) == 0) CHECK(assertions::builtin_evaluators().find(name.substr(7)) != nullptr);
    }
  }

  TEST_CASE("the config schema's assertions (expect, guard) are the plan schema's") {
    json config = read_schema("config"), plan = read_schema("plan");
    check_defs(config, assertion_defs(assertions::builtin_evaluators().signatures()), "config");
    for (const char* shared : {"edits", "globs"}) {
      CAPTURE(shared);
      CHECK(config.at("$defs").at(shared) == plan.at("$defs").at(shared));
    }
  }
}

}  // namespace
}  // namespace candor::testing
