#include "core/arg_schema.h"

#include <algorithm>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/glob.h"

namespace candor {
namespace {

Error invalid(const std::string& path, const std::string& message) {
  return make_error(ErrorCode::kInvalidInput, fmt::format("{}: {}", path, message));
}

Status check_integer(const nlohmann::json& v, const ArgSpec& spec, const std::string& path) {
  if (!v.is_number_integer()) {
    return invalid(path, "expected an integer, got " + json_describe(v));
  }
  // Unsigned values beyond int64 are out of every range we accept.
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return invalid(path, "integer out of range");
  }
  std::int64_t n = v.get<std::int64_t>();
  if (n < spec.min || n > spec.max) {
    if (spec.max == std::numeric_limits<std::int64_t>::max()) {
      return invalid(path, fmt::format("must be at least {}, got {}", spec.min, n));
    }
    return invalid(path, fmt::format("must be between {} and {}, got {}", spec.min, spec.max, n));
  }
  return ok_status();
}

Status check_edits(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array()) return invalid(path, fmt::format("expected an array of edits, got {}", json_type_name(v)));
  if (v.empty()) return invalid(path, "needs at least one edit");
  static const std::vector<ArgSpec> kEditSpec = {
      {"find", ArgType::kString, true, "exact text to find", 0, 0},
      {"replace", ArgType::kString, true, "replacement text", 0, 0},
      {"count", ArgType::kInteger, false, "how many times `find` must occur (default 1)", 1,
       std::numeric_limits<std::int64_t>::max()},
  };
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string item_path = json_path_index(path, i);
    TRY_STATUS(validate_args(v[i], kEditSpec, item_path));
    if (v[i]["find"].get<std::string>().empty()) {
      return invalid(json_path_key(item_path, "find"), "must not be empty");
    }
  }
  return ok_status();
}

// A list of globs: an invalid one is invalid input, never a glob that silently matches nothing.
Status check_globs(const nlohmann::json& v, const std::string& path) {
  if (!v.is_array()) return invalid(path, "expected a list of globs, got " + json_describe(v));
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string item = json_path_index(path, i);
    if (!v[i].is_string()) return invalid(item, "expected a glob string, got " + json_describe(v[i]));
    if (auto g = PathGlob::compile(v[i].get<std::string>()); !g.ok()) {
      return invalid(item, fmt::format("invalid glob \"{}\": {}", v[i].get<std::string>(), g.error().message));
    }
  }
  return ok_status();
}

Status check_value(const nlohmann::json& v, const ArgSpec& spec, const std::string& path) {
  switch (spec.type) {
    case ArgType::kString:
      if (!v.is_string()) {
        return invalid(path, "expected a string, got " + json_describe(v));
      }
      return ok_status();
    case ArgType::kInteger:
      return check_integer(v, spec, path);
    case ArgType::kBoolean:
      if (!v.is_boolean()) return invalid(path, fmt::format("expected true or false, got {}", json_type_name(v)));
      return ok_status();
    case ArgType::kEdits:
      return check_edits(v, path);
    case ArgType::kRegex: {
      if (!v.is_string()) return invalid(path, "expected an RE2 pattern string, got " + json_describe(v));
      RE2::Options options;
      options.set_log_errors(false);
      RE2 re(v.get<std::string>(), options);
      if (!re.ok()) return invalid(path, "not a valid RE2 pattern: " + re.error());
      return ok_status();
    }
    case ArgType::kJson:
      return ok_status();
    case ArgType::kAssertion:
      if (!v.is_object() || !v.contains("type") || !v["type"].is_string()) {
        return invalid(path, "expected an assertion object with a \"type\", got " + json_describe(v));
      }
      return ok_status();
    case ArgType::kGlobs:
      return check_globs(v, path);
  }
  return make_error(ErrorCode::kInternal, "unknown ArgType");
}

}  // namespace

const char* arg_type_name(ArgType type) {
  switch (type) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kBoolean:
      return "boolean";
    case ArgType::kEdits:
      return "edits";
    case ArgType::kRegex:
      return "regex";
    case ArgType::kJson:
      return "json";
    case ArgType::kAssertion:
      return "assertion";
    case ArgType::kGlobs:
      return "globs";
  }
  return "?";
}

Status for_each_nested_assertion(const nlohmann::json& args, const std::vector<ArgSpec>& specs, const std::string& path,
                                 const std::function<Status(const nlohmann::json&, const std::string&)>& check) {
  for (const auto& spec : specs) {
    if (spec.type != ArgType::kAssertion || !args.is_object() || !args.contains(spec.name)) continue;
    TRY_STATUS(check(args[spec.name], json_path_key(path, spec.name)));
  }
  return ok_status();
}

std::string json_type_name(const nlohmann::json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

std::string json_describe(const nlohmann::json& value) {
  if (value.is_null() || value.is_object() || value.is_array()) return json_type_name(value);
  return json_type_name(value) + " " + json_excerpt(value);
}

std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars) {
  std::string s = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

std::string json_path_key(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string json_path_index(const std::string& parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

Status validate_args(const nlohmann::json& args, const Signature& signature, const std::string& path,
                     const std::vector<std::string>& ignored) {
  if (!signature.open_args || !args.is_object()) return validate_args(args, signature.args, path, ignored);
  std::vector<std::string> skip = ignored;
  for (const auto& [key, value] : args.items()) {
    const std::string& name = key;
    if (std::none_of(signature.args.begin(), signature.args.end(), [&](const ArgSpec& s) { return s.name == name; })) {
      skip.push_back(key);
    }
  }
  return validate_args(args, signature.args, path, skip);
}

Status validate_args(const nlohmann::json& args, const std::vector<ArgSpec>& specs, const std::string& path,
                     const std::vector<std::string>& ignored) {
  if (!args.is_object()) {
    return invalid(path, fmt::format("expected an object, got {}", json_type_name(args)));
  }
  for (const auto& [key, value] : args.items()) {
    if (std::find(ignored.begin(), ignored.end(), key) != ignored.end()) continue;
    const std::string& name = key;  // clang < 16 cannot capture a structured binding
    auto it = std::find_if(specs.begin(), specs.end(), [&](const ArgSpec& s) { return s.name == name; });
    if (it == specs.end()) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      return invalid(json_path_key(path, key),
                     fmt::format("unknown argument \"{}\" (known: {})", key, known.empty() ? "none" : known));
    }
    TRY_STATUS(check_value(value, *it, json_path_key(path, key)));
  }
  for (const auto& spec : specs) {
    if (spec.required && !args.contains(spec.name)) {
      return invalid(json_path_key(path, spec.name),
                     fmt::format("missing required {} argument", arg_type_name(spec.type)));
    }
  }
  return ok_status();
}

std::string json_str(const nlohmann::json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

}  // namespace candor
