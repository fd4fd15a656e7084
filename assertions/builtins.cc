#include "assertions/builtins.h"

#include <fmt/format.h>

namespace candor::assertions {

std::string quote_excerpt(const std::string& text, std::size_t max_chars) {
  std::string out;
  for (char c : text.substr(0, max_chars)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';
    } else {
      out += c;
    }
  }
  if (text.size() > max_chars) return fmt::format("\"{}...\" ({} chars)", out, text.size());
  return "\"" + out + "\"";
}

void saw_credential(const Context& ctx) {
  if (ctx.credential_seen != nullptr) *ctx.credential_seen = true;
}

namespace {

Result<std::string> unflagged(const Context& ctx, Result<sandbox::FileContent> content) {
  if (!content.ok()) return content.error();
  if (content->credential) saw_credential(ctx);
  return std::move(content->bytes);
}

}  // namespace

Result<sandbox::EntryInfo> stat_checked_path(const Context& ctx, const std::string& path) {
  auto info = ctx.files != nullptr ? ctx.files->stat(path) : ctx.workspace.stat(path);
  if (info.ok() && info->credential) saw_credential(ctx);
  return info;
}

Result<sandbox::EntryInfo> entry_checked_path(const Context& ctx, const std::string& path) {
  // A tree's stat already names a link as one; the workspace's follows links, so ask for the entry.
  auto info = ctx.files != nullptr ? ctx.files->stat(path) : ctx.workspace.lstat(path);
  if (info.ok() && info->credential) saw_credential(ctx);
  return info;
}

Result<std::string> read_checked_file(const Context& ctx, const std::string& path, std::size_t max_bytes) {
  return unflagged(ctx, ctx.files != nullptr ? ctx.files->read_file(path, max_bytes)
                                             : ctx.workspace.read_file_flagged(path, max_bytes));
}

Result<std::string> read_workspace_file(const Context& ctx, const std::string& path, std::size_t max_bytes) {
  return unflagged(ctx, ctx.workspace.read_file_flagged(path, max_bytes));
}

// Reads a file for a content check; on failure the Outcome already says why.
std::optional<std::string> read_for_check(const Context& ctx, const std::string& path, Outcome& out) {
  auto info = stat_checked_path(ctx, path);
  if (!info.ok()) {
    bool missing = info.error().code == ErrorCode::kNotFound;
    out = {false, missing ? fmt::format("{} does not exist", path) : "could not be checked: " + info.error().message,
           out.path, !missing};
    return std::nullopt;
  }
  if (info->kind != sandbox::EntryKind::kFile) {
    out = {false,
           fmt::format("could not be checked: {} is {}", path,
                       info->kind == sandbox::EntryKind::kDirectory ? "a directory"
                       : info->kind == sandbox::EntryKind::kSymlink ? "a symbolic link"
                                                                    : "not a regular file"),
           out.path, true};
    return std::nullopt;
  }
  if (info->size > static_cast<std::int64_t>(kMaxCheckedFile)) {
    out = {false,
           fmt::format("could not be checked: {} is {} bytes, over the {} MiB that content checks read", path,
                       info->size, kMaxCheckedFile >> 20),
           out.path, true};
    return std::nullopt;
  }
  auto content = read_checked_file(ctx, path, kMaxCheckedFile);
  if (!content.ok()) {
    bool missing = content.error().code == ErrorCode::kNotFound;  // gone since the stat
    out = {false, missing ? fmt::format("{} does not exist", path) : "could not be checked: " + content.error().message,
           out.path, !missing};
    return std::nullopt;
  }
  return std::move(content.value());
}

Registry builtin_evaluators() {
  Registry r;
  for (auto make :
       {make_file_exists, make_file_contains, make_file_not_contains, make_file_size_gt, make_file_unchanged,
        make_content_changed, make_file_matches, make_json_valid, make_json_path_eq, make_git_clean,
        make_command_succeeds, make_not, make_output_contains, make_exit_code_eq, make_socket_open, make_http_200}) {
    Status s = r.add(make());
    if (!s.ok()) std::abort();  // two built-ins with one name is a bug
  }
  return r;
}

}  // namespace candor::assertions
