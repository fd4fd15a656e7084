#include "app/inputs.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "core/glob.h"

namespace candor::app {

Result<std::vector<nlohmann::json>> parse_expects(const std::vector<std::string>& texts,
                                                  const std::vector<nlohmann::json>& from_config,
                                                  const planner::Catalog& catalog, const std::string& config_where,
                                                  const std::string& key) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < from_config.size(); ++i) {
    TRY_STATUS(planner::validate_assertion(from_config[i], catalog, fmt::format("{}: {}[{}]", config_where, key, i)));
    out.push_back(from_config[i]);
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string where = fmt::format("--{} #{}", key, i + 1);
    TRY(nlohmann::json a, planner::parse_json_text(texts[i], where));
    TRY_STATUS(planner::validate_assertion(a, catalog, where));
    out.push_back(a);
  }
  return out;
}

bool path_within(const std::string& path, const std::string& dir) {
  auto resolve = [](const std::string& s, std::error_code& ec) {
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(s, ec), ec);
    return p.has_filename() ? p : p.parent_path();  // "dir/" is "dir"
  };
  std::error_code ec;
  std::filesystem::path p = resolve(path, ec);
  if (ec) return false;
  std::filesystem::path d = resolve(dir, ec);
  if (ec) return false;
  auto [d_end, p_at] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  return d_end == d.end();
}

Result<std::string> caller_workspace(const std::string& workspace) {
  std::error_code ec;
  std::filesystem::path given =
      workspace.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(workspace);
  if (ec) return make_error(ErrorCode::kUsage, fmt::format("the current folder: {}", ec.message()));
  std::filesystem::path real = std::filesystem::canonical(given, ec);
  if (ec) return make_error(ErrorCode::kUsage, fmt::format("the workspace {}: {}", given.string(), ec.message()));
  if (!std::filesystem::is_directory(real, ec))
    return make_error(ErrorCode::kUsage, fmt::format("the workspace {} is not a folder", given.string()));
  return real.string();
}

Status check_scope_option(const std::vector<std::string>& scope) {
  for (const auto& glob : scope) {
    if (auto g = PathGlob::compile(glob); !g.ok()) {
      return make_error(ErrorCode::kInvalidInput,
                        fmt::format("--scope \"{}\": invalid glob: {}", glob, g.error().message));
    }
  }
  return ok_status();
}

Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
  auto text = read_input_file(path, max_bytes);
  if (!text.ok() && text.error().code == ErrorCode::kNotFound)
    return make_error(ErrorCode::kInvalidInput, text.error().message);
  return text;
}

}  // namespace candor::app
