#include "executor/snapshot_files.h"

#include <fmt/format.h>

#include "assertions/materialized.h"
#include "core/run_record.h"

namespace candor::executor {
namespace {

Error not_found(const std::string& path, const std::string& when) {
  return make_error(ErrorCode::kNotFound, fmt::format("{} did not exist {}", path, when));
}

}  // namespace

Result<std::string> SnapshotFiles::tree_path(const std::string& path) const {
  TRY(std::string checked, sandbox::Workspace::check_relative(path));
  return normalize_relative_path(checked);
}

bool SnapshotFiles::credential(const std::string& rel, std::string_view content) const {
  return secrets_.refused(rel) || (credentials_ != nullptr && credentials_->has_content(content));
}

Result<sandbox::EntryInfo> SnapshotFiles::stat(const std::string& path) const {
  TRY(std::string rel, tree_path(path));
  TRY(auto info, trees_.stat(tree_, rel));
  if (!info) return not_found(path, absent_phrase_);
  sandbox::EntryInfo out;
  out.kind = info->directory         ? sandbox::EntryKind::kDirectory
             : info->mode == 0120000 ? sandbox::EntryKind::kSymlink
                                     : sandbox::EntryKind::kFile;
  out.size = info->size;
  out.mode = info->mode & 0777;
  out.credential = secrets_.refused(rel);
  if (!out.credential && credentials_ != nullptr && out.kind == sandbox::EntryKind::kFile &&
      credentials_->has_size(static_cast<std::uint64_t>(info->size))) {
    TRY(auto file, trees_.read_file(tree_, rel));  // a credential's size: its bytes decide
    out.credential = file && credential(rel, file->content);
  }
  return out;
}

Result<sandbox::FileContent> SnapshotFiles::read_file(const std::string& path, std::size_t max_bytes) const {
  TRY(std::string rel, tree_path(path));
  TRY(auto file, trees_.read_file(tree_, rel));
  if (!file) return not_found(path, absent_phrase_);
  if (file->mode == 0120000) {
    return make_error(ErrorCode::kInvalidInput, fmt::format("{} was a symbolic link {}", path, absent_phrase_));
  }
  bool is_credential = credential(rel, file->content);  // on the whole content, before the cut
  if (file->content.size() > max_bytes) file->content.resize(max_bytes);
  return sandbox::FileContent{std::move(file->content), is_credential};
}

Result<std::unique_ptr<assertions::MaterializedFiles>> SnapshotFiles::materialize(const std::string& path) const {
  TRY(std::string rel, tree_path(path));
  TRY(auto file, trees_.read_file(tree_, rel));
  std::optional<std::string> content;
  if (file && file->mode != 0120000)
    content = credential(rel, file->content) ? std::string() : std::move(file->content);
  return assertions::materialize_one(rel, content);
}

}  // namespace candor::executor
